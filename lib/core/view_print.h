/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Printing views on stdout (or another stream, view_print.out): one view,
 * or a tool's default report (its report views in order), as text that
 * fits a width or as CSV, with --sort applied to the whole table before
 * it is cut to --top.
 */
#ifndef CDT_CORE_VIEW_PRINT_H
#define CDT_CORE_VIEW_PRINT_H

#include <stdio.h>

#include "lib/core/view.h"

#define VIEW_PRINT_TOP 20           /* rows per table */
#define VIEW_PRINT_MIN_SHARE 0.0005 /* like perf c2c: hide rows under 0.05% */
#define VIEW_PRINT_WIDTH 80
#define VIEW_PRINT_WIDTH_FULL (-1)  /* no limit */

struct view_print {
	struct view_opts vo;
	int csv;
	int width; /* text columns: > 0, 0 for VIEW_PRINT_WIDTH, or VIEW_PRINT_WIDTH_FULL */
	FILE *out; /* where the views go; NULL: stdout */
};

/* Top 20 rows, the 0.05% threshold, 80 columns of text. */
void view_print_init(struct view_print *o);

/*
 * One view.  strict: a --sort column the view lacks is an error (said
 * on stderr, -ECANCELED); otherwise the view is printed unsorted.
 * 0 or -errno.
 */
int view_print_one(const struct profile *p, const struct view *v, const struct view_print *o,
		   int strict);

/* The views named in report, in order, blank lines between; a --sort
 * column must be in at least one of them.  0 or -errno (-ECANCELED: said). */
int view_print_report(const struct profile *p, const struct view *views,
		      const char *const *report, const struct view_print *o);
/* A tool's report at the end of a run, with the defaults, on stderr:
 * stdout is the program's (`cdt comm pigz -c f > f.gz`). */
int view_print_run_report(const struct profile *p, const struct view *views,
			  const char *const *report);

#endif
