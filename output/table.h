/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A view's result as a table of strings, rendered as aligned text for
 * people or RFC 4180 CSV for pipelines.  Renderers know nothing of perf.
 */
#ifndef CDT_TABLE_H
#define CDT_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TABLE_MAX_COLS 24

struct table {
	const char *title;
	int ncols;
	const char *cols[TABLE_MAX_COLS];
	unsigned char right[TABLE_MAX_COLS]; /* numbers align right */
	char **cells; /* nrows * ncols */
	size_t nrows, cap;
	int cur;      /* next cell of the current row */
	char note[256]; /* printed under the text table */
};

/* Columns are "name" or "name:r" for right alignment. */
int table_init(struct table *t, const char *title, const char *const *cols);
void table_free(struct table *t);
int table_row(struct table *t);
int table_cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* width 0: no limit.  Overlong cells of the widest column are cut. */
void table_print_text(const struct table *t, FILE *f, int width);
void table_print_csv(const struct table *t, FILE *f);

#endif
