// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt comm` profiles in the TUI: the all/TS/FS heatmap at thread, core
 * and node level, a cell's breakdown (the cache lines both threads took
 * part in, their objects and code), and table screens of the views.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/names.h"
#include "lib/core/view_tui.h"
#include "lib/tools/comm/model.h"
#include "lib/tools/comm/parts.h"
#include "output/tui_heatmap.h"
#include "output/tui_table.h"

#define CT_LINES 1000  /* lines a breakdown lists; objects count them all */
#define CT_CODES 256   /* code locations a breakdown lists */

/* The heatmap's labels; the model itself stays with the profile. */
struct ct_labels {
	char **lab[CL_NLEVEL];  /* ids as text, per level */
	char **name, **tid;     /* threads */
	const struct profile *p;
	const struct comm_model *m;
};

static void ct_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void ct_labels_free(void *arg)
{
	struct ct_labels *c = arg;

	for (int lv = 0; lv < CL_NLEVEL; lv++)
		ct_strv_free(c->lab[lv], c->m->n[lv]);
	ct_strv_free(c->name, c->m->n[CL_THREAD]);
	ct_strv_free(c->tid, c->m->n[CL_THREAD]);
	free(c);
}

/* n labels, the i-th written by f; NULL on ENOMEM. */
static char **ct_strv(size_t n, int (*f)(const struct ct_labels *, int, size_t, char *, size_t),
		      const struct ct_labels *c, int lv)
{
	char **v = calloc(n + 1, sizeof(*v));

	for (size_t i = 0; v && i < n; i++) {
		char buf[64];

		f(c, lv, i, buf, sizeof(buf));
		v[i] = strdup(buf);
		if (!v[i]) {
			ct_strv_free(v, n);
			return NULL;
		}
	}
	return v;
}

static int ct_id(const struct ct_labels *c, int lv, size_t i, char *buf, size_t len)
{
	return snprintf(buf, len, "%d", c->m->ids[lv][i]);
}

static int ct_name(const struct ct_labels *c, int lv, size_t i, char *buf, size_t len)
{
	(void)lv;
	return snprintf(buf, len, "%.16s", i < c->p->ntasks ? c->p->tasks[i].name : "?");
}

static int ct_tid(const struct ct_labels *c, int lv, size_t i, char *buf, size_t len)
{
	(void)lv;
	if (i >= c->p->ntasks)
		return snprintf(buf, len, "?");
	/* Several processes: the pid tells threads of different ones apart. */
	if (c->p->nprocs > 1)
		return snprintf(buf, len, "%u/%u", c->p->tasks[i].pid, c->p->tasks[i].tid);
	return snprintf(buf, len, "%u", c->p->tasks[i].tid);
}

/* ---- a cell's breakdown ---- */

struct ct_cell {
	const struct profile *p;
	const struct comm_model *m;
	size_t r0, r1, c0, c1;
	char what[96];             /* "threads 0 and 1" */
	char title[3][192];
};

static int ct_in(uint32_t t, size_t lo, size_t hi)
{
	return t >= lo && t < hi;
}

/* The line's weight for threads in [lo, hi), and whether one took part. */
static double ct_side(const struct comm_line *l, size_t lo, size_t hi, int *any)
{
	double w = 0;

	*any = 0;
	for (unsigned k = 0; k < l->nthr; k++)
		if (ct_in(l->thr[k].thread, lo, hi)) {
			w += l->thr[k].w;
			*any = 1;
		}
	return w;
}

/* Both sides took part in the line, as two different threads (a diagonal
 * cell of one thread: the thread itself). */
static int ct_match(const struct ct_cell *c, const struct comm_line *l)
{
	for (unsigned a = 0; a < l->nthr; a++) {
		if (!ct_in(l->thr[a].thread, c->r0, c->r1))
			continue;
		for (unsigned b = 0; b < l->nthr; b++)
			if (ct_in(l->thr[b].thread, c->c0, c->c1) &&
			    (a != b || (c->r1 - c->r0 == 1 && c->r0 == c->c0 && c->c1 - c->c0 == 1)))
				return 1;
	}
	return 0;
}

