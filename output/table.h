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
	size_t hidden;  /* rows left out (top, threshold); text says so unless note */
};

/* Columns are "name" or "name:r" for right alignment. */
int table_init(struct table *t, const char *title, const char *const *cols);
void table_free(struct table *t);
int table_row(struct table *t);
int table_cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The column called name (without ":r"), or -1. */
int table_col(const struct table *t, const char *name);
/* "a, b, c": the column names, for messages. */
void table_col_names(const struct table *t, char *buf, size_t len);
/*
 * Sort rows by a column, stably: numbers (":r" columns) from the largest,
 * text from the smallest, digits in text by value ("t2" before "t10").
 * 0 or -ENOMEM.
 */
int table_sort(struct table *t, int col);
/* Keep the first n rows (0: all); the others count as hidden. */
void table_top(struct table *t, size_t n);

/* width 0: no limit.  Overlong cells of the widest column are cut. */
void table_print_text(const struct table *t, FILE *f, int width);
void table_print_csv(const struct table *t, FILE *f);
/* A one-column table as prose: its title, then each cell as a bullet
 * ("- ") wrapped at spaces to width columns (0: no limit). */
void table_print_items(const struct table *t, FILE *f, int width);

#endif
