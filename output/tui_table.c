// SPDX-License-Identifier: GPL-2.0-only
/* Table screens (see tui_table.h). */
#include "output/tui_table.h"

#include <curses.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TT_MAXW 40   /* a column wider than this is cut, unless it is the last */
#define TT_GAP 2

struct tt_sect {
	struct table t;
	int built, err;
	size_t *order;  /* shown row -> table row */
	int sort;       /* column, or -1 for the view's own order */
	int desc;
	int w[TABLE_MAX_COLS];
};

struct tt {
	struct tui_table_src src;
	struct tt_sect *sect;
	size_t cs, cr;  /* cursor: section and shown row */
	size_t top;     /* first shown line */
	int col0;       /* first shown column */
	size_t page;    /* lines of rows at the last draw */
};

static const char *tt_cell(const struct table *t, size_t r, int c)
{
	const char *s = t->cells[r * (size_t)t->ncols + (size_t)c];

	return s ? s : "";
}

static int tt_colname(const struct table *t, int c, char *buf, size_t len)
{
	size_t n = strlen(t->cols[c]) - (t->right[c] ? 2 : 0);

	return snprintf(buf, len, "%.*s", (int)n, t->cols[c]);
}

static void tt_widths(struct tt_sect *s)
{
	const struct table *t = &s->t;

	for (int c = 0; c < t->ncols; c++) {
		char name[64];
		int w = tt_colname(t, c, name, sizeof(name)) + 2; /* room for the sort mark */

		for (size_t r = 0; r < t->nrows; r++) {
			int n = (int)strlen(tt_cell(t, r, c));

			if (n > w)
				w = n;
		}
		s->w[c] = c + 1 < t->ncols && w > TT_MAXW ? TT_MAXW : w;
	}
}

static int tt_build(struct tt *x)
{
	for (size_t k = 0; k < x->src.nsect; k++) {
		struct tt_sect *s = &x->sect[k];

		if (s->built)
			continue;
		s->built = 1;
		s->sort = -1;
		s->err = x->src.build(x->src.ctx, k, &s->t);
		if (s->err) {
			table_free(&s->t);
			if (s->err == -ENOMEM)
				return s->err;
			continue;
		}
		s->order = malloc((s->t.nrows + 1) * sizeof(*s->order));
		if (!s->order)
			return -ENOMEM;
		for (size_t r = 0; r < s->t.nrows; r++)
			s->order[r] = r;
		tt_widths(s);
	}
	return 0;
}

static size_t tt_nrows(const struct tt_sect *s)
{
	return s->err ? 0 : s->t.nrows;
}

/* Lines of a section: title, header, rows (or one line saying none), gap. */
static size_t tt_sect_lines(const struct tt_sect *s)
{
	size_t n = tt_nrows(s);

	return (s->t.title ? 1 : 0) + 1 + (n ? n : 1) + 1;
}

static size_t tt_first_row_line(const struct tt *x, size_t k)
{
	size_t l = 0;

	for (size_t i = 0; i < k; i++)
		l += tt_sect_lines(&x->sect[i]);
	return l + (x->sect[k].t.title ? 1 : 0) + 1;
}

static void tt_row_text(const struct tt_sect *s, size_t r, int col0, char *buf, size_t len,
			int header)
{
	const struct table *t = &s->t;
	size_t o = 0;

	buf[0] = '\0';
	for (int c = col0; c < t->ncols && o + 1 < len; c++) {
		char name[80];
		const char *v = name;
		size_t n, w = (size_t)s->w[c];

		if (header) {
			tt_colname(t, c, name, sizeof(name) - 2);
			if (c == s->sort)
				strcat(name, s->desc ? " v" : " ^");
		} else {
			v = tt_cell(t, s->order[r], c);
		}
		n = strlen(v);
		if (c > col0)
			o += (size_t)snprintf(buf + o, len - o, "%*s", TT_GAP, "");
		if (o + 1 >= len)
			break;
		if (n > w && w > 2) /* keep the end: file:line and suffixes matter most */
			o += (size_t)snprintf(buf + o, len - o, "..%s", v + n - (w - 2));
		else
			o += (size_t)snprintf(buf + o, len - o, t->right[c] ? "%*s" : "%-*s", (int)w, v);
	}
}

