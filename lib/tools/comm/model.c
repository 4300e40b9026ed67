// SPDX-License-Identifier: GPL-2.0-only
/*
 * Aggregating a comm profile (see comm.h).
 *
 * Scaling, as ComDetective section 3.3: a detection on a sample stands
 * for `period` transfers, a trap for period * L / (D * M), L = 64-byte
 * lines and M = 8-byte watchpoints, times the arming interval in force
 * (rec_comm.scale, see agent_bb.c).  That makes counts of transfers only
 * when the period counts memory accesses (pmu).  The soft source samples
 * CPU time, so there a detection on a sample weighs 1 and a trap
 * L / (D * M): counts are weighted detections, comparable within a
 * profile (pairs, lines, objects, the TS/FS split) but not transfers, and
 * no byte estimate is made from them.
 *
 * Threads' periods differ: the governor (lib/agent/clock.c) sets each
 * thread's by what its own samples cost, and a detection needs a sample
 * of both threads (the observer's, and the publisher's that published
 * the line; a trap, an arming at the observer's sample on a published
 * line).  So a pair's detections fall with the product of the two
 * threads' rates, and each is weighed further by period / P times
 * pub_period / P, P the run's period: the matrix then follows what the
 * threads did, not how often each was sampled.  (On a loaded 2-core host,
 * one of four threads doing equal work got 0.43 of the others' samples,
 * and its cells a third of theirs: a uniform pattern read as lopsided.)
 *
 * Matrices are made symmetric at the end, as the paper does: both threads
 * of a transfer take part in it.  Cell (i, j) is the sum of what i
 * detected from j and j from i; the total counts each detection once.
 *
 * Records go through an accumulator (struct comm_acc) one at a time,
 * either from the profile's kept records (comm_build) or as the file is
 * read (comm_fold), so cdt report never holds the raw records: memory is
 * that of the pairs, lines and code locations.  Thread and CPU pairs are
 * summed sparsely and become matrices at the end, when the threads and
 * the topology are final (merged profiles add both file by file).
 */
#include "lib/tools/comm/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/hash.h"
#include "lib/core/names.h"
#include "lib/core/objmap.h"
#include "lib/tools/comm/comm.h"

const char *comm_kind_name(int kind)
{
	static const char *const names[CM_NKIND] = { "all", "ts", "fs", "recycled" };

	return kind >= 0 && kind < CM_NKIND ? names[kind] : "?";
}

