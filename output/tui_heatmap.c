// SPDX-License-Identifier: GPL-2.0-only
/* Heatmap screens (see tui_heatmap.h). */
#include "output/tui_heatmap.h"

#include <curses.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/heatmap.h"

#define HM_CW 2        /* columns per cell: terminal cells are about twice as tall as wide */
#define HM_MAX_LW 28   /* row label width at most */
#define HM_MAX_CLD 4   /* rows of column labels at most */

/* Colour scales, light to dark; the shades of HEATMAP_SHADES otherwise. */
static const short hm_ramp256[] = { 229, 227, 220, 214, 208, 202, 196, 160, 124 };
static const short hm_ramp8[] = { COLOR_BLUE, COLOR_CYAN, COLOR_GREEN, COLOR_YELLOW, COLOR_RED };

struct hm {
	struct tui_hm_src src;
	int kind, lv, label, logscale, fit;
	size_t k;           /* block size in use */
	size_t cr, cc;      /* cursor, in rows and columns of the matrix */
	size_t lv_r[TUI_HM_MAX], lv_c[TUI_HM_MAX]; /* each level's cursor, kept over switches */
	size_t vr, vc;      /* first shown block row and column */
	size_t page_r, page_c;
	/* Block sums of the shown matrix, its largest and smallest positive
	 * value; rebuilt when level, kind or block size change. */
	double *blk, max, minpos;
	size_t nbr, nbc;
	int c_kind, c_lv;
	size_t c_k;
};

static const struct tui_hm_level *hm_level(const struct hm *x)
{
	return &x->src.level[x->lv];
}

static int hm_cache(struct hm *x)
{
	const struct tui_hm_level *l = hm_level(x);
	const double *m = l->cell[x->kind];
	size_t k = x->k, nbr = (l->rows + k - 1) / k, nbc = (l->cols + k - 1) / k;

	if (x->c_kind == x->kind && x->c_lv == x->lv && x->c_k == k)
		return 0;
	free(x->blk);
	x->blk = NULL;
	x->max = x->minpos = 0;
	/* k == 1 reads the matrix itself: no copy of a large one. */
	if (k > 1) {
		x->blk = calloc(nbr * nbc + 1, sizeof(double));
		if (!x->blk)
			return -ENOMEM;
		for (size_t br = 0; br < nbr; br++)
			for (size_t bc = 0; bc < nbc; bc++)
				x->blk[br * nbc + bc] = heatmap_block_sum(m, l->rows, l->cols,
									  x->src.symmetric, br * k,
									  bc * k, k);
	}
	for (size_t i = 0; i < nbr * nbc; i++) {
		double v = x->blk ? x->blk[i] : m[i];

		if (v > x->max)
			x->max = v;
		if (v > 0 && (x->minpos == 0 || v < x->minpos))
			x->minpos = v;
	}
	x->nbr = nbr;
	x->nbc = nbc;
	x->c_kind = x->kind;
	x->c_lv = x->lv;
	x->c_k = k;
	return 0;
}

static double hm_block(const struct hm *x, size_t br, size_t bc)
{
	const struct tui_hm_level *l = hm_level(x);

	return x->blk ? x->blk[br * x->nbc + bc] : l->cell[x->kind][br * l->cols + bc];
}

/* The block at (r0, c0) of kind, as the cells and the legend count it. */
static double hm_sum(const struct hm *x, int kind, size_t r0, size_t c0)
{
	const struct tui_hm_level *l = hm_level(x);

	return heatmap_block_sum(l->cell[kind], l->rows, l->cols, x->src.symmetric, r0, c0, x->k);
}

/* Step 1..n of the scale for v > 0; 0 for none. */
static int hm_step(const struct hm *x, double v, int n)
{
	double f;
	int i;

	if (!(v > 0) || !(x->max > 0)) /* NaN too */
		return 0;
	if (x->logscale && x->max > x->minpos)
		f = 1.0 / n + (log(v) - log(x->minpos)) / (log(x->max) - log(x->minpos)) *
				      (1.0 - 1.0 / n);
	else
		f = v / x->max;
	/* Rounded as the text heatmap does; any nonzero cell is visible.
	 * inf / inf is NaN, which no cast may take. */
	if (!(f < 1))
		f = 1;
	i = (int)(f * n + 0.5);
	return i < 1 ? 1 : i > n ? n : i;
}

