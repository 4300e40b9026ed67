// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/view_print.h"

#include <errno.h>
#include <stdio.h>
#include <limits.h>

void view_print_init(struct view_print *o)
{
	*o = (struct view_print){ .vo = { .top = VIEW_PRINT_TOP,
					  .min_share = VIEW_PRINT_MIN_SHARE } };
}

/* Text fits 80 columns unless asked for another width, or for no limit
 * ("full": nothing is cut, whether stdout is a terminal or a pipe). */
static int view_print_width(int asked)
{
	if (asked > 0)
		return asked;
	return asked == VIEW_PRINT_WIDTH_FULL ? INT_MAX / 4 : VIEW_PRINT_WIDTH;
}

/* Does the view have the --sort column?  1 yes, 0 no (names in cols), or -errno. */
static int view_print_has_col(const struct profile *p, const struct view *v, const char *col,
			      char *cols, size_t len)
{
	struct view_opts vo = { .top = 1 };
	struct table t;
	int err = v->build(p, &vo, &t);

	if (!err) {
		err = table_col(&t, col) >= 0;
		if (!err)
			table_col_names(&t, cols, len);
	}
	table_free(&t);
	return err;
}

int view_print_one(const struct profile *p, const struct view *v, const struct view_print *o,
		   int strict)
{
	struct view_opts vo = o->vo;
	FILE *f = o->out ? o->out : stdout;
	int width = view_print_width(o->width);
	int err, col = -1, sort = o->vo.sort != NULL;
	char cols[512];
	struct table t;

	if (sort && !strict &&
	    (err = view_print_has_col(p, v, o->vo.sort, cols, sizeof(cols))) <= 0) {
		if (err < 0)
			return err;
		sort = 0;
	}
	if (!o->csv && v->text && !sort)
		return v->text(p, &o->vo, f, width);
	if (sort)
		vo.top = 0;
	err = v->build(p, &vo, &t);
	if (!err && sort) {
		col = table_col(&t, o->vo.sort);
		if (col < 0) {
			table_col_names(&t, cols, sizeof(cols));
			fprintf(stderr, "cdt report: --sort %s: the %s view has no such column; "
				"its columns: %s\n", o->vo.sort, v->name, cols);
			err = -ECANCELED; /* said */
		} else {
			err = table_sort(&t, col);
			table_top(&t, o->vo.top);
		}
	}
	if (!err) {
		if (o->csv)
			table_print_csv(&t, f);
		else
			table_print_text(&t, f, width);
	}
	table_free(&t);
	return err;
}

/* --sort in the full report: at least one of its views must have the column. */
static int view_print_sort_check(const struct profile *p, const struct view *views,
				 const char *const *report, const char *col)
{
	char cols[512];
	int r;

	for (const char *const *n = report; *n; n++) {
		r = view_print_has_col(p, view_find(views, *n), col, cols, sizeof(cols));
		if (r)
			return r < 0 ? r : 0;
	}
	fprintf(stderr, "cdt report: --sort %s: no view of the report has such a column; the "
		"columns of each:\n", col);
	for (const char *const *n = report; *n; n++) {
		r = view_print_has_col(p, view_find(views, *n), "", cols, sizeof(cols));
		if (r < 0)
			return r;
		fprintf(stderr, "  %s: %s\n", *n, cols);
	}
	return -ECANCELED; /* said */
}

int view_print_report(const struct profile *p, const struct view *views,
		      const char *const *report, const struct view_print *o)
{
	int r = o->vo.sort ? view_print_sort_check(p, views, report, o->vo.sort) : 0;

	for (const char *const *n = report; *n && !r; n++) {
		if (n != report)
			fputc('\n', o->out ? o->out : stdout);
		r = view_print_one(p, view_find(views, *n), o, 0);
	}
	return r;
}

int view_print_run_report(const struct profile *p, const struct view *views,
			  const char *const *report)
{
	struct view_print pr;

	view_print_init(&pr);
	pr.out = stderr;
	return view_print_report(p, views, report, &pr);
}