const char *comm_level_name(int level)
{
	static const char *const names[CL_NLEVEL] = { "thread", "core", "node" };

	return level >= 0 && level < CL_NLEVEL ? names[level] : "?";
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

/* 1 when thread is not among the line's kept threads (l->thr full).  A
 * recycled event counts the thread in, but its bytes are no sharing. */
static int line_thread(struct comm_line *l, uint32_t thread, uint64_t addr, unsigned size,
		       int store, int recycled, double w)
{
	unsigned off = (unsigned)(addr - l->line), end = off + (size ? size : 1);
	uint64_t mask = 0;
	struct comm_line_thread *t = NULL;

	if (off >= 64)
		return 0;
	if (end > 64)
		end = 64;
	mask = recycled ? 0 : (end - off >= 64 ? ~0ull : ((1ull << (end - off)) - 1)) << off;
	for (unsigned i = 0; i < l->nthr && !t; i++)
		if (l->thr[i].thread == thread)
			t = &l->thr[i];
	if (!t) {
		if (l->nthr == COMM_LINE_THREADS)
			return 1;
		t = &l->thr[l->nthr++];
		*t = (struct comm_line_thread){ .thread = thread };
	}
	t->again |= t->bytes & mask;
	t->bytes |= mask;
	t->wbytes |= store ? mask : 0;
	t->w += w;
	t->n += !recycled;
	t->rc += !!recycled;
	return 0;
}

enum comm_verdict comm_line_verdict(const struct comm_line *l, uint64_t *least)
{
	unsigned writers = 0, sharers = 0;

	*least = UINT64_MAX;
	if (l->w[CM_RC] > l->w[CM_TS] + l->w[CM_FS])
		return CV_RECYCLED;
	for (unsigned i = 0; i < l->nthr; i++) {
		const struct comm_line_thread *a = &l->thr[i];

		if (!a->n) /* only recycled memory */
			continue;
		sharers++;
		writers += a->wbytes != 0;
		if (a->n < *least)
			*least = a->n;
		for (unsigned j = 0; j < i; j++) {
			const struct comm_line_thread *b = &l->thr[j];

			if ((a->wbytes & a->again & b->again) || (b->wbytes & b->again & a->again))
				return CV_SAME_DATA;
		}
	}
	/* Most access pairs seen overlapped: whatever the bytes over the run
	 * say (a thread seen once has no pattern), the counts do not support
	 * false sharing; not one apart, none at all. */
	if (l->w[CM_FS] <= l->w[CM_TS])
		return l->w[CM_TS] > 0 ? CV_SAME_DATA : CV_NONE;
	/* One thread's store is enough to take the line from the others. */
	return writers && sharers >= 2 ? CV_FALSE : CV_NONE;
}

enum comm_confidence comm_line_confidence(const struct comm_line *l, uint64_t least)
{
	double share = l->w[CM_TS] + l->w[CM_FS];
	double fs = share > 0 ? l->w[CM_FS] / share : 0;
	enum comm_confidence bytes = least >= COMM_APART_SURE ? CC_HIGH :
				     least >= 3 ? CC_MEDIUM : CC_LOW;
	/* Mostly overlapping accesses leave the bytes' word in doubt. */
	enum comm_confidence counts = fs >= 0.8 ? CC_HIGH : fs >= 0.5 ? CC_MEDIUM : CC_LOW;

	return bytes < counts ? bytes : counts;
}

const char *comm_confidence_name(enum comm_confidence c)
{
	return c == CC_HIGH ? "high" : c == CC_MEDIUM ? "medium" : "low";
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

static uint64_t name_hash(const char *name)
{
	return hash_bytes(name, strlen(name));
}

/* The row of name in arr, an array of comm_object or comm_code (name is
 * the first member of both) indexed by ix; HASH_NONE if none. */
static size_t name_find(const struct hash *ix, const void *arr, size_t elem, const char *name)
{
	for (size_t c = 0, i; (i = hash_walk(ix, name_hash(name), &c)) != HASH_NONE;)
		if (!strcmp(*(char *const *)((const char *)arr + i * elem), name))
			return i;
	return HASH_NONE;
}

/* The row of name in the array at arrp, added if new. */
static int name_row(struct hash *ix, const char *name, void *arrp, size_t *n, size_t *cap,
		    size_t elem, size_t *row)
{
	char *dup;
	int err;

	*row = name_find(ix, *(void **)arrp, elem, name);
	if (*row != HASH_NONE)
		return 0;
	dup = strdup(name);
	err = dup ? array_grow(arrp, cap, *n, elem) : -ENOMEM;
	if (!err)
		err = hash_add(ix, name_hash(name), *n);
	if (err) {
		free(dup);
		return err;
	}
	memset((char *)*(void **)arrp + *n * elem, 0, elem);
	*(char **)((char *)*(void **)arrp + *n * elem) = dup;
	*row = (*n)++;
	return 0;
}

static int thr_cmp(const void *a, const void *b)
{
	const struct comm_line_thread *x = a, *y = b;

	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* The data object of an address: heap block (by call path), mapping,
 * stack or variable (objmap.h), else what the symbols say. */
static void comm_obj_name(const struct objmap *om, const struct profile *p, uint32_t pid,
			  uint64_t time, uint64_t addr, char *buf, size_t len, uint64_t *off)
{
	struct objmap_obj ob;

	if (om && !objmap_find(om, pid, addr, time, &ob) && ob.group != OBJMAP_NO_GROUP) {
		snprintf(buf, len, "%s", objmap_group(om, ob.group)->name);
		*off = ob.offset;
		return;
	}
	names_data(p, pid, time, addr, 0, buf, len, off);
}

/* A name that says no object was found: "[anon]", "[heap]", "?". */
static int comm_obj_unknown(const char *name)
{
	return name[0] == '[' || name[0] == '?' || !name[0];
}

/* Static variables a line holds, in address order: each one's bytes on
 * the line, its name (the group's) and whether a thread touched it. */
#define COMM_LINE_VARS 16
struct comm_vars {
	struct comm_var {
		uint64_t mask;
		uint64_t off0; /* of its first byte on the line, in it */
		const char *name;
	} v[COMM_LINE_VARS];
	unsigned n;
};

/* The line's static variables; 0 if it holds none (or not only). */
static unsigned comm_line_vars(const struct objmap *om, const struct comm_line *l,
			       struct comm_vars *vs)
{
	uint64_t prev = 0;

	vs->n = 0;
	for (unsigned off = 0; off < 64; off++) {
		struct objmap_obj ob;

		/* A module's bytes without a symbol ("[prog]") are no variable. */
		if (objmap_find(om, l->pid, l->line + off, l->time, &ob) || ob.kind != OBJ_STATIC ||
		    objmap_group(om, ob.group)->name[0] == '[')
			continue;
		if (ob.id != prev) {
			if (vs->n == COMM_LINE_VARS)
				break;
			vs->v[vs->n++] = (struct comm_var){ 0, ob.offset,
							    objmap_group(om, ob.group)->name };
			prev = ob.id;
		}
		vs->v[vs->n - 1].mask |= 1ull << off;
	}
	return vs->n;
}

/* Names of the variables whose bytes are (touched) or are not in mask,
 * "a, b"; NULL on ENOMEM, "" if none. */
static char *comm_vars_names(const struct comm_vars *vs, uint64_t mask, int touched)
{
	char buf[512];
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < vs->n && o < sizeof(buf); i++)
		if (!!(vs->v[i].mask & mask) == touched)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? ", " : "",
					      vs->v[i].name);
	return strdup(buf);
}

/* Each touched variable's part of the line: a thread's weight, shared
 * among the variables its bytes hit.  Returns the sum of the parts. */
static double comm_vars_parts(const struct comm_vars *vs, const struct comm_line *l,
			      double *part)
{
	double sum = 0;

	for (unsigned i = 0; i < vs->n; i++)
		part[i] = 0;
	for (unsigned k = 0; k < l->nthr; k++) {
		unsigned hit = 0;

		for (unsigned i = 0; i < vs->n; i++)
			hit += !!(vs->v[i].mask & l->thr[k].bytes);
		for (unsigned i = 0; i < vs->n && hit; i++)
			if (vs->v[i].mask & l->thr[k].bytes)
				part[i] += l->thr[k].w / hit;
	}
	for (unsigned i = 0; i < vs->n; i++)
		sum += part[i];
	return sum;
}

/* Add share of line l's weights to the object row of name; *key: the
 * row's name, for the line to find its row after the sort. */
static int comm_obj_add(struct comm_model *m, struct hash *names, size_t *cap, const char *name,
			const struct comm_line *l, double share, const char **key)
{
	size_t row;
	int err = name_row(names, name, &m->objs, &m->nobjs, cap, sizeof(*m->objs), &row);

	if (err)
		return err;
	for (int k = 0; k < CM_NKIND; k++)
		m->objs[row].w[k] += l->w[k] * share;
	m->objs[row].lines++;
	if (!*key)
		*key = m->objs[row].name;
	return 0;
}

/*
 * A line of static variables is named after those whose bytes its
 * threads touched, not the first on the line, and the others are listed
 * apart; each touched one takes its threads' part of the line's weight
 * in the objects.  1 if the line was such a line, 0 if not, or -ENOMEM.
 */
static int comm_line_statics(const struct objmap *om, struct comm_model *m, struct hash *names,
			     size_t *cap, struct comm_line *l, uint64_t bytes, const char **key)
{
	struct comm_vars vs;
	double part[COMM_LINE_VARS], sum;
	int err = 0;

	if (!om || !comm_line_vars(om, l, &vs))
		return 0;
	for (unsigned i = 0; i < vs.n; i++)
		if (vs.v[i].mask & bytes) {
			l->offset = vs.v[i].off0 + (uint64_t)__builtin_ctzll(vs.v[i].mask & bytes) -
				    (uint64_t)__builtin_ctzll(vs.v[i].mask);
			break;
		}
	l->object = comm_vars_names(&vs, bytes, 1);
	l->also = comm_vars_names(&vs, bytes, 0);
	if (!l->object || !l->also)
		return -ENOMEM;
	if (!l->object[0]) { /* no byte of a variable touched: named as before */
		free(l->object);
		free(l->also);
		l->object = l->also = NULL;
		return 0;
	}
	sum = comm_vars_parts(&vs, l, part);
	for (unsigned i = 0; i < vs.n && !err; i++)
		if ((vs.v[i].mask & bytes) && (part[i] > 0 || sum <= 0))
			err = comm_obj_add(m, names, cap, vs.v[i].name, l,
					   sum > 0 ? part[i] / sum : 1, key);
	return err ? err : 1;
}

static int comm_lines_finish(const struct profile *p, struct comm_model *m)
{
	struct objmap *om = NULL;
	struct hash names = { 0 };
	size_t cap = 0;
	const char **key = calloc(m->nlines + 1, sizeof(*key));
	int err = key ? objmap_build(&om, p) : -ENOMEM;

	for (size_t i = 0; i < m->nlines && !err; i++) {
		struct comm_line *l = &m->lines[i];
		uint64_t bytes = 0, first, off;
		char obj[512];

		qsort(l->thr, l->nthr, sizeof(l->thr[0]), thr_cmp);
		for (unsigned k = 0; k < l->nthr; k++)
			bytes |= l->thr[k].bytes;
		/*
		 * The object is the one an event accessed, looked up at that
		 * event's time: the first of the line's first events that finds
		 * one.  A temporary of every call comes back at nearby
		 * addresses, so another byte of the line may have been outside
		 * the block live then, and not every such block is recorded.
		 * The offset is that of the first byte communication touched.
		 */
		err = comm_line_statics(om, m, &names, &cap, l, bytes, &key[i]);
		if (err) {
			err = err > 0 ? 0 : err;
			continue;
		}
		first = l->line + (bytes ? (unsigned)__builtin_ctzll(bytes) : 0);
		comm_obj_name(om, p, l->pid, l->time, first, obj, sizeof(obj), &off);
		for (unsigned k = 0; k < l->nprobe && comm_obj_unknown(obj); k++) {
			uint64_t a = l->probe_addr[k];

			comm_obj_name(om, p, l->pid, l->probe_time[k], a, obj, sizeof(obj), &off);
			off = a > first ? (off > a - first ? off - (a - first) : 0) : off + (first - a);
		}
		l->object = strdup(obj);
		l->offset = off;
		err = l->object ? comm_obj_add(m, &names, &cap, obj, l, 1, &key[i]) : -ENOMEM;
	}
	objmap_free(om);
	if (!err && m->nobjs)
		qsort(m->objs, m->nobjs, sizeof(*m->objs), obj_cmp);
	/* Lines point at their object by name after the sort. */
	hash_clear(&names);
	for (size_t k = 0; k < m->nobjs && !err; k++)
		err = hash_add(&names, name_hash(m->objs[k].name), k);
	for (size_t i = 0; i < m->nlines && !err; i++) {
		size_t k = key[i] ? name_find(&names, m->objs, sizeof(*m->objs), key[i]) : HASH_NONE;

		if (k != HASH_NONE)
			m->lines[i].obj = (int)k;
	}
	hash_free(&names);
	free(key);
	return err;
}

int comm_mark_recycled(struct profile *p)
{
	struct objmap *om;
	int err = objmap_build(&om, p);

	if (err)
		return err;
	for (size_t i = 0; i < p->ntool_recs; i++) {
		struct rec_comm *c = (struct rec_comm *)p->tool_recs[i];

		if (c->h.type != REC_COMM || c->h.size < COMM_REC_MIN)
			continue;
		c->flags &= ~(uint32_t)COMM_F_RECYCLED;
		/* The earlier access first: a writer's trap (COMM_F_WRITER)
		 * comes after the reader's load it is recorded with. */
		if (c->pub_time <= c->time ?
			    objmap_recycled(om, c->pid, c->pub_addr, c->pub_time, c->addr, c->time) :
			    objmap_recycled(om, c->pid, c->addr, c->time, c->pub_addr, c->pub_time))
			c->flags |= COMM_F_RECYCLED;
	}
	objmap_free(om);
	return 0;
}

/* A thread or CPU pair as observed (a from b), summed before the matrix. */
struct comm_pair {
	uint32_t a, b;
	double w[CM_NKIND];
};

/* A code address of an image, and its row in comm_model.codes. */
struct comm_ip {
	uint64_t ip;
	uint32_t image, row;
};

/* Running sums of comm records (see the top of this file). */
struct comm_acc {
	int ready;                    /* weights read from the meta */
	double p0;                    /* the run's sampling period, 0 if not known */
	struct comm_pair *pairs, *cpus;
	struct comm_ip *ips;
	size_t npairs, pairs_cap, ncpus, cpus_cap, nips, ips_cap, lines_cap, codes_cap;
	/* over pairs, cpus, m.lines, m.codes (by name) and ips */
	struct hash pair_ix, cpu_ix, line_ix, code_ix, ip_ix;
	/* (line, thread) of threads a line keeps no room for, counted once */
	struct hash extra_ix;
	uint64_t *extra;
	size_t nextra, extra_cap;
	struct comm_model m;          /* counters, totals, lines and codes so far */
};

static void comm_acc_free(struct comm_acc *a)
{
	hash_free(&a->pair_ix);
	hash_free(&a->cpu_ix);
	hash_free(&a->line_ix);
	hash_free(&a->code_ix);
	hash_free(&a->ip_ix);
	hash_free(&a->extra_ix);
	free(a->extra);
	free(a->pairs);
	free(a->cpus);
	free(a->ips);
	comm_free(&a->m);
	memset(a, 0, sizeof(*a));
}

/* Debug registers per thread: x86 has 4, Arm up to 16; more is corrupt. */
#define COMM_MAX_WP 64

/* A positive number of at most max, else dflt: the file may say "1e999"
 * or "nan", and weights must stay finite and wp fit an unsigned. */
static double meta_num(const struct profile *p, const char *key, double dflt, double max)
{
	const char *v = profile_meta(p, key);
	char *end;
	double d;

	if (!v)
		return dflt;
	d = strtod(v, &end);
	return end != v && d > 0 && d <= max ? d : dflt;
}

/* The scale of a detection, from the run's settings (meta precedes records). */
static void comm_acc_ready(struct comm_acc *a, const struct profile *p)
{
	struct comm_model *m = &a->m;
	const char *src = profile_meta(p, "source");

	m->soft = !src || strcmp(src, "pmu") != 0;
	m->wp = (unsigned)meta_num(p, "wp", 0, COMM_MAX_WP);
	/* agent_cfg's period is a u64 */
	a->p0 = meta_num(p, "period", 0, (double)UINT64_MAX);
	m->period = m->soft ? 1 : a->p0 ? a->p0 : 1;
	m->trap_scale = m->period * (m->wp ? 64.0 / (8.0 * m->wp) : 0);
	m->unit = m->soft ? "weighted detections" : "transfers (estimated)";
	a->ready = 1;
}

/* A thread's period against the run's, bounded: it came from the arena.
 * Not known (a 1.4 file): the run's. */
#define COMM_REL_MAX 1e4
static double comm_rel(double p0, uint32_t period)
{
	double r;

	if (!period || p0 <= 0)
		return 1;
	r = period / p0;
	return r < 1 / COMM_REL_MAX ? 1 / COMM_REL_MAX : r > COMM_REL_MAX ? COMM_REL_MAX : r;
}

static int pair_add(struct hash *ix, struct comm_pair **arr, size_t *n, size_t *cap,
		    uint32_t x, uint32_t y, int kind, double w)
{
	uint64_t hv = hash_u64((uint64_t)x << 32 | y);
	size_t i;
	int err;

	for (size_t c = 0; (i = hash_walk(ix, hv, &c)) != HASH_NONE;)
		if ((*arr)[i].a == x && (*arr)[i].b == y)
			break;
	if (i == HASH_NONE) {
		err = array_grow(arr, cap, *n, sizeof(**arr));
		if (!err)
			err = hash_add(ix, hv, *n);
		if (err)
			return err;
		i = (*n)++;
		(*arr)[i] = (struct comm_pair){ x, y, { 0 } };
	}
	(*arr)[i].w[CM_ALL] += w;
	(*arr)[i].w[kind] += w;
	return 0;
}

/* The code row of ip in an image, symbolized once per address. */
static int code_row(struct comm_acc *a, const struct profile *p, uint32_t pid, uint64_t time,
		    uint32_t image, uint64_t ip, size_t *row)
{
	struct comm_model *m = &a->m;
	uint64_t hv = hash_mix(ip, image);
	char loc[512];
	int err;

	for (size_t c = 0, i; (i = hash_walk(&a->ip_ix, hv, &c)) != HASH_NONE;) {
		if (a->ips[i].ip == ip && a->ips[i].image == image) {
			*row = a->ips[i].row;
			return 0;
		}
	}
	names_code(p, pid, time, ip, loc, sizeof(loc));
	err = name_row(&a->code_ix, loc, &m->codes, &m->ncodes, &a->codes_cap, sizeof(*m->codes),
		       row);
	if (!err && !m->codes[*row].inl && names_inline(p, pid, time, ip)[0] &&
	    !(m->codes[*row].inl = strdup(names_inline(p, pid, time, ip))))
		err = -ENOMEM;
	if (!err)
		err = array_grow(&a->ips, &a->ips_cap, a->nips, sizeof(*a->ips));
	if (!err)
		err = hash_add(&a->ip_ix, hv, a->nips);
	if (!err)
		a->ips[a->nips++] = (struct comm_ip){ ip, image, (uint32_t)*row };
	return err;
}

/* The line of addr in an image, added if new. */
static int line_of(struct comm_acc *acc, const struct rec_comm *c, uint32_t image,
		   struct comm_line **out)
{
	struct comm_model *m = &acc->m;
	uint64_t line = c->addr & ~63ull, hv = hash_mix(line, image);
	struct comm_line *l;
	int err;

	for (size_t k = 0, i; (i = hash_walk(&acc->line_ix, hv, &k)) != HASH_NONE;) {
		if (m->lines[i].line == line && m->lines[i].image == image) {
			*out = &m->lines[i];
			return 0;
		}
	}
	err = array_grow(&m->lines, &acc->lines_cap, m->nlines, sizeof(*m->lines));
	if (!err)
		err = hash_add(&acc->line_ix, hv, m->nlines);
	if (err)
		return err;
	l = &m->lines[m->nlines++];
	memset(l, 0, sizeof(*l));
	l->pid = c->pid;
	l->image = image;
	l->time = c->time;
	l->line = line;
	l->obj = -1;
	*out = l;
	return 0;
}

/* A thread line l keeps no room for: counted in more_threads once. */
static int line_extra(struct comm_acc *acc, struct comm_line *l, uint32_t thread)
{
	uint64_t key = (uint64_t)(l - acc->m.lines) << 32 | thread, hv = hash_u64(key);
	int err;

	for (size_t k = 0, i; (i = hash_walk(&acc->extra_ix, hv, &k)) != HASH_NONE;)
		if (acc->extra[i] == key)
			return 0;
	err = array_grow(&acc->extra, &acc->extra_cap, acc->nextra, sizeof(*acc->extra));
	if (!err)
		err = hash_add(&acc->extra_ix, hv, acc->nextra);
	if (err)
		return err;
	acc->extra[acc->nextra++] = key;
	l->more_threads++;
	return 0;
}

static int comm_acc_add(struct comm_acc *acc, const struct profile *p, const struct rec_comm *c)
{
	struct comm_model *m = &acc->m;
	const struct rec_task *a = profile_task_by_tid(p, c->pid, c->tid, c->time);
	const struct rec_task *b = profile_task_by_tid(p, c->pid, c->pub_tid, c->pub_time);
	int rc = !!(c->flags & COMM_F_RECYCLED);
	int kind = rc ? CM_RC : c->flags & COMM_F_TRUE ? CM_TS : CM_FS;
	double w;
	uint32_t image = profile_image(p, c->pid, c->time);
	struct comm_line *l;
	size_t row;
	int err;

	if (!acc->ready)
		comm_acc_ready(acc, p);
	w = c->flags & COMM_F_TRAP ? m->trap_scale * (c->scale ? c->scale : 1) : m->period;
	w *= comm_rel(acc->p0, c->period) * comm_rel(acc->p0, c->pub_period);
	m->events++;
	m->by_trap += !!(c->flags & COMM_F_TRAP);
	m->by_sample += !(c->flags & COMM_F_TRAP);
	m->by_writer += (c->flags & (COMM_F_TRAP | COMM_F_WRITER)) == (COMM_F_TRAP | COMM_F_WRITER);
	m->exact_traps += (c->flags & (COMM_F_TRAP | COMM_F_EXACT)) == (COMM_F_TRAP | COMM_F_EXACT);
	m->total[CM_ALL] += w;
	m->total[kind] += w;
	err = a && b ? pair_add(&acc->pair_ix, &acc->pairs, &acc->npairs, &acc->pairs_cap,
				a->index, b->index, kind, w) : 0;
	if (!err)
		err = pair_add(&acc->cpu_ix, &acc->cpus, &acc->ncpus, &acc->cpus_cap, c->cpu,
			       c->pub_cpu, kind, w);
	if (!err)
		err = line_of(acc, c, image, &l);
	if (err)
		return err;
	l->w[CM_ALL] += w;
	l->w[kind] += w;
	l->events++;
	if (l->nprobe < COMM_LINE_PROBES) {
		l->probe_addr[l->nprobe] = c->addr;
		l->probe_time[l->nprobe++] = c->time;
	}
	if (a && line_thread(l, a->index, c->addr, c->size, c->kind != MEM_LOAD, rc, w))
		err = line_extra(acc, l, a->index);
	if (!err && b && (c->pub_addr & ~63ull) == l->line &&
	    line_thread(l, b->index, c->pub_addr, c->pub_size, 1, rc, w))
		err = line_extra(acc, l, b->index);
	if (err)
		return err;
	line_ip(l, c->ip, w);
	line_ip(l, c->pub_ip, w);

	for (int side = 0; side < 2; side++) {
		err = code_row(acc, p, c->pid, c->time, image, side ? c->pub_ip : c->ip, &row);
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

static void comm_cell_add(struct comm_model *m, int lv, size_t i, size_t j, const double *w)
{
	size_t n = m->n[lv];

	for (int k = 0; k < CM_NKIND; k++)
		m->m[lv][k][i * n + j] += w[k];
}

/* The pairs into matrices, now that threads and topology are final. */
static int comm_matrices(const struct profile *p, const struct comm_acc *acc,
			 struct comm_model *m)
{
	int ncpu_ids = 0, *core_ix = NULL, *node_ix = NULL, err = 0;

	for (int i = 0; i < p->topo.ncpus; i++)
		if (p->topo.cpus[i].cpu >= ncpu_ids)
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
	if (err)
		goto out;
	for (size_t i = 0; i < acc->npairs; i++) {
		const struct comm_pair *x = &acc->pairs[i];

		if (x->a < m->n[CL_THREAD] && x->b < m->n[CL_THREAD])
			comm_cell_add(m, CL_THREAD, x->a, x->b, x->w);
	}
	for (size_t i = 0; i < acc->ncpus; i++) {
		const struct comm_pair *x = &acc->cpus[i];

		if ((int64_t)x->a >= ncpu_ids || (int64_t)x->b >= ncpu_ids)
			continue;
		if (core_ix[x->a] >= 0 && core_ix[x->b] >= 0)
			comm_cell_add(m, CL_CORE, (size_t)core_ix[x->a], (size_t)core_ix[x->b], x->w);
		if (node_ix[x->a] >= 0 && node_ix[x->b] >= 0)
			comm_cell_add(m, CL_NODE, (size_t)node_ix[x->a], (size_t)node_ix[x->b], x->w);
	}
	comm_symmetric(m);
out:
	free(core_ix);
	free(node_ix);
	return err;
}

/* The model from the sums; the accumulator is spent either way. */
static int comm_acc_finish(struct comm_acc *acc, const struct profile *p, struct comm_model *m)
{
	int err;

	if (!acc->ready)
		comm_acc_ready(acc, p);
	*m = acc->m;
	memset(&acc->m, 0, sizeof(acc->m));
	err = comm_matrices(p, acc, m);
	/* qsort's array must not be NULL, even empty. */
	if (!err && m->nlines)
		qsort(m->lines, m->nlines, sizeof(*m->lines), line_cmp);
	if (!err && m->ncodes)
		qsort(m->codes, m->ncodes, sizeof(*m->codes), code_cmp);
	if (!err)
		err = comm_lines_finish(p, m);
	comm_acc_free(acc);
	if (err)
		comm_free(m);
	return err;
}

static int comm_acc_kept(struct comm_acc *acc, const struct profile *p)
{
	int err = 0;

	for (size_t i = 0; i < p->ntool_recs && !err; i++) {
		const struct rec_hdr *h = p->tool_recs[i];

		if (h->type == REC_COMM && h->size >= COMM_REC_MIN)
			err = comm_acc_add(acc, p, (const struct rec_comm *)h);
	}
	return err;
}

int comm_build(const struct profile *p, struct comm_model *m)
{
	struct comm_acc acc = { 0 };
	int err = comm_acc_kept(&acc, p);

	memset(m, 0, sizeof(*m));
	if (err) {
		comm_acc_free(&acc);
		return err;
	}
	return comm_acc_finish(&acc, p, m);
}

void comm_free(struct comm_model *m)
{
	for (int lv = 0; lv < CL_NLEVEL; lv++) {
		free(m->ids[lv]);
		for (int k = 0; k < CM_NKIND; k++)
			free(m->m[lv][k]);
	}
	for (size_t i = 0; i < m->nlines; i++) {
		free(m->lines[i].object);
		free(m->lines[i].also);
	}
	free(m->lines);
	for (size_t i = 0; i < m->nobjs; i++)
		free(m->objs[i].name);
	free(m->objs);
	for (size_t i = 0; i < m->ncodes; i++) {
		free(m->codes[i].loc);
		free(m->codes[i].inl);
	}
	free(m->codes);
	memset(m, 0, sizeof(*m));
}


/* "1:0-7w 2:8-15w 3": each thread's bytes of the line, w if it stored;
 * a thread only on recycled memory shares no bytes. */
void comm_line_threads(const struct profile *p, const struct comm_line *l, char *buf,
		       size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < l->nthr && o < len; i++) {
		uint64_t b = l->thr[i].bytes;
		unsigned lo = b ? (unsigned)__builtin_ctzll(b) : 0;
		unsigned hi = b ? 63 - (unsigned)__builtin_clzll(b) : 0;
		char lab[32];

		profile_thread_label(p, l->thr[i].thread, lab, sizeof(lab));
		if (!b)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", lab);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s:%u-%u%s", i ? " " : "", lab, lo,
					      hi, l->thr[i].wbytes ? "w" : "");
	}
	if (l->more_threads && o < len)
		snprintf(buf + o, len - o, " and %u more thread%s", l->more_threads,
			 l->more_threads == 1 ? "" : "s");
}

void comm_line_code(const struct profile *p, const struct comm_line *l, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < l->nip && o < len; i++) {
		char loc[256];

		names_code(p, l->pid, l->time, l->ip[i], loc, sizeof(loc));
		if (strstr(buf, loc))
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "; " : "", loc);
	}
}