static int hm_nsteps(const struct tui *t)
{
	switch (tui_colors(t)) {
	case 256: return (int)(sizeof(hm_ramp256) / sizeof(hm_ramp256[0]));
	case 8: return (int)(sizeof(hm_ramp8) / sizeof(hm_ramp8[0]));
	default: return (int)sizeof(HEATMAP_SHADES) - 2;
	}
}

/* Draw one cell of step `step`; the cursor is marked. */
static void hm_cell(struct tui *t, int y, int xpos, int step, int cursor)
{
	int colors = tui_colors(t), pair = 0;
	char s[HM_CW + 1];

	if (colors && step) {
		short bg = colors == 256 ? hm_ramp256[step - 1] : hm_ramp8[step - 1];

		pair = tui_pair(t, COLOR_BLACK, bg);
	}
	if (colors && (pair || !step)) {
		/* Colour carries the value; the cursor is a pair of brackets. */
		snprintf(s, sizeof(s), "%s", cursor ? "[]" : "  ");
		tui_put(y, xpos, HM_CW, (pair ? COLOR_PAIR(pair) : 0) | (cursor ? A_BOLD : 0), s);
		return;
	}
	memset(s, HEATMAP_SHADES[step], HM_CW);
	s[HM_CW] = '\0';
	tui_put(y, xpos, HM_CW, cursor ? A_REVERSE : A_NORMAL, s);
}

static void hm_legend(struct hm *x, struct tui *t, int y, int w)
{
	int n = hm_nsteps(t), xpos;
	char buf[256];

	tui_put(y, 0, w, A_NORMAL, "scale |");
	xpos = 7;
	for (int i = 1; i <= n && xpos + HM_CW < w; i++, xpos += HM_CW)
		hm_cell(t, y, xpos, i, 0);
	snprintf(buf, sizeof(buf), "| blank: 0, darkest: %.4g %s per %s%s", x->max, x->src.unit,
		 x->k > 1 ? "block" : "cell", x->logscale ? ", log scale" : "");
	tui_put_items(y, xpos, w - xpos, A_NORMAL, buf);
}

/* "thread 3 (name worker, tid 4242)": the short label and every long one. */
static void hm_who(const struct hm *x, size_t i, int col, char *buf, size_t len)
{
	const struct tui_hm_level *l = hm_level(x);
	size_t o;
	int n = 0;

	o = (size_t)snprintf(buf, len, "%s %s", l->name, col ? l->clabel[i] : l->rlabel[0][i]);
	for (int m = 1; !col && m < x->src.nlabels && o < len; m++)
		if (l->rlabel[m])
			o += (size_t)snprintf(buf + o, len - o, "%s%s %s", n++ ? ", " : " (",
					      x->src.label_name[m], l->rlabel[m][i]);
	if (n && o < len)
		snprintf(buf + o, len - o, ")");
}

static void hm_range(const struct hm *x, size_t i, size_t n, int col, char *buf, size_t len)
{
	const struct tui_hm_level *l = hm_level(x);
	size_t last = i + x->k < n ? i + x->k - 1 : n - 1;
	const char *a = col ? l->clabel[i] : l->rlabel[0][i];
	const char *b = col ? l->clabel[last] : l->rlabel[0][last];

	if (x->k == 1)
		hm_who(x, i, col, buf, len);
	else
		snprintf(buf, len, "%ss %s-%s", l->name, a, b);
}

