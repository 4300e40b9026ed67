// SPDX-License-Identifier: GPL-2.0-only
/*
 * Aggregating a comm profile (see comm.h).
 *
 * Scaling, as ComDetective section 3.3: a detection on a sample stands
 * for `period` transfers, a trap for period * L / (D * M), L = 64-byte
 * lines and M = 8-byte watchpoints, times the arming interval in force
 * (rec_comm.scale, see lib/agent/comm_bb.c).  That makes counts of transfers only
 * when the period counts memory accesses (pmu).  The soft source samples
 * CPU time, so there a detection on a sample weighs 1 and a trap
 * L / (D * M): counts are weighted detections, comparable within a
 * profile (pairs, lines, objects, the TS/FS split) but not transfers, and
 * no byte estimate is made from them.
 *
 * Matrices are made symmetric at the end, as the paper does: both threads
 * of a transfer take part in it.  Cell (i, j) is the sum of what i
 * detected from j and j from i; the total counts each detection once.
 */
#include "comm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "views.h"

const char *comm_kind_name(int kind)
{
	static const char *const names[CM_NKIND] = { "all", "ts", "fs" };

	return kind >= 0 && kind < CM_NKIND ? names[kind] : "?";
}

const char *comm_level_name(int level)
{
	static const char *const names[CL_NLEVEL] = { "thread", "core", "node" };

	return level >= 0 && level < CL_NLEVEL ? names[level] : "?";
}

/* An open-addressing table from a 64-bit key to an index. */
struct idx_map {
	uint64_t *key;
	size_t *val;
	size_t cap, n;
};

static uint64_t idx_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* The slot for key; *found says whether it holds it. */
static int idx_get(struct idx_map *h, uint64_t key, size_t **val, int *found)
{
	size_t i;

	if ((h->n + 1) * 2 > h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 1024;
		uint64_t *nk = calloc(ncap, sizeof(*nk));
		size_t *nv = calloc(ncap, sizeof(*nv));

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -ENOMEM;
		}
		for (size_t k = 0; k < h->cap; k++) {
			if (!h->val[k])
				continue;
			for (i = idx_hash(h->key[k]) & (ncap - 1); nv[i]; i = (i + 1) & (ncap - 1))
				;
			nk[i] = h->key[k];
			nv[i] = h->val[k];
		}
		free(h->key);
		free(h->val);
		h->key = nk;
		h->val = nv;
		h->cap = ncap;
	}
	/* val 0 marks a free slot: callers store index + 1. */
	for (i = idx_hash(key) & (h->cap - 1); h->val[i]; i = (i + 1) & (h->cap - 1))
		if (h->key[i] == key)
			break;
	*found = h->val[i] != 0;
	if (!*found) {
		h->key[i] = key;
		h->n++;
	}
	*val = &h->val[i];
	return 0;
}

static void idx_free(struct idx_map *h)
{
	free(h->key);
	free(h->val);
}

static int grow(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void **arr = arrp;
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	na = realloc(*arr, ncap * elem);
	if (!na)
		return -ENOMEM;
	memset((char *)na + *cap * elem, 0, (ncap - *cap) * elem);
	*arr = na;
	*cap = ncap;
	return 0;
}

/* Dense indices for the cores and nodes of the profile's topology. */
static int comm_levels(const struct profile *p, struct comm_model *m, int *core_ix,
		       int *node_ix, int ncpu_ids)
{
	const struct topo *t = &p->topo;

	for (int i = 0; i < ncpu_ids; i++)
		core_ix[i] = node_ix[i] = -1;
	m->ids[CL_CORE] = calloc((size_t)t->ncpus + 1, sizeof(int));
	m->ids[CL_NODE] = calloc((size_t)t->ncpus + 1, sizeof(int));
	if (!m->ids[CL_CORE] || !m->ids[CL_NODE])
		return -ENOMEM;
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		size_t k;

		if (c->cpu < 0 || c->cpu >= ncpu_ids)
			continue;
		for (k = 0; k < m->n[CL_CORE] && m->ids[CL_CORE][k] != c->core; k++)
			;
		if (k == m->n[CL_CORE])
			m->ids[CL_CORE][m->n[CL_CORE]++] = c->core;
		core_ix[c->cpu] = (int)k;
		for (k = 0; k < m->n[CL_NODE] && m->ids[CL_NODE][k] != c->node; k++)
			;
		if (k == m->n[CL_NODE])
			m->ids[CL_NODE][m->n[CL_NODE]++] = c->node;
		node_ix[c->cpu] = (int)k;
	}
	return 0;
}