/* The profile's comm state: the sums while records come, then the model. */
struct comm_state {
	struct comm_acc acc;
	struct comm_model m;
	int built, failed;
};

static void comm_state_free(void *data)
{
	struct comm_state *s = data;

	comm_acc_free(&s->acc);
	comm_free(&s->m);
	free(s);
}

static struct comm_state *comm_state(const struct profile *p)
{
	return profile_cache(p, sizeof(struct comm_state), comm_state_free);
}

static int comm_fold(struct profile *p, const struct rec_hdr *r)
{
	struct comm_state *s;

	if (r->type != REC_COMM)
		return 1;
	if (r->size < COMM_REC_MIN)
		return 0; /* as comm_build: too short to mean anything */
	s = comm_state(p);
	if (!s)
		return -ENOMEM;
	if (s->built || s->failed)
		return 1;
	return comm_acc_add(&s->acc, p, (const struct rec_comm *)r);
}

const struct comm_model *comm_of(const struct profile *p)
{
	struct comm_state *s = comm_state(p);

	if (!s || s->failed)
		return NULL;
	if (!s->built) {
		/* Kept records (a live run); folded ones are in the sums already. */
		int err = comm_acc_kept(&s->acc, p);

		if (!err)
			err = comm_acc_finish(&s->acc, p, &s->m);
		else
			comm_acc_free(&s->acc);
		if (err) {
			s->failed = 1;
			return NULL;
		}
		s->built = 1;
	}
	return &s->m;
}