static void hm_info(struct hm *x, int y, int w)
{
	const struct tui_hm_level *l = hm_level(x);
	size_t r0 = x->cr / x->k * x->k, c0 = x->cc / x->k * x->k;
	char a[160], b[160], buf[512];
	size_t o;

	hm_range(x, r0, l->rows, 0, a, sizeof(a));
	hm_range(x, c0, l->cols, 1, b, sizeof(b));
	o = (size_t)snprintf(buf, sizeof(buf), "%s x %s:", a, b);
	for (int k = 0; k < x->src.nkinds && o < sizeof(buf); k++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "  %s %.6g", x->src.kind_name[k],
				      hm_sum(x, k, r0, c0));
	tui_put_items(y, 0, w, A_BOLD, buf);
	{
		double v = hm_sum(x, x->kind, r0, c0);
		double tot = x->src.total[x->kind];

		snprintf(buf, sizeof(buf), "%s of the %s total: %.1f%%%s  |  Enter: what makes up this %s",
			 x->src.kind_name[x->kind], x->src.kind_name[x->kind],
			 tot > 0 ? 100.0 * v / tot : 0.0,
			 x->src.symmetric && r0 != c0 ? "; the mirror cell holds the same" : "",
			 x->k > 1 ? "block" : "cell");
		tui_put_items(y + 1, 0, w, A_NORMAL, buf);
	}
}

/* Width of the row labels in the current label mode. */
static int hm_label_w(const struct hm *x, int *sw)
{
	const struct tui_hm_level *l = hm_level(x);
	int s = 1, lw = 0;

	for (size_t i = 0; i < l->rows; i++) {
		int n = (int)strlen(l->rlabel[0][i]);

		s = n > s ? n : s;
		if (x->label && l->rlabel[x->label]) {
			n = (int)strlen(l->rlabel[x->label][i]);
			lw = n > lw ? n : lw;
		}
	}
	*sw = s;
	if (lw)
		s += 1 + lw;
	return s > HM_MAX_LW ? HM_MAX_LW : s;
}

static int hm_clabel_rows(const struct hm *x)
{
	const struct tui_hm_level *l = hm_level(x);
	int d = 1;

	for (size_t j = 0; j < l->cols; j += x->k) {
		int n = (int)strlen(l->clabel[j]);

		d = n > d ? n : d;
	}
	return d > HM_MAX_CLD ? HM_MAX_CLD : d;
}

/* Block size that fits the whole matrix into rows x cols cells. */
static size_t hm_fit(const struct tui_hm_level *l, size_t rows, size_t cols)
{
	size_t k = 1;

	while ((l->rows + k - 1) / k > (rows ? rows : 1) || (l->cols + k - 1) / k > (cols ? cols : 1))
		k++;
	return k;
}

static void hm_title(struct hm *x, int y, int w)
{
	const struct tui_hm_level *l = hm_level(x);
	char buf[512];
	int xpos = 0;

	snprintf(buf, sizeof(buf), "%s (%s), %s x %s, total %.6g %s", x->src.kind_title[x->kind],
		 x->src.kind_name[x->kind], l->name, l->name, x->src.total[x->kind], x->src.unit);
	if (x->k > 1)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "; %zu x %zu blocks, summed", x->k, x->k);
	tui_put_items(y, 0, w, A_BOLD, buf);
	/* The switches, the current ones highlighted. */
	/* Whole switches only: what does not fit the width is left out. */
	for (int k = 0; k < x->src.nkinds; k++) {
		snprintf(buf, sizeof(buf), "%c:%s", x->src.kind_keys[k], x->src.kind_name[k]);
		if (xpos + (int)strlen(buf) > w)
			return;
		tui_put(y + 1, xpos, w - xpos, k == x->kind ? A_REVERSE : A_NORMAL, buf);
		xpos += (int)strlen(buf) + 1;
	}
	if (xpos + 4 > w)
		return;
	tui_put(y + 1, xpos, w - xpos, A_NORMAL, "  l:");
	xpos += 4;
	for (int lv = 0; lv < x->src.nlevels; lv++) {
		snprintf(buf, sizeof(buf), "%s", x->src.level[lv].name);
		if (xpos + (int)strlen(buf) > w)
			return;
		tui_put(y + 1, xpos, w - xpos, lv == x->lv ? A_REVERSE : A_NORMAL, buf);
		xpos += (int)strlen(buf) + 1;
	}
	snprintf(buf, sizeof(buf), "  i:labels %s  b:blocks %s  s:%s scale", x->src.label_name[x->label],
		 x->fit ? "fit" : x->k > 1 ? "manual" : "off", x->logscale ? "log" : "linear");
	tui_put_items(y + 1, xpos, w - xpos, A_NORMAL, buf);
}

