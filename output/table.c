// SPDX-License-Identifier: GPL-2.0-only
#include "output/table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/textesc.h"

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

/* A text column cut to less than two thirds of its width, or than this,
 * no longer reads: another column is left out before that. */
#define TABLE_KEEP 12

/*
 * Where to cut s (escaped) to fit w columns with "..." after it: at the
 * last list or word boundary (", ", " ", "," or "/") that keeps at least
 * half of the room, else mid-word.  Returns the bytes to keep.
 */
static size_t table_cut(const char *s, size_t w)
{
	size_t room = w > 3 ? w - 3 : 0, end = textesc_prefix(s, room), best = end;

	for (size_t i = end; i > 0; i--) {
		char ch = s[i - 1];

		if (textesc_cols(s) - textesc_cols(s + i) < room / 2)
			break;
		if (ch == ' ' || ch == ',' || ch == '/') {
			best = i;
			break;
		}
	}
	while (best > 0 && (s[best - 1] == ' ' || s[best - 1] == ','))
		best--;
	return best;
}

/* Append cell s (escaped) to line at *o, in w columns, with its gap. */
static void table_put(char *line, size_t *o, const char *s, size_t w, int right, int gap)
{
	size_t n = textesc_cols(s), keep;

	*o += (size_t)sprintf(line + *o, "%*s", gap, "");
	if (n > w) {
		keep = table_cut(s, w);
		memcpy(line + *o, s, keep);
		*o += keep;
		*o += (size_t)sprintf(line + *o, "%s", w >= 3 ? "..." : "");
		return;
	}
	if (right)
		*o += (size_t)sprintf(line + *o, "%*s", (int)(w - n), "");
	memcpy(line + *o, s, strlen(s));
	*o += strlen(s);
	if (!right)
		*o += (size_t)sprintf(line + *o, "%*s", (int)(w - n), "");
}

/* Print a line without the spaces that padding left at its end. */
static void table_line(FILE *f, char *line, size_t o)
{
	while (o > 0 && line[o - 1] == ' ')
		o--;
	line[o] = '\0';
	fprintf(f, "%s\n", line);
}

/* A note, broken at spaces to fit the width. */
static void table_wrap(FILE *f, const char *s, int width)
{
	size_t w = width > 0 ? (size_t)width : strlen(s);

	while (strlen(s) > w) {
		size_t cut = w;

		while (cut > 0 && s[cut] != ' ')
			cut--;
		if (!cut)
			break;
		fprintf(f, "%.*s\n", (int)cut, s);
		s += cut + 1;
	}
	fprintf(f, "%s\n", s);
}

/*
 * Fit the columns to the width: tighter gaps first; then, if cutting every
 * text column down to what still reads (TABLE_KEEP) would not be enough, whole columns are
 * left out, text ones from the right, then numbers from the right (never
 * the first column): a few readable columns read better than every one
 * cut short; then the widest text columns are cut as far as needed.  But
 * a first column alone says nothing (a summary's keys without values), so
 * before the last other column would go, text is cut down to TABLE_KEEP.
 * Numbers are never cut.  Returns the gap; w[] gets 0 for a column left
 * out.
 */
/* Whether column drop is the only one shown besides the first. */
static int table_fit_last(const size_t *w, int ncols, int drop)
{
	for (int c = 1; c < ncols; c++)
		if (w[c] && c != drop)
			return 0;
	return 1;
}

