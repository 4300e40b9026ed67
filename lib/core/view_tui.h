/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A profile in the TUI (cdt report --tui): the tool's own screens, or,
 * for a tool without any, a table screen per view (its summary first),
 * sortable and searchable, for free.
 */
#ifndef CDT_CORE_VIEW_TUI_H
#define CDT_CORE_VIEW_TUI_H

#include <stddef.h>

#include "lib/core/profile.h"
#include "lib/core/view.h"

struct tui_screen;

#define VIEW_TUI_MAX 16      /* top screens */
#define VIEW_TUI_TOP 10000   /* rows a table screen holds at most */

/* A tool's top screens: appended to s[*n..max); 0 or -errno. */
typedef int (*view_tui_fn)(const struct profile *p, const struct view *views,
			   struct tui_screen **s, size_t *n, size_t max);

/*
 * A table screen named name of the views named in names (NULL ended, one
 * section each), built when first shown, with every row up to
 * VIEW_TUI_TOP.  NULL on ENOMEM.
 */
struct tui_screen *view_tui_table(const struct profile *p, const struct view *views,
				  const char *name, const char *const *names);

/* A table screen per view named in names (NULL ended), called after the
 * view, appended to s[*n..max); 0, -ENOSPC or -ENOMEM. */
int view_tui_tables(const struct profile *p, const struct view *views,
		    const char *const *names, struct tui_screen **s, size_t *n, size_t max);

struct view_tui_opts {
	const char *tool;  /* shown in the top row */
	const char *file;  /* likewise */
	int draw_once;     /* draw the first screen and return */
};

/* Run the TUI on p until the user quits: screens(), or a table per view
 * if it is NULL.  0, or -errno (-ENOTTY: the terminal cannot be used);
 * *sig is the signal that ended it, else 0. */
int view_tui_run(const struct profile *p, const struct view *views, view_tui_fn screens,
		 const struct view_tui_opts *o, int *sig);

#endif