static int comm_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_comm *c = (const struct rec_comm *)h;

	if (c->kind > MEM_RMW || c->pub_kind > MEM_RMW) {
		snprintf(why, whylen, "comm access kinds %u, %u are unknown", c->kind, c->pub_kind);
		return -EBADMSG;
	}
	return 0;
}

static const struct rec_desc comm_types[] = {
	{ REC_COMM, REC_T_AGENT, COMM_REC_MIN, sizeof(struct rec_comm), "REC_COMM",
	  comm_check },
};

/* Between the words of a line looked up, so that its other variables
 * are known by name (comm_line_vars): 4 bytes finds every int and wider. */
#define COMM_LINE_WORD 4

static int comm_sym(const struct rec_hdr *h, prof_need_fn need, void *ctx)
{
	const struct rec_comm *c = (const struct rec_comm *)h;
	int err = need(ctx, c->pid, c->time, SYM_CODE, c->ip);

	if (!err)
		err = need(ctx, c->pid, c->time, SYM_CODE, c->pub_ip);
	if (!err)
		err = need(ctx, c->pid, c->time, SYM_DATA, c->addr);
	if (!err)
		err = need(ctx, c->pid, c->time, SYM_DATA, c->pub_addr);
	for (unsigned k = 0; k < 64 && !err; k += COMM_LINE_WORD)
		err = need(ctx, c->pid, c->time, SYM_DATA, (c->addr & ~63ull) + k);
	return err;
}

static int comm_merge(struct rec_hdr *h, prof_pid_fn pid, void *ctx)
{
	return h->type == REC_COMM ? pid(ctx, &((struct rec_comm *)h)->pid) : 0;
}

/* The detections of files merged must be weighed alike. */
static const char *const comm_agree[] = { "wp", NULL };

const struct prof_ops comm_prof = {
	.types = comm_types,
	.ntypes = sizeof(comm_types) / sizeof(comm_types[0]),
	.fold = comm_fold,
	.sym = comm_sym,
	.merge = comm_merge,
	.agree = comm_agree,
};
