/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A profile in the TUI (cdt report --tui): the screens of its tool.  A
 * tool with screens of its own lists them in lib/views_tui_<tool>.c and
 * one line of views_tui.c; any other tool gets a table screen per view
 * (its summary first), sortable and searchable, for free.
 */
#ifndef CDT_VIEWS_TUI_H
#define CDT_VIEWS_TUI_H

#include <stddef.h>

#include "profile.h"
#include "views.h"

struct tui_screen;

#define VIEWS_TUI_MAX 16      /* top screens */
#define VIEWS_TUI_TOP 10000   /* rows a table screen holds at most */

struct tui_tool {
	const char *tool; /* profile meta "tool" */
	/* Append the tool's top screens to s[*n..max); 0 or -errno. */
	int (*screens)(const struct profile *p, const struct tool_views *tv,
		       struct tui_screen **s, size_t *n, size_t max);
};

/* views_tui_comm.c */
extern const struct tui_tool tui_tool_comm;

/*
 * A table screen named name of the views of tv named in views (NULL
 * ended, one section each), built when first shown, with every row up to
 * VIEWS_TUI_TOP.  NULL on ENOMEM.
 */
struct tui_screen *views_tui_table(const struct profile *p, const struct tool_views *tv,
				   const char *name, const char *const *views);

struct views_tui_opts {
	const char *file;  /* shown in the top row */
	int draw_once;     /* draw the first screen and return */
};

/* Run the TUI on p until the user quits.  0, or -errno (-ENOTTY: the
 * terminal cannot be used); *sig is the signal that ended it, else 0. */
int views_tui_run(const struct profile *p, const struct views_tui_opts *o, int *sig);

#endif