static void hm_scroll(struct hm *x)
{
	size_t br = x->cr / x->k, bc = x->cc / x->k;

	if (br < x->vr)
		x->vr = br;
	if (br >= x->vr + x->page_r)
		x->vr = br - x->page_r + 1;
	if (bc < x->vc)
		x->vc = bc;
	if (bc >= x->vc + x->page_c)
		x->vc = bc - x->page_c + 1;
}

static int hm_draw(struct tui_screen *s, struct tui *t, const struct tui_area *a)
{
	struct hm *x = s->priv;
	const struct tui_hm_level *l = hm_level(x);
	int sw, lw = hm_label_w(x, &sw), d, y0, n = hm_nsteps(t), rows, cols, err;
	char buf[256];

	if (l->rows == 0 || l->cols == 0) {
		hm_title(x, a->y, a->w);
		tui_put(a->y + 3, 0, a->w, A_NORMAL, "(an empty matrix: nothing to show)");
		return 0;
	}
	x->k = x->fit ? 1 : x->k;
	d = hm_clabel_rows(x);
	rows = a->h - 2 - d - 4; /* below: scroll note, legend, 2 info lines */
	cols = (a->w - lw - 2) / HM_CW;
	if (x->fit) {
		x->k = hm_fit(l, rows > 0 ? (size_t)rows : 1, cols > 0 ? (size_t)cols : 1);
		d = hm_clabel_rows(x);
		rows = a->h - 2 - d - 4;
	}
	err = hm_cache(x);
	if (err)
		return err;
	x->page_r = rows > 0 ? (size_t)rows : 1;
	x->page_c = cols > 0 ? (size_t)cols : 1;
	hm_scroll(x);
	hm_title(x, a->y, a->w);
	y0 = a->y + 2;
	/* Column labels, vertically, right-aligned to the last row. */
	for (int r = 0; r < d; r++)
		for (size_t bc = x->vc; bc < x->nbc && bc < x->vc + x->page_c; bc++) {
			const char *lab = l->clabel[bc * x->k];
			int len = (int)strlen(lab), i = r - (d - len);
			char ch[2] = { i >= 0 && i < len ? lab[i] : ' ', '\0' };

			tui_put(y0 + r, lw + 2 + (int)(bc - x->vc) * HM_CW, 1,
				bc == x->cc / x->k ? A_REVERSE : A_NORMAL, ch);
		}
	y0 += d;
	for (size_t br = x->vr; br < x->nbr && br < x->vr + x->page_r; br++) {
		int y = y0 + (int)(br - x->vr);
		size_t i = br * x->k;

		if (x->label && l->rlabel[x->label])
			snprintf(buf, sizeof(buf), "%*s %-*s", sw, l->rlabel[0][i], lw - sw - 1,
				 l->rlabel[x->label][i]);
		else
			snprintf(buf, sizeof(buf), "%*s", lw, l->rlabel[0][i]);
		tui_put(y, 0, lw, br == x->cr / x->k ? A_REVERSE : A_NORMAL, buf);
		tui_put(y, lw, 2, A_NORMAL, " |");
		for (size_t bc = x->vc; bc < x->nbc && bc < x->vc + x->page_c; bc++)
			hm_cell(t, y, lw + 2 + (int)(bc - x->vc) * HM_CW, hm_step(x, hm_block(x, br, bc), n),
				br == x->cr / x->k && bc == x->cc / x->k);
	}
	if (x->nbr > x->page_r || x->nbc > x->page_c) {
		snprintf(buf, sizeof(buf), "rows %zu-%zu, columns %zu-%zu of %zu x %zu: arrows scroll, b fits",
			 x->vr * x->k, (x->vr + x->page_r) * x->k < l->rows ? (x->vr + x->page_r) * x->k - 1 :
			 l->rows - 1, x->vc * x->k, (x->vc + x->page_c) * x->k < l->cols ?
			 (x->vc + x->page_c) * x->k - 1 : l->cols - 1, l->rows, l->cols);
		tui_put(a->y + a->h - 4, 0, a->w, A_DIM, buf);
	}
	hm_legend(x, t, a->y + a->h - 3, a->w);
	hm_info(x, a->y + a->h - 2, a->w);
	return 0;
}