static int ct_lines(struct ct_cell *c, struct table *t)
{
	static const char *const cols[] = { "line", "object", "offset:r", "all:r", "ts:r", "fs:r",
					    "w_row:r", "w_col:r", "events:r", "threads", "code", NULL };
	const struct comm_model *m = c->m;
	size_t shown = 0, matched = 0;
	int err = 0;

	snprintf(c->title[0], sizeof(c->title[0]), "Cache lines %s took part in (line totals; "
		 "w_row, w_col: the weight of each side)", c->what);
	table_init(t, c->title[0], cols);
	for (size_t i = 0; i < m->nlines && !err; i++) {
		const struct comm_line *l = &m->lines[i];
		char thr[512], code[1024];
		double wr, wc;
		int any;

		if (!ct_match(c, l))
			continue;
		matched++;
		if (shown == CT_LINES)
			continue;
		shown++;
		wr = ct_side(l, c->r0, c->r1, &any);
		wc = ct_side(l, c->c0, c->c1, &any);
		comm_line_threads(c->p, l, thr, sizeof(thr));
		comm_line_code(c->p, l, code, sizeof(code));
		err = table_row(t) || table_cell(t, "0x%" PRIx64, l->line) ||
		      table_cell(t, "%s", l->object ? l->object : "?") ||
		      table_cell(t, "%" PRIu64, l->offset) || table_cell(t, "%.6g", l->w[CM_ALL]) ||
		      table_cell(t, "%.6g", l->w[CM_TS]) || table_cell(t, "%.6g", l->w[CM_FS]) ||
		      table_cell(t, "%.6g", wr) || table_cell(t, "%.6g", wc) ||
		      table_cell(t, "%" PRIu64, l->events) || table_cell(t, "%s", thr) ||
		      table_cell(t, "%s", code);
	}
	if (!err && matched > shown)
		snprintf(t->note, sizeof(t->note), "%zu more lines not listed", matched - shown);
	return err ? -ENOMEM : 0;
}

struct ct_agg {
	const char *key;  /* object name or code location (owned for code) */
	double w[CM_NKIND];
	uint64_t lines;
};

static int ct_agg_cmp(const void *a, const void *b)
{
	const struct ct_agg *x = a, *y = b;

	return x->w[CM_ALL] < y->w[CM_ALL] ? 1 : x->w[CM_ALL] > y->w[CM_ALL] ? -1 :
	       strcmp(x->key, y->key);
}

/* The matched lines' weight per data object. */
static int ct_objects(struct ct_cell *c, struct table *t)
{
	static const char *const cols[] = { "object", "all:r", "ts:r", "fs:r", "lines:r", NULL };
	const struct comm_model *m = c->m;
	struct ct_agg *a = calloc(m->nobjs + 1, sizeof(*a));
	size_t n = 0;
	int err = 0;

	snprintf(c->title[1], sizeof(c->title[1]), "Data objects of those lines");
	table_init(t, c->title[1], cols);
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < m->nlines; i++) {
		const struct comm_line *l = &m->lines[i];
		size_t k = l->obj >= 0 && (size_t)l->obj < m->nobjs ? (size_t)l->obj : m->nobjs;

		if (!ct_match(c, l))
			continue;
		a[k].key = k < m->nobjs ? m->objs[k].name : "(unknown)";
		for (int w = 0; w < CM_NKIND; w++)
			a[k].w[w] += l->w[w];
		a[k].lines++;
	}
	/* Keep the used ones, largest first. */
	for (size_t k = 0; k <= m->nobjs; k++)
		if (a[k].lines)
			a[n++] = a[k];
	qsort(a, n, sizeof(*a), ct_agg_cmp);
	for (size_t k = 0; k < n && !err; k++)
		err = table_row(t) || table_cell(t, "%s", a[k].key) ||
		      table_cell(t, "%.6g", a[k].w[CM_ALL]) || table_cell(t, "%.6g", a[k].w[CM_TS]) ||
		      table_cell(t, "%.6g", a[k].w[CM_FS]) || table_cell(t, "%" PRIu64, a[k].lines);
	free(a);
	return err ? -ENOMEM : 0;
}

/* The code addresses kept with the matched lines, by location. */
static int ct_code(struct ct_cell *c, struct table *t)
{
	static const char *const cols[] = { "location", "weight:r", "lines:r", NULL };
	const struct comm_model *m = c->m;
	struct ct_agg *a = calloc(CT_CODES, sizeof(*a));
	size_t n = 0, seen = 0;
	int err = 0;

	snprintf(c->title[2], sizeof(c->title[2]), "Code on those lines (weight: of the events "
		 "at each address)");
	table_init(t, c->title[2], cols);
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < m->nlines && seen < CT_LINES && !err; i++) {
		const struct comm_line *l = &m->lines[i];

		if (!ct_match(c, l))
			continue;
		seen++;
		for (unsigned k = 0; k < l->nip && !err; k++) {
			char loc[256];
			size_t j;

			names_code(c->p, l->pid, l->time, l->ip[k], loc, sizeof(loc));
			for (j = 0; j < n && strcmp(a[j].key, loc); j++)
				;
			if (j == n) {
				if (n == CT_CODES)
					continue;
				a[n].key = strdup(loc);
				if (!a[n].key) {
					err = -ENOMEM;
					break;
				}
				n++;
			}
			a[j].w[CM_ALL] += l->ipw[k];
			a[j].lines++;
		}
	}
	if (!err)
		qsort(a, n, sizeof(*a), ct_agg_cmp);
	for (size_t k = 0; k < n && !err; k++)
		err = table_row(t) || table_cell(t, "%s", a[k].key) ||
		      table_cell(t, "%.6g", a[k].w[CM_ALL]) || table_cell(t, "%" PRIu64, a[k].lines) ?
		      -ENOMEM : 0;
	for (size_t k = 0; k < n; k++)
		free((char *)a[k].key);
	free(a);
	return err;
}

