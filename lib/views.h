/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Views: what a report can show of a profile.  Each tool lists its views;
 * a view turns a profile into a table that output/ renders as text or
 * CSV.  A new tool adds a file with its views and one line in views.c.
 */
#ifndef CDT_VIEWS_H
#define CDT_VIEWS_H

#include "profile.h"
#include "table.h"

/*
 * A view leaves out rows past top and rows under min_share of its total
 * (where rows have a share), and counts them in table.hidden.  Sorting by
 * a column (--sort) is done on the whole table afterwards (cmd/report.c).
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

struct tool_views {
	const char *tool;           /* profile meta "tool" */
	const struct view *views;   /* NULL-terminated by name */
	const char *const *report;  /* views of the default text report, in order */
	/* profile.fold for the tool's records (NULL: they are kept). */
	int (*fold)(struct profile *p, const struct rec_hdr *r);
};

const struct tool_views *views_for(const char *tool);
const struct view *views_find(const struct tool_views *tv, const char *name);
/* profile.fold of a report: each tool's fold gets the records it knows. */
int views_fold(struct profile *p, const struct rec_hdr *r);

/* views_record.c, views_comm.c */
extern const struct tool_views views_record;
extern const struct tool_views views_comm;

/* Shared helpers for view code. */
/* Summary rows every tool has: settings, how the run ended, agent cost. */
int view_summary_run(const struct profile *p, struct table *t);
int view_summary_errors(const struct profile *p, struct table *t);
const char *view_kind_name(int kind);
void view_code_loc(const struct profile *p, uint32_t pid, uint64_t time, uint64_t ip,
		   char *buf, size_t len);
void view_data_obj(const struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
		   int stack, char *buf, size_t len, uint64_t *offset);
/* A thread column: "name:r" (numbers), or "name" when merged profiles
 * label threads rank.thread, which sort as text. */
const char *view_thread_col(const struct profile *p, const char *name_r, const char *name);

#endif