static void hm_goto_max(struct hm *x)
{
	const struct tui_hm_level *l = hm_level(x);
	const double *m = l->cell[x->kind];
	size_t best = 0;

	for (size_t i = 1; i < l->rows * l->cols; i++)
		if (m[i] > m[best])
			best = i;
	x->cr = best / l->cols;
	x->cc = best % l->cols;
}

static void hm_clamp(struct hm *x)
{
	const struct tui_hm_level *l = hm_level(x);

	if (x->cr >= l->rows)
		x->cr = l->rows ? l->rows - 1 : 0;
	if (x->cc >= l->cols)
		x->cc = l->cols ? l->cols - 1 : 0;
}

static void hm_move(struct hm *x, long dr, long dc)
{
	const struct tui_hm_level *l = hm_level(x);
	long k = (long)x->k, r = (long)(x->cr / x->k) * k + dr * k, c = (long)(x->cc / x->k) * k + dc * k;

	if (r < 0)
		r = 0;
	if (c < 0)
		c = 0;
	if (l->rows && r >= (long)l->rows)
		r = (long)((l->rows - 1) / x->k * x->k);
	if (l->cols && c >= (long)l->cols)
		c = (long)((l->cols - 1) / x->k * x->k);
	x->cr = (size_t)r;
	x->cc = (size_t)c;
}

static int hm_open(struct hm *x, struct tui *t)
{
	const struct tui_hm_level *l = hm_level(x);
	size_t r0 = x->cr / x->k * x->k, c0 = x->cc / x->k * x->k;
	size_t r1 = r0 + x->k < l->rows ? r0 + x->k : l->rows;
	size_t c1 = c0 + x->k < l->cols ? c0 + x->k : l->cols;
	char msg[200] = "nothing to open here";
	struct tui_screen *o;

	if (!x->src.open || !l->rows || !l->cols)
		return 0;
	o = x->src.open(x->src.ctx, x->lv, r0, r1, c0, c1, msg, sizeof(msg));
	if (!o) {
		tui_msg(t, "%s", msg);
		return 0;
	}
	return tui_push(t, o);
}

static int hm_key(struct tui_screen *s, struct tui *t, int key)
{
	struct hm *x = s->priv;
	const char *kk = key > 0 && key < 128 ? strchr(x->src.kind_keys, key) : NULL;
	long pg = x->page_r > 1 ? (long)x->page_r - 1 : 1;

	if (kk && kk - x->src.kind_keys < x->src.nkinds) {
		x->kind = (int)(kk - x->src.kind_keys);
		return 0;
	}
	switch (key) {
	case KEY_UP: hm_move(x, -1, 0); return 0;
	case KEY_DOWN: hm_move(x, 1, 0); return 0;
	case KEY_LEFT: hm_move(x, 0, -1); return 0;
	case KEY_RIGHT: hm_move(x, 0, 1); return 0;
	case KEY_PPAGE: hm_move(x, -pg, 0); return 0;
	case KEY_NPAGE: hm_move(x, pg, 0); return 0;
	case KEY_HOME: x->cr = x->cc = 0; return 0;
	case KEY_END: hm_move(x, 1L << 30, 1L << 30); return 0;
	case 'm': x->kind = (x->kind + 1) % x->src.nkinds; return 0;
	case 'l':
	case 'L':
		x->lv_r[x->lv] = x->cr;
		x->lv_c[x->lv] = x->cc;
		x->lv = (x->lv + (key == 'l' ? 1 : x->src.nlevels - 1)) % x->src.nlevels;
		x->cr = x->lv_r[x->lv];
		x->cc = x->lv_c[x->lv];
		x->vr = x->vc = 0;
		hm_clamp(x);
		return 0;
	case 'i':
		do
			x->label = (x->label + 1) % x->src.nlabels;
		while (x->label && !hm_level(x)->rlabel[x->label]);
		return 0;
	case 'b':
		x->fit = !x->fit;
		x->k = 1;
		x->vr = x->vc = 0;
		return 0;
	case '+':
	case '=':
		/* No larger than one block for the whole matrix. */
		x->fit = 0;
		x->k += x->k < hm_level(x)->rows || x->k < hm_level(x)->cols;
		return 0;
	case '-':
		x->fit = 0;
		x->k -= x->k > 1;
		return 0;
	case 's': x->logscale = !x->logscale; return 0;
	case 'x': hm_goto_max(x); return 0;
	case '\n': case '\r': case KEY_ENTER: return hm_open(x, t);
	default: return TUI_KEY_UNUSED;
	}
}