/* Draw line `line` of the screen's text if it is in view. */
static void tt_line(const struct tt *x, const struct tui_area *a, size_t line, int attr,
		    const char *text)
{
	int y;

	if (line < x->top || line >= x->top + x->page)
		return;
	y = a->y + (int)(line - x->top);
	if (attr & A_REVERSE) {
		move(y, a->x);
		attrset(A_REVERSE);
		hline(' ', a->w);
	}
	tui_put(y, a->x, a->w, attr, text);
}

static void tt_info(const struct tt *x, const struct tui_area *a)
{
	const struct tt_sect *s = &x->sect[x->cs];
	char col[80] = "the view's order", info[256];

	if (s->sort >= 0) {
		tt_colname(&s->t, s->sort, col, sizeof(col) - 12);
		strcat(col, s->desc ? " descending" : " ascending");
	}
	snprintf(info, sizeof(info), "row %zu of %zu, sorted by %s%s  |  s: sort  r: reverse"
		 "  Enter: row  Left/Right: columns", tt_nrows(s) ? x->cr + 1 : 0, tt_nrows(s), col,
		 x->col0 ? "  (columns scrolled)" : "");
	tui_put_items(a->y + a->h - 1, a->x, a->w, A_DIM, info);
}

static int tt_draw(struct tui_screen *scr, struct tui *ui, const struct tui_area *a)
{
	struct tt *x = scr->priv;
	char buf[4096];
	size_t line = 0, cl, head;
	int err = tt_build(x);

	(void)ui;
	if (err)
		return err;
	/* Start on the first section that has rows. */
	if (!x->cr && !tt_nrows(&x->sect[x->cs]))
		for (size_t k = 0; k < x->src.nsect && !tt_nrows(&x->sect[x->cs]); k++)
			x->cs = k;
	x->page = a->h > 2 ? (size_t)a->h - 1 : 1;
	/* Keep the cursor in view, and a section's head with its first row. */
	cl = tt_first_row_line(x, x->cs) + x->cr;
	head = x->cr ? cl : tt_first_row_line(x, x->cs) - 1 - (x->sect[x->cs].t.title ? 1 : 0);
	if (head < x->top)
		x->top = head;
	if (cl >= x->top + x->page)
		x->top = cl - x->page + 1;
	for (size_t k = 0; k < x->src.nsect && line < x->top + x->page; k++) {
		const struct tt_sect *s = &x->sect[k];
		size_t n = tt_nrows(s);

		if (s->t.title)
			tt_line(x, a, line++, A_BOLD, s->t.title);
		tt_row_text(s, 0, x->col0, buf, sizeof(buf), 1);
		tt_line(x, a, line++, A_BOLD | A_UNDERLINE, buf);
		if (!n) {
			if (s->err)
				snprintf(buf, sizeof(buf), "(cannot show this: %s)", strerror(-s->err));
			else
				snprintf(buf, sizeof(buf), "(no rows)");
			tt_line(x, a, line++, A_DIM, buf);
		}
		for (size_t r = 0; r < n && line < x->top + x->page; r++) {
			if (line >= x->top) {
				tt_row_text(s, r, x->col0, buf, sizeof(buf), 0);
				tt_line(x, a, line, k == x->cs && r == x->cr ? A_REVERSE : A_NORMAL, buf);
			}
			line++;
		}
		line++; /* a blank line between sections */
	}
	tt_info(x, a);
	return 0;
}

struct tt_sort {
	const struct table *t;
	const double *num;  /* NULL: compare text */
	int col, desc;
};

