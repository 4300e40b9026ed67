// SPDX-License-Identifier: GPL-2.0-only
#include "output/table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int table_init(struct table *t, const char *title, const char *const *cols)
{
	memset(t, 0, sizeof(*t));
	t->title = title;
	for (; *cols && t->ncols < TABLE_MAX_COLS; cols++) {
		size_t n = strlen(*cols);

		t->right[t->ncols] = n > 2 && !strcmp(*cols + n - 2, ":r");
		t->cols[t->ncols++] = *cols;
	}
	t->cur = t->ncols;
	return 0;
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}

int table_row(struct table *t)
{
	size_t need = (t->nrows + 1) * (size_t)t->ncols;

	if (need > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : (size_t)t->ncols * 64;
		char **c;

		while (ncap < need)
			ncap *= 2;
		c = realloc(t->cells, ncap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = ncap;
	}
	memset(t->cells + t->nrows * (size_t)t->ncols, 0, (size_t)t->ncols * sizeof(char *));
	t->nrows++;
	t->cur = 0;
	return 0;
}

int table_cell(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (t->cur >= t->ncols || !t->nrows)
		return -EINVAL;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	t->cells[(t->nrows - 1) * (size_t)t->ncols + (size_t)t->cur++] = s;
	return 0;
}

static const char *table_get(const struct table *t, size_t r, int c)
{
	const char *s = t->cells[r * (size_t)t->ncols + (size_t)c];

	return s ? s : "";
}

static size_t table_colname_len(const struct table *t, int c)
{
	return strlen(t->cols[c]) - (t->right[c] ? 2 : 0);
}

void table_print_text(const struct table *t, FILE *f, int width)
{
	size_t w[TABLE_MAX_COLS], total = 0;
	int widest, gap = 2;

	for (int c = 0; c < t->ncols; c++) {
		w[c] = table_colname_len(t, c);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t n = strlen(table_get(t, r, c));

			if (n > w[c])
				w[c] = n;
		}
		total += w[c] + (c ? 2 : 0);
	}
	/* Too wide for the terminal: tighten the gaps, then cut the widest
	 * text column; numbers are never cut. */
	if (width > 0 && total > (size_t)width && t->ncols > 1) {
		gap = 1;
		total -= (size_t)t->ncols - 1;
	}
	/* Text columns keep 8 characters if they can, 4 ("..ab") if not. */
	for (size_t keep = 8; keep >= 4 && width > 0 && total > (size_t)width; keep -= 4) {
		while (total > (size_t)width) {
			size_t over = total - (size_t)width, cut;

			widest = -1;
			for (int c = 0; c < t->ncols; c++)
				if (!t->right[c] && w[c] > keep && (widest < 0 || w[c] > w[widest]))
					widest = c;
			if (widest < 0)
				break;
			cut = w[widest] - keep < over ? w[widest] - keep : over;
			w[widest] -= cut;
			total -= cut;
		}
	}
	if (t->title)
		fprintf(f, "%s\n", t->title);
	for (int c = 0; c < t->ncols; c++)
		fprintf(f, "%*s%*.*s", c ? gap : 0, "", t->right[c] ? (int)w[c] : -(int)w[c],
			(int)table_colname_len(t, c), t->cols[c]);
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const char *s = table_get(t, r, c);
			size_t n = strlen(s);

			if (n > w[c]) /* keep the end: file:line and suffixes matter most */
				fprintf(f, "%*s..%s", c ? gap : 0, "", s + n - (w[c] - 2));
			else
				fprintf(f, "%*s%*s", c ? gap : 0, "",
					t->right[c] ? (int)w[c] : -(int)w[c], s);
		}
		fputc('\n', f);
	}
	if (t->note[0])
		fprintf(f, "%s\n", t->note);
	else if (t->hidden)
		fprintf(f, "(%zu more not shown; --top 0 --show-all lists all)\n", t->hidden);
}

int table_col(const struct table *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (table_colname_len(t, c) == strlen(name) &&
		    !strncmp(t->cols[c], name, table_colname_len(t, c)))
			return c;
	return -1;
}

void table_col_names(const struct table *t, char *buf, size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (int c = 0; c < t->ncols && o < len; c++)
		o += (size_t)snprintf(buf + o, len - o, "%s%.*s", c ? ", " : "",
				      (int)table_colname_len(t, c), t->cols[c]);
}

struct table_key {
	const char *s;
	double v;
	size_t row;
};

static int table_key_cmp(const void *a, const void *b, void *right)
{
	const struct table_key *x = a, *y = b;
	int c;

	if (*(const int *)right)
		c = x->v > y->v ? -1 : x->v < y->v;
	else
		c = strverscmp(x->s, y->s);
	/* Ties keep the view's order. */
	return c ? c : (x->row > y->row) - (x->row < y->row);
}

int table_sort(struct table *t, int col)
{
	size_t nc = (size_t)t->ncols;
	struct table_key *k;
	char **cells;
	int right;

	if (col < 0 || col >= t->ncols)
		return -EINVAL;
	if (t->nrows < 2)
		return 0;
	k = malloc(t->nrows * sizeof(*k));
	cells = malloc(t->nrows * nc * sizeof(*cells));
	if (!k || !cells) {
		free(k);
		free(cells);
		return -ENOMEM;
	}
	right = t->right[col];
	for (size_t r = 0; r < t->nrows; r++) {
		char *end;

		k[r].s = table_get(t, r, col);
		k[r].row = r;
		k[r].v = strtod(k[r].s, &end);
		if (end == k[r].s)
			k[r].v = -1e308; /* empty or not a number: last */
	}
	qsort_r(k, t->nrows, sizeof(*k), table_key_cmp, &right);
	for (size_t r = 0; r < t->nrows; r++)
		memcpy(cells + r * nc, t->cells + k[r].row * nc, nc * sizeof(*cells));
	memcpy(t->cells, cells, t->nrows * nc * sizeof(*cells));
	free(cells);
	free(k);
	return 0;
}

void table_top(struct table *t, size_t n)
{
	if (!n || t->nrows <= n)
		return;
	for (size_t i = n * (size_t)t->ncols; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	t->hidden += t->nrows - n;
	t->nrows = n;
}

static void table_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void table_print_csv(const struct table *t, FILE *f)
{
	for (int c = 0; c < t->ncols; c++) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)table_colname_len(t, c), t->cols[c]);
		if (c)
			fputc(',', f);
		table_csv_field(f, name);
	}
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', f);
			table_csv_field(f, table_get(t, r, c));
		}
		fputc('\n', f);
	}
}