static int ct_cell_build(void *arg, size_t k, struct table *t)
{
	struct ct_cell *c = arg;

	switch (k) {
	case 0: return ct_lines(c, t);
	case 1: return ct_objects(c, t);
	default: return ct_code(c, t);
	}
}

static struct tui_screen *ct_open(void *arg, int lv, size_t r0, size_t r1, size_t c0,
				  size_t c1, char *msg, size_t len)
{
	struct ct_labels *l = arg;
	struct tui_table_src src = { 0 };
	struct ct_cell *c;
	char name[64];

	if (lv != CL_THREAD) {
		/* Lines remember threads, not the CPUs they ran on. */
		snprintf(msg, len, "what makes up a cell is known per thread pair: l switches "
				   "to the thread level");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(msg, len, "out of memory");
		return NULL;
	}
	*c = (struct ct_cell){ l->p, l->m, r0, r1, c0, c1, "", { "" } };
	if (r1 - r0 == 1 && c1 - c0 == 1) {
		snprintf(c->what, sizeof(c->what), "threads %zu and %zu", r0, c0);
		snprintf(name, sizeof(name), "Cell %zu x %zu", r0, c0);
	} else {
		snprintf(c->what, sizeof(c->what), "threads %zu-%zu and %zu-%zu", r0, r1 - 1, c0,
			 c1 - 1);
		snprintf(name, sizeof(name), "Block %zu-%zu x %zu-%zu", r0, r1 - 1, c0, c1 - 1);
	}
	src.nsect = 3;
	src.build = ct_cell_build;
	src.ctx = c;
	src.ctx_free = free;
	return tui_table_new(name, &src);
}

static struct tui_screen *ct_heatmap(const struct profile *p, const struct comm_model *m)
{
	struct ct_labels *c = calloc(1, sizeof(*c));
	struct tui_hm_src src = {
		.unit = m->unit,
		.nkinds = CM_NKIND,
		.kind_name = { "all", "ts", "fs", "recycled" },
		.kind_title = { "All communication", "True sharing", "False sharing",
				"Recycled by the allocator" },
		.kind_keys = "atfr",
		.nlevels = CL_NLEVEL,
		.nlabels = 3,
		.label_name = { "index", "name", "tid" },
		.symmetric = 1,
		.open = ct_open,
		.ctx_free = ct_labels_free,
	};

	int ok = 1;

	if (!c)
		return NULL;
	c->p = p;
	c->m = m;
	for (int lv = 0; lv < CL_NLEVEL; lv++) {
		c->lab[lv] = ct_strv(m->n[lv], ct_id, c, lv);
		ok &= c->lab[lv] != NULL;
	}
	c->name = ct_strv(m->n[CL_THREAD], ct_name, c, CL_THREAD);
	c->tid = ct_strv(m->n[CL_THREAD], ct_tid, c, CL_THREAD);
	if (!ok || !c->name || !c->tid) {
		ct_labels_free(c);
		return NULL;
	}
	for (int k = 0; k < CM_NKIND; k++)
		src.total[k] = m->total[k];
	for (int lv = 0; lv < CL_NLEVEL; lv++) {
		struct tui_hm_level *l = &src.level[lv];

		l->name = comm_level_name(lv);
		l->rows = l->cols = m->n[lv];
		for (int k = 0; k < CM_NKIND; k++)
			l->cell[k] = m->m[lv][k];
		l->rlabel[0] = (const char *const *)c->lab[lv];
		l->clabel = (const char *const *)c->lab[lv];
		if (lv == CL_THREAD) {
			l->rlabel[1] = (const char *const *)c->name;
			l->rlabel[2] = (const char *const *)c->tid;
		}
	}
	src.ctx = c;
	return tui_heatmap_new("Heatmap", &src);
}

int comm_tui(const struct profile *p, const struct view *views, struct tui_screen **s,
	     size_t *n, size_t max)
{
	static const char *const summary[] = { "summary", "findings", NULL };
	static const char *const lines[] = { "lines", NULL }, *const objects[] = { "objects", NULL };
	static const char *const code[] = { "code", NULL }, *const threads[] = { "threads", NULL };
	static const struct {
		const char *name;
		const char *const *views;
	} tabs[] = { { "Summary", summary }, { "Lines", lines }, { "Objects", objects },
		     { "Code", code }, { "Threads", threads } };
	const struct comm_model *m = comm_of(p);

	if (!m)
		return -ENOMEM;
	if (max - *n < 1 + sizeof(tabs) / sizeof(tabs[0]))
		return -ENOSPC;
	s[*n] = ct_heatmap(p, m);
	if (!s[*n])
		return -ENOMEM;
	++*n;
	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
		s[*n] = view_tui_table(p, views, tabs[i].name, tabs[i].views);
		if (!s[*n])
			return -ENOMEM;
		++*n;
	}
	return 0;
}