static int tt_cmp(const void *a, const void *b, void *arg)
{
	const struct tt_sort *k = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c;

	if (k->num)
		c = k->num[x] < k->num[y] ? -1 : k->num[x] > k->num[y];
	else
		c = strcmp(tt_cell(k->t, x, k->col), tt_cell(k->t, y, k->col));
	if (k->desc)
		c = -c;
	return c ? c : (x > y) - (x < y); /* stable: ties keep the view's order */
}

static int tt_sort(struct tt_sect *s)
{
	struct tt_sort k = { &s->t, NULL, s->sort, s->desc };
	double *num = NULL;
	size_t n = s->t.nrows;

	for (size_t r = 0; r < n; r++)
		s->order[r] = r;
	if (s->sort < 0)
		return 0;
	if (s->t.right[s->sort]) {
		num = malloc((n + 1) * sizeof(*num));
		if (!num)
			return -ENOMEM;
		for (size_t r = 0; r < n; r++) {
			const char *v = tt_cell(&s->t, r, s->sort);
			char *e;

			num[r] = strtod(v, &e);
			if (e == v)
				num[r] = -INFINITY;
		}
		k.num = num;
	}
	qsort_r(s->order, n, sizeof(*s->order), tt_cmp, &k);
	free(num);
	return 0;
}

/* Move the cursor by d rows across sections. */
static void tt_move(struct tt *x, long d)
{
	while (d > 0) {
		size_t n = tt_nrows(&x->sect[x->cs]);

		if (x->cr + 1 < n) {
			x->cr++;
		} else {
			size_t k = x->cs + 1;

			while (k < x->src.nsect && !tt_nrows(&x->sect[k]))
				k++;
			if (k == x->src.nsect)
				break;
			x->cs = k;
			x->cr = 0;
		}
		d--;
	}
	while (d < 0) {
		if (x->cr > 0) {
			x->cr--;
		} else {
			size_t k = x->cs;

			while (k > 0 && !tt_nrows(&x->sect[k - 1]))
				k--;
			if (k == 0)
				break;
			x->cs = k - 1;
			x->cr = tt_nrows(&x->sect[x->cs]) - 1;
		}
		d++;
	}
}