static int table_fit(const struct table *t, size_t *w, int width)
{
	size_t total = 0, keep[TABLE_MAX_COLS];
	int gap = 2, relaxed = 0;

	for (int c = 0; c < t->ncols; c++) {
		total += w[c] + (c ? 2 : 0);
		keep[c] = (w[c] * 2 + 2) / 3 > TABLE_KEEP ? (w[c] * 2 + 2) / 3 : TABLE_KEEP;
	}
	if (width <= 0 || total <= (size_t)width)
		return gap;
	gap = 1;
	total -= (size_t)t->ncols - 1;
	while (total > (size_t)width) {
		size_t spare = 0, over = total - (size_t)width;
		int widest = -1, drop = -1;

		for (int c = 0; c < t->ncols; c++) {
			if (!w[c] || t->right[c] || w[c] <= keep[c])
				continue;
			spare += w[c] - keep[c];
			if (widest < 0 || w[c] > w[widest])
				widest = c;
		}
		if (spare >= over) {
			size_t cut = w[widest] - keep[widest];

			cut = cut < over ? cut : over;
			w[widest] -= cut;
			total -= cut;
			continue;
		}
		for (int pass = 0; pass < 2 && drop < 0; pass++)
			for (int c = t->ncols - 1; c > 0 && drop < 0; c--)
				if (w[c] && (pass || !t->right[c]))
					drop = c;
		if (drop > 0 && !relaxed && table_fit_last(w, t->ncols, drop)) {
			for (int c = 0; c < t->ncols; c++)
				keep[c] = TABLE_KEEP;
			relaxed = 1;
			continue;
		}
		if (drop < 0) {
			w[0] = (size_t)width; /* one column left: cut it */
			break;
		}
		total -= w[drop] + (size_t)gap;
		w[drop] = 0;
	}
	return gap;
}

void table_print_text(const struct table *t, FILE *f, int width)
{
	size_t nc = (size_t)t->ncols, w[TABLE_MAX_COLS], len = 16, o;
	char **e = calloc(t->nrows * nc + 1, sizeof(*e)), *line = NULL, left[256] = "";
	int gap;

	if (t->title)
		fprintf(f, "%s\n", t->title);
	if (!t->nrows) {
		fprintf(f, "none\n");
		goto out;
	}
	if (!e)
		goto out;
	for (size_t c = 0; c < nc; c++)
		w[c] = table_colname_len(t, (int)c);
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < nc; c++) {
			size_t n;

			e[r * nc + c] = textesc_dup(table_get(t, r, (int)c));
			if (!e[r * nc + c])
				goto out;
			n = textesc_cols(e[r * nc + c]);
			w[c] = n > w[c] ? n : w[c];
		}
	for (size_t c = 0; c < nc; c++)
		len += strlen(t->cols[c]) + 4 * w[c] + 8;
	line = malloc(len);
	if (!line)
		goto out;
	gap = table_fit(t, w, width);
	o = 0;
	for (size_t c = 0; c < nc; c++) {
		char name[64];

		if (!w[c]) {
			size_t n = strlen(left);

			snprintf(left + n, sizeof(left) - n, "%s%.*s", n ? ", " : "",
				 (int)table_colname_len(t, (int)c), t->cols[c]);
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)table_colname_len(t, (int)c), t->cols[c]);
		table_put(line, &o, name, w[c], t->right[c], o ? gap : 0);
	}
	table_line(f, line, o);
	for (size_t r = 0; r < t->nrows; r++) {
		o = 0;
		for (size_t c = 0; c < nc; c++)
			if (w[c])
				table_put(line, &o, e[r * nc + c], w[c], t->right[c], o ? gap : 0);
		table_line(f, line, o);
	}
	if (left[0]) {
		char msg[400];

		snprintf(msg, sizeof(msg), "(not shown at %d columns: %s; --width full shows them)",
			 width, left);
		table_wrap(f, msg, width);
	}
	if (t->note[0])
		fprintf(f, "%s\n", t->note);
	else if (t->hidden)
		fprintf(f, "(%zu more not shown; --top 0 --show-all lists all)\n", t->hidden);
out:
	for (size_t i = 0; e && i < t->nrows * nc; i++)
		free(e[i]);
	free(e);
	free(line);
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

void table_print_items(const struct table *t, FILE *f, int width)
{
	if (t->title)
		fprintf(f, "%s\n", t->title);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *s = t->cells[r * (size_t)t->ncols];
		int col = 2;

		fputs("- ", f);
		while (*s) {
			size_t w = strcspn(s, " ");

			if (width > 0 && col > 2 && col + 1 + (int)w > width) {
				fputs("\n  ", f);
				col = 2;
			} else if (col > 2) {
				fputc(' ', f);
				col++;
			}
			fwrite(s, 1, w, f);
			col += (int)w;
			s += w;
			s += strspn(s, " ");
		}
		fputc('\n', f);
	}
}