static void line_thread(struct comm_line *l, uint32_t thread, uint64_t addr, unsigned size,
			int store, double w)
{
	unsigned off = (unsigned)(addr - l->line), end = off + (size ? size : 1);
	uint64_t mask = 0;

	if (off >= 64)
		return;
	if (end > 64)
		end = 64;
	mask = (end - off >= 64 ? ~0ull : ((1ull << (end - off)) - 1)) << off;
	for (unsigned i = 0; i < l->nthr; i++) {
		if (l->thr[i].thread == thread) {
			l->thr[i].bytes |= mask;
			l->thr[i].wbytes |= store ? mask : 0;
			l->thr[i].w += w;
			return;
		}
	}
	if (l->nthr == COMM_LINE_THREADS) {
		l->more_threads++;
		return;
	}
	l->thr[l->nthr++] = (struct comm_line_thread){ thread, mask, store ? mask : 0, w };
}

static void line_ip(struct comm_line *l, uint64_t ip, double w)
{
	unsigned i, low = 0;

	for (i = 0; i < l->nip; i++) {
		if (l->ip[i] == ip) {
			l->ipw[i] += w;
			return;
		}
		if (l->ipw[i] < l->ipw[low])
			low = i;
	}
	if (l->nip < COMM_LINE_IPS) {
		l->ip[l->nip] = ip;
		l->ipw[l->nip++] = w;
	} else if (w > l->ipw[low]) {
		l->ip[low] = ip;
		l->ipw[low] = w;
	}
}

static int by_weight(const double *a, const double *b)
{
	return a[CM_ALL] < b[CM_ALL] ? 1 : a[CM_ALL] > b[CM_ALL] ? -1 : 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct comm_line *x = a, *y = b;
	int c = by_weight(x->w, y->w);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int obj_cmp(const void *a, const void *b)
{
	const struct comm_object *x = a, *y = b;
	int c = by_weight(x->w, y->w);

	return c ? c : strcmp(x->name, y->name);
}

static int code_cmp(const void *a, const void *b)
{
	const struct comm_code *x = a, *y = b;
	int c = by_weight(x->w, y->w);

	return c ? c : strcmp(x->loc, y->loc);
}

/* Index of a named row in a table keyed by string hash. */
static int name_row(struct idx_map *h, const char *name, void *arrp, size_t *n, size_t *cap,
		    size_t elem, size_t *row)
{
	uint64_t k = 1469598103934665603ull;
	size_t *v;
	int found, err;

	for (const char *s = name; *s; s++)
		k = (k ^ (unsigned char)*s) * 1099511628211ull;
	err = idx_get(h, k, &v, &found);
	if (err)
		return err;
	if (!found) {
		char *dup = strdup(name);

		if (!dup || grow(arrp, cap, *n, elem)) {
			free(dup);
			return -ENOMEM;
		}
		/* name is the first member of both row types */
		*(char **)((char *)*(void **)arrp + *n * elem) = dup;
		*v = ++*n;
	}
	*row = *v - 1;
	return 0;
}

static int thr_cmp(const void *a, const void *b)
{
	const struct comm_line_thread *x = a, *y = b;

	return (x->thread > y->thread) - (x->thread < y->thread);
}

static int comm_lines_finish(const struct profile *p, struct comm_model *m)
{
	struct idx_map names = { 0 };
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; i < m->nlines && !err; i++) {
		struct comm_line *l = &m->lines[i];
		uint64_t bytes = 0, first, off;
		char obj[512];
		size_t row;

		qsort(l->thr, l->nthr, sizeof(l->thr[0]), thr_cmp);
		for (unsigned k = 0; k < l->nthr; k++)
			bytes |= l->thr[k].bytes;
		/* The object is the one of the first byte communication touched. */
		first = l->line + (bytes ? (unsigned)__builtin_ctzll(bytes) : 0);
		view_data_obj(p, l->pid, l->time, first, 0, obj, sizeof(obj), &off);
		l->object = strdup(obj);
		l->offset = off;
		if (!l->object) {
			err = -ENOMEM;
			break;
		}
		err = name_row(&names, obj, &m->objs, &m->nobjs, &cap, sizeof(*m->objs), &row);
		if (err)
			break;
		for (int k = 0; k < CM_NKIND; k++)
			m->objs[row].w[k] += l->w[k];
		m->objs[row].lines++;
	}
	idx_free(&names);
	if (err)
		return err;
	if (m->nobjs)
		qsort(m->objs, m->nobjs, sizeof(*m->objs), obj_cmp);
	/* Lines point at their object by name after the sort. */
	for (size_t i = 0; i < m->nlines; i++)
		for (size_t k = 0; k < m->nobjs; k++)
			if (!strcmp(m->objs[k].name, m->lines[i].object)) {
				m->lines[i].obj = (int)k;
				break;
			}
	return 0;
}