static struct tui_screen *tt_detail(const struct tt *x)
{
	const struct tt_sect *s = &x->sect[x->cs];
	size_t row = s->order[x->cr], len = 0;
	struct tui_screen *scr;
	char *text = NULL, name[64];
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (int c = 0; c < s->t.ncols; c++) {
		char col[64];

		tt_colname(&s->t, c, col, sizeof(col));
		fprintf(f, "%-12s %s\n", col, tt_cell(&s->t, row, c));
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	snprintf(name, sizeof(name), "%s, row %zu", s->t.title ? s->t.title : "row", x->cr + 1);
	scr = tui_text_new(name, text);
	free(text);
	return scr;
}

static int tt_key(struct tui_screen *scr, struct tui *ui, int key)
{
	struct tt *x = scr->priv;
	struct tt_sect *s;
	long page = x->page > 2 ? (long)x->page - 2 : 1;

	if (tt_build(x))
		return -ENOMEM;
	s = &x->sect[x->cs];
	switch (key) {
	case KEY_UP: case 'k': tt_move(x, -1); return 0;
	case KEY_DOWN: case 'j': tt_move(x, 1); return 0;
	case KEY_PPAGE: tt_move(x, -page); return 0;
	case KEY_NPAGE: case ' ': tt_move(x, page); return 0;
	case KEY_HOME: case 'g': tt_move(x, -(long)((size_t)-1 >> 2)); x->top = 0; return 0;
	case KEY_END: case 'G': tt_move(x, (long)((size_t)-1 >> 2)); return 0;
	case KEY_LEFT: case 'h':
		x->col0 -= x->col0 > 0;
		return 0;
	case KEY_RIGHT: case 'l':
		x->col0 += x->col0 + 1 < s->t.ncols;
		return 0;
	case 's':
	case 'S':
		if (s->err || !s->t.ncols)
			return 0;
		s->sort = key == 's' ? (s->sort + 2) % (s->t.ncols + 1) - 1
				     : (s->sort + s->t.ncols + 1) % (s->t.ncols + 1) - 1;
		s->desc = s->sort >= 0 && s->t.right[s->sort];
		return tt_sort(s);
	case 'r':
		if (s->sort < 0) {
			tui_msg(ui, "s picks a column to sort by first");
			return 0;
		}
		s->desc = !s->desc;
		return tt_sort(s);
	case '\n': case '\r': case KEY_ENTER: {
		struct tui_screen *o = NULL;

		if (!tt_nrows(s))
			return 0;
		if (x->src.open)
			o = x->src.open(x->src.ctx, x->cs, &s->t, s->order[x->cr]);
		return tui_push(ui, o ? o : tt_detail(x));
	}
	default:
		return TUI_KEY_UNUSED;
	}
}

static int tt_row_match(const struct tt_sect *s, size_t r, const char *q)
{
	for (int c = 0; c < s->t.ncols; c++)
		if (strcasestr(tt_cell(&s->t, s->order[r], c), q))
			return 1;
	return 0;
}

static int tt_find(struct tui_screen *scr, struct tui *ui, const char *q, int dir)
{
	struct tt *x = scr->priv;
	size_t total = 0, cur = 0, k, r;

	(void)ui;
	if (tt_build(x))
		return -ENOMEM;
	for (k = 0; k < x->src.nsect; k++) {
		if (k == x->cs)
			cur = total + x->cr;
		total += tt_nrows(&x->sect[k]);
	}
	for (size_t i = 1; i <= total; i++) {
		size_t g = (cur + (dir > 0 ? i : total * 2 - i)) % total;

		for (k = 0, r = g; r >= tt_nrows(&x->sect[k]); k++)
			r -= tt_nrows(&x->sect[k]);
		if (tt_row_match(&x->sect[k], r, q)) {
			x->cs = k;
			x->cr = r;
			return 1;
		}
	}
	return 0;
}

static void tt_destroy(struct tui_screen *scr)
{
	struct tt *x = scr->priv;

	if (x) {
		for (size_t k = 0; x->sect && k < x->src.nsect; k++) {
			table_free(&x->sect[k].t);
			free(x->sect[k].order);
		}
		free(x->sect);
		if (x->src.ctx_free)
			x->src.ctx_free(x->src.ctx);
		free(x);
	}
	free(scr);
}

static const char tt_keys[] =
	"Up, Down, j, k\tmove the cursor\n"
	"PgUp, PgDn\ta page\n"
	"Home, End, g, G\tfirst, last row\n"
	"Left, Right, h, l\tscroll the columns\n"
	"s, S\tsort by the next, previous column (then the view's order again)\n"
	"r\treverse the sort\n"
	"Enter\tthe row in full (or what it is made of)\n"
	"/\tfind a row holding the text (any column, any case)\n";

struct tui_screen *tui_table_new(const char *name, const struct tui_table_src *src)
{
	struct tui_screen *scr = calloc(1, sizeof(*scr));
	struct tt *x = calloc(1, sizeof(*x));
	int err = -ENOMEM;

	if (!scr || !x || !src->nsect)
		goto out;
	x->src = *src;
	x->sect = calloc(src->nsect, sizeof(*x->sect));
	if (!x->sect)
		goto out;
	snprintf(scr->name, sizeof(scr->name), "%s", name);
	scr->keys = tt_keys;
	scr->priv = x;
	scr->draw = tt_draw;
	scr->key = tt_key;
	scr->find = tt_find;
	scr->destroy = tt_destroy;
	err = 0;
out:
	if (err) {
		/* The screen owns ctx from the call on, so it goes too. */
		if (src->ctx_free)
			src->ctx_free(src->ctx);
		if (x)
			free(x->sect);
		free(x);
		free(scr);
		scr = NULL;
	}
	return scr;
}
