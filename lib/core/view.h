/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Views: what a report can show of a profile.  A view turns a profile
 * into a table that output/ renders as text or CSV; each tool lists its
 * own (lib/tools/NAME/views.c).  Helpers for the rows every tool shows.
 */
#ifndef CDT_CORE_VIEW_H
#define CDT_CORE_VIEW_H

#include <stdio.h>

#include "lib/core/profile.h"
#include "output/table.h"

/*
 * A view leaves out rows past top and rows under min_share of its total
 * (where rows have a share), and counts them in table.hidden.  Sorting by
 * a column (--sort) is done on the whole table afterwards (view_print.c).
 */
struct view_opts {
	size_t top;        /* rows at most; 0 = all */
	const char *sort;  /* column name, or NULL for the view's default */
	double min_share;  /* hide rows below this share of the total */
};

struct view {
	const char *name;
	const char *help;
	int (*build)(const struct profile *p, const struct view_opts *o, struct table *t);
	/* Text form when it is not a table (a heatmap); NULL: the table. */
	int (*text)(const struct profile *p, const struct view_opts *o, FILE *f, int width);
};

/* The view called name in a NULL-name-terminated array, or NULL. */
const struct view *view_find(const struct view *views, const char *name);

/* Summary rows every tool has: settings, how the run ended, agent cost. */
int view_summary_run(const struct profile *p, struct table *t);
int view_summary_errors(const struct profile *p, struct table *t);
/* A view whose table is one column of sentences (findings), as prose:
 * build's table through table_print_items.  For struct view.text. */
int view_items_text(int (*build)(const struct profile *p, const struct view_opts *o,
				 struct table *t),
		    const struct profile *p, const struct view_opts *o, FILE *f, int width);
/* The "processes" view of every tool: each process, how it ended. */
int view_processes(const struct profile *p, const struct view_opts *o, struct table *t);
/*
 * When sampling took a fifth or more of a thread's time, a sentence that
 * says so and which rate would cost about 5%; else 0 and buf untouched.
 */
int view_cost_warning(const struct prof_cost *c, char *buf, size_t len);
/* A thread column: "name:r" (numbers), or "name" when merged profiles
 * label threads rank.thread, which sort as text. */
const char *view_thread_col(const struct profile *p, const char *name_r, const char *name);

#endif