/* A row whose label (any mode) is the text, or holds it; a number finds
 * that index or id exactly. */
static int hm_find(struct tui_screen *s, struct tui *t, const char *q, int dir)
{
	struct hm *x = s->priv;
	const struct tui_hm_level *l = hm_level(x);
	int exact = *q && q[strspn(q, "0123456789")] == '\0';

	(void)t;
	for (size_t n = 1; n <= l->rows; n++) {
		size_t i = (x->cr + (dir > 0 ? n : l->rows * 2 - n)) % l->rows;

		for (int m = 0; m < x->src.nlabels; m++) {
			const char *lab = l->rlabel[m] ? l->rlabel[m][i] : NULL;

			if (lab && (exact ? !strcmp(lab, q) : strcasestr(lab, q) != NULL)) {
				x->cr = i;
				return 1;
			}
		}
	}
	return 0;
}

static void hm_destroy(struct tui_screen *s)
{
	struct hm *x = s->priv;

	if (x) {
		free(x->blk);
		if (x->src.ctx_free)
			x->src.ctx_free(x->src.ctx);
		free(x);
	}
	free(s);
}

static const char hm_keys[] =
	"Arrows\tmove the cursor a cell (or block)\n"
	"PgUp, PgDn\ta page of rows\n"
	"Home, End\tfirst, last cell\n"
	"x\tthe largest cell\n"
	"Enter\twhat makes up the cell: its cache lines, objects, code\n"
	"a, t, f\tall communication, true sharing, false sharing\n"
	"m\tnext matrix kind\n"
	"l, L\tnext, previous level: thread, core, node\n"
	"i\trow labels: index, name, tid\n"
	"b\tblocks that fit the screen on/off (off: scroll at full size)\n"
	"+, -\tlarger, smaller blocks\n"
	"s\tlinear or logarithmic colour scale\n"
	"/\tgo to a row: an index or id, or text of a name or tid\n";

struct tui_screen *tui_heatmap_new(const char *name, const struct tui_hm_src *src)
{
	struct tui_screen *s = calloc(1, sizeof(*s));
	struct hm *x = calloc(1, sizeof(*x));

	if (!s || !x || src->nkinds < 1 || src->nlevels < 1 || src->nlabels < 1 ||
	    strlen(src->kind_keys) < (size_t)src->nkinds) {
		/* The screen owns ctx from the call on, so it goes too. */
		if (src->ctx_free)
			src->ctx_free(src->ctx);
		free(x);
		free(s);
		return NULL;
	}
	x->src = *src;
	x->fit = 1;
	x->k = 1;
	x->c_kind = x->c_lv = -1;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->keys = hm_keys;
	s->priv = x;
	s->draw = hm_draw;
	s->key = hm_key;
	s->find = hm_find;
	s->destroy = hm_destroy;
	return s;
}