static int comm_event(const struct profile *p, struct comm_model *m, const struct rec_comm *c,
		      struct idx_map *lines, size_t *lcap, struct idx_map *codes, size_t *ccap,
		      const int *core_ix, const int *node_ix, int ncpu_ids)
{
	const struct rec_task *a = profile_task_by_tid(p, c->pid, c->tid, c->time);
	const struct rec_task *b = profile_task_by_tid(p, c->pid, c->pub_tid, c->pub_time);
	int kind = c->flags & COMM_F_TRUE ? CM_TS : CM_FS;
	double w = c->flags & COMM_F_TRAP ? m->trap_scale * (c->scale ? c->scale : 1) : m->period;
	uint64_t key = (c->addr & ~63ull) ^ ((uint64_t)profile_image(p, c->pid, c->time) << 44);
	struct comm_line *l;
	size_t *v, row;
	char loc[512];
	int found, err;

	m->events++;
	m->by_trap += !!(c->flags & COMM_F_TRAP);
	m->by_sample += !(c->flags & COMM_F_TRAP);
	m->exact_traps += (c->flags & (COMM_F_TRAP | COMM_F_EXACT)) == (COMM_F_TRAP | COMM_F_EXACT);
	m->total[CM_ALL] += w;
	m->total[kind] += w;
	if (a && b) {
		size_t n = m->n[CL_THREAD];

		m->m[CL_THREAD][CM_ALL][a->index * n + b->index] += w;
		m->m[CL_THREAD][kind][a->index * n + b->index] += w;
	}
	for (int lv = CL_CORE; lv <= CL_NODE; lv++) {
		const int *ix = lv == CL_CORE ? core_ix : node_ix;
		int x = (int)c->cpu < ncpu_ids ? ix[c->cpu] : -1;
		int y = (int)c->pub_cpu < ncpu_ids ? ix[c->pub_cpu] : -1;
		size_t n = m->n[lv];

		if (x < 0 || y < 0)
			continue;
		m->m[lv][CM_ALL][(size_t)x * n + (size_t)y] += w;
		m->m[lv][kind][(size_t)x * n + (size_t)y] += w;
	}

	err = idx_get(lines, key, &v, &found);
	if (err)
		return err;
	if (!found) {
		if (grow(&m->lines, lcap, m->nlines, sizeof(*m->lines)))
			return -ENOMEM;
		l = &m->lines[m->nlines];
		l->pid = c->pid;
		l->time = c->time;
		l->line = c->addr & ~63ull;
		l->obj = -1;
		*v = ++m->nlines;
	}
	l = &m->lines[*v - 1];
	l->w[CM_ALL] += w;
	l->w[kind] += w;
	l->events++;
	if (a)
		line_thread(l, a->index, c->addr, c->size, c->kind != MEM_LOAD, w);
	if (b && (c->pub_addr & ~63ull) == l->line)
		line_thread(l, b->index, c->pub_addr, c->pub_size, 1, w);
	line_ip(l, c->ip, w);
	line_ip(l, c->pub_ip, w);

	for (int side = 0; side < 2; side++) {
		view_code_loc(p, c->pid, c->time, side ? c->pub_ip : c->ip, loc, sizeof(loc));
		err = name_row(codes, loc, &m->codes, &m->ncodes, ccap, sizeof(*m->codes), &row);
		if (err)
			return err;
		/* Both ends of a transfer take part in it, as in the matrix. */
		m->codes[row].w[CM_ALL] += w;
		m->codes[row].w[kind] += w;
		m->codes[row].events++;
	}
	return 0;
}

static void comm_symmetric(struct comm_model *m)
{
	for (int lv = 0; lv < CL_NLEVEL; lv++) {
		size_t n = m->n[lv];

		for (int k = 0; k < CM_NKIND; k++)
			for (size_t i = 0; i < n; i++)
				for (size_t j = i + 1; j < n; j++) {
					double *x = &m->m[lv][k][i * n + j], *y = &m->m[lv][k][j * n + i];

					*x = *y = *x + *y;
				}
	}
}

static double meta_num(const struct profile *p, const char *key, double dflt)
{
	const char *v = profile_meta(p, key);
	char *end;
	double d;

	if (!v)
		return dflt;
	d = strtod(v, &end);
	return end != v && d > 0 ? d : dflt;
}

int comm_build(const struct profile *p, struct comm_model *m)
{
	struct idx_map lines = { 0 }, codes = { 0 };
	size_t lcap = 0, ccap = 0;
	int ncpu_ids = 0, *core_ix = NULL, *node_ix = NULL, err = 0;
	const char *src = profile_meta(p, "source");

	memset(m, 0, sizeof(*m));
	m->soft = !src || strcmp(src, "pmu") != 0;
	m->wp = (unsigned)meta_num(p, "wp", 0);
	m->period = m->soft ? 1 : meta_num(p, "period", 1);
	m->trap_scale = m->period * (m->wp ? 64.0 / (8.0 * m->wp) : 0);
	m->unit = m->soft ? "weighted detections" : "transfers (estimated)";

	for (int i = 0; i < p->topo.ncpus; i++)
		if (p->topo.cpus[i].cpu + 1 > ncpu_ids)
			ncpu_ids = p->topo.cpus[i].cpu + 1;
	core_ix = calloc((size_t)ncpu_ids + 1, sizeof(int));
	node_ix = calloc((size_t)ncpu_ids + 1, sizeof(int));
	m->n[CL_THREAD] = p->ntasks;
	m->ids[CL_THREAD] = calloc(p->ntasks + 1, sizeof(int));
	if (!core_ix || !node_ix || !m->ids[CL_THREAD]) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < p->ntasks; i++)
		m->ids[CL_THREAD][i] = (int)i;
	err = comm_levels(p, m, core_ix, node_ix, ncpu_ids);
	for (int lv = 0; lv < CL_NLEVEL && !err; lv++)
		for (int k = 0; k < CM_NKIND && !err; k++) {
			m->m[lv][k] = calloc(m->n[lv] * m->n[lv] + 1, sizeof(double));
			if (!m->m[lv][k])
				err = -ENOMEM;
		}
	for (size_t i = 0; i < p->ntool_recs && !err; i++) {
		const struct rec_hdr *h = p->tool_recs[i];

		if (h->type == REC_COMM && h->size >= sizeof(struct rec_comm))
			err = comm_event(p, m, (const struct rec_comm *)h, &lines, &lcap, &codes,
					 &ccap, core_ix, node_ix, ncpu_ids);
	}
	if (err)
		goto out;
	comm_symmetric(m);
	/* qsort's array must not be NULL, even empty. */
	if (m->nlines)
		qsort(m->lines, m->nlines, sizeof(*m->lines), line_cmp);
	if (m->ncodes)
		qsort(m->codes, m->ncodes, sizeof(*m->codes), code_cmp);
	err = comm_lines_finish(p, m);
out:
	idx_free(&lines);
	idx_free(&codes);
	free(core_ix);
	free(node_ix);
	if (err)
		comm_free(m);
	return err;
}

void comm_free(struct comm_model *m)
{
	for (int lv = 0; lv < CL_NLEVEL; lv++) {
		free(m->ids[lv]);
		for (int k = 0; k < CM_NKIND; k++)
			free(m->m[lv][k]);
	}
	for (size_t i = 0; i < m->nlines; i++)
		free(m->lines[i].object);
	free(m->lines);
	for (size_t i = 0; i < m->nobjs; i++)
		free(m->objs[i].name);
	free(m->objs);
	for (size_t i = 0; i < m->ncodes; i++)
		free(m->codes[i].loc);
	free(m->codes);
	memset(m, 0, sizeof(*m));
}

static void comm_cache_free(void *data)
{
	comm_free(data);
	free(data);
}

const struct comm_model *comm_of(const struct profile *p)
{
	struct comm_model *m;

	if (p->cache)
		return p->cache->data;
	m = malloc(sizeof(*m));
	if (!m)
		return NULL;
	if (comm_build(p, m)) {
		free(m);
		return NULL;
	}
	/* Memoized in the profile; no profile object is ever defined const. */
	((struct profile *)p)->cache = malloc(sizeof(*p->cache));
	if (!p->cache) {
		comm_cache_free(m);
		return NULL;
	}
	p->cache->data = m;
	p->cache->free = comm_cache_free;
	return m;
}
