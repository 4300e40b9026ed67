// SPDX-License-Identifier: GPL-2.0-only
/*
 * Views of `cdt record` profiles: where memory samples land per thread,
 * per function and per data object, the raw samples, and watch traps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/hash.h"
#include "lib/core/names.h"
#include "lib/core/objmap.h"
#include "lib/core/view.h"
#include "lib/tools/record/parts.h"

/* Counts per key (a function or object name); few thousand keys at most. */
struct agg_row {
	char *key;
	uint64_t n, kind[4];
	uint64_t threads[4]; /* bitmap of the first 256 thread indices */
	uint64_t blocks, bytes, largest; /* allocs: what was allocated under the name */
	uint32_t okind, group;  /* allocs: enum obj_kind, a group of that name */
};

struct agg {
	struct agg_row *rows; /* in the order first seen, until agg_sort */
	size_t n, cap;
	struct hash ix;       /* over rows, by key */
	uint64_t total;
};

static struct agg_row *agg_get(struct agg *a, const char *key)
{
	uint64_t hv = hash_bytes(key, strlen(key));
	char *dup;

	for (size_t c = 0, i; (i = hash_walk(&a->ix, hv, &c)) != HASH_NONE;)
		if (!strcmp(a->rows[i].key, key))
			return &a->rows[i];
	dup = strdup(key);
	if (!dup || array_grow(&a->rows, &a->cap, a->n, sizeof(*a->rows)) ||
	    hash_add(&a->ix, hv, a->n)) {
		free(dup);
		return NULL;
	}
	a->rows[a->n] = (struct agg_row){ .key = dup, .group = OBJMAP_NO_GROUP };
	return &a->rows[a->n++];
}

static void agg_free(struct agg *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->rows[i].key);
	free(a->rows);
	hash_free(&a->ix);
}

static int agg_cmp(const void *x, const void *y)
{
	const struct agg_row *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* Rows by samples, then bytes, then key; the index is stale after this. */
static void agg_sort(struct agg *a)
{
	if (a->n) /* qsort wants rows even when there are none */
		qsort(a->rows, a->n, sizeof(*a->rows), agg_cmp);
}

static uint32_t thread_index(const struct profile *p, uint32_t pid, uint32_t tid,
			     uint64_t time)
{
	const struct rec_task *t = profile_task_by_tid(p, pid, tid, time);

	return t ? t->index : UINT32_MAX;
}

/* A sample's thread as views show it (see profile_thread_label). */
static const char *record_thread(const struct profile *p, uint32_t pid, uint32_t tid,
				 uint64_t time, char *buf, size_t len)
{
	return profile_thread_label(p, thread_index(p, pid, tid, time), buf, len);
}

static int agg_add(struct agg *a, const char *key, int kind, uint32_t thread)
{
	struct agg_row *r = agg_get(a, key);

	if (!r)
		return -ENOMEM;
	r->n++;
	r->kind[kind & 3]++;
	if (thread < 256)
		r->threads[thread / 64] |= 1ull << (thread % 64);
	a->total++;
	return 0;
}

static int agg_table(struct agg *a, const struct view_opts *o, struct table *t)
{
	size_t shown = 0;
	int err = 0;

	agg_sort(a);
	for (size_t i = 0; i < a->n && !err; i++) {
		const struct agg_row *r = &a->rows[i];
		int nthr = 0;

		if (o->top && shown >= o->top)
			break;
		if (a->total && (double)r->n / (double)a->total < o->min_share)
			continue;
		for (int k = 0; k < 4; k++)
			nthr += __builtin_popcountll(r->threads[k]);
		err = table_row(t);
		if (!err)
			err = table_cell(t, "%s", r->key) ||
			      table_cell(t, "%" PRIu64, r->n) ||
			      table_cell(t, "%.1f", a->total ? 100.0 * (double)r->n / (double)a->total : 0) ||
			      table_cell(t, "%" PRIu64, r->kind[MEM_LOAD]) ||
			      table_cell(t, "%" PRIu64, r->kind[MEM_STORE]) ||
			      table_cell(t, "%" PRIu64, r->kind[MEM_RMW]) ||
			      table_cell(t, "%d", nthr) ? -ENOMEM : 0;
		shown++;
	}
	t->hidden = a->n - shown;
	return err;
}

static int view_functions(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "function", "samples:r", "percent:r", "loads:r",
					     "stores:r", "rmw:r", "threads:r", NULL };
	struct agg a = { 0 };
	char loc[512];
	int err = 0;

	table_init(t, "Memory samples by function", cols);
	for (size_t i = 0; i < p->nsamples && !err; i++) {
		const struct rec_sample *s = &p->samples[i];

		if (!(s->flags & SAMPLE_F_ADDR))
			continue;
		names_code(p, s->pid, s->time, s->ip, loc, sizeof(loc));
		err = agg_add(&a, loc, s->kind, thread_index(p, s->pid, s->tid, s->time));
	}
	if (!err)
		err = agg_table(&a, o, t);
	agg_free(&a);
	return err;
}

/*
 * The object at a sampled address: a heap block's call path, a mapping, a
 * thread's stack or a variable (objmap.h); without the map or outside
 * anything known, [stack] for implicit stack operands, else [anon].
 */
static const char *record_obj(const struct objmap *m, const struct profile *p, uint32_t pid,
			      uint64_t time, uint64_t addr, int stack, char *buf, size_t len,
			      uint64_t *off, uint32_t *kind)
{
	struct objmap_obj ob;

	if (m && !objmap_find(m, pid, addr, time, &ob)) {
		*off = ob.offset;
		*kind = ob.kind;
		return objmap_group(m, ob.group)->name;
	}
	names_data(p, pid, time, addr, stack, buf, len, off);
	*kind = stack ? OBJ_STACK : OBJ_NONE;
	return buf;
}

static int view_objects(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "object", "samples:r", "percent:r", "loads:r",
					     "stores:r", "rmw:r", "threads:r", NULL };
	struct objmap *m = NULL;
	struct agg a = { 0 };
	char buf[512];
	uint64_t off;
	uint32_t kind;
	int err;

	table_init(t, "Memory samples by data object", cols);
	err = objmap_build(&m, p);
	for (size_t i = 0; i < p->nsamples && !err; i++) {
		const struct rec_sample *s = &p->samples[i];
		const char *name;

		if (!(s->flags & SAMPLE_F_ADDR))
			continue;
		name = record_obj(m, p, s->pid, s->time, s->addr, s->flags & SAMPLE_F_STACK, buf,
				  sizeof(buf), &off, &kind);
		err = agg_add(&a, name, s->kind, thread_index(p, s->pid, s->tid, s->time));
	}
	if (!err)
		err = agg_table(&a, o, t);
	agg_free(&a);
	objmap_free(m);
	return err;
}

/*
 * Allocations by call path: one row per object name -- every group of that
 * name, i.e. one call path in each process that ran it (objmap.h) -- with
 * what was allocated and how many samples landed in it.  Objects without
 * samples are listed too (CSV, --show-all).
 */
static int view_allocs(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "object", "kind", "blocks:r", "bytes:r",
					     "largest:r", "samples:r", "path", NULL };
	struct objmap *m = NULL;
	struct agg a = { 0 };
	size_t shown = 0;
	char path[1024];
	int err;

	table_init(t, "Allocations by call path", cols);
	err = objmap_build(&m, p);
	for (uint32_t g = 0; !err && g < objmap_ngroups(m); g++) {
		const struct objmap_group *x = objmap_group(m, g);
		struct agg_row *r;

		if (x->kind == OBJ_STATIC)
			continue;
		r = agg_get(&a, x->name);
		if (!r) {
			err = -ENOMEM;
			break;
		}
		if (r->group == OBJMAP_NO_GROUP) {
			r->group = g;
			r->okind = x->kind;
		}
		r->blocks += x->blocks;
		r->bytes += x->bytes;
		if (x->max_size > r->largest)
			r->largest = x->max_size;
	}
	for (size_t i = 0; i < p->nsamples && !err; i++) {
		const struct rec_sample *s = &p->samples[i];
		struct objmap_obj ob;
		struct agg_row *r;

		if (!(s->flags & SAMPLE_F_ADDR) || objmap_find(m, s->pid, s->addr, s->time, &ob) ||
		    ob.kind == OBJ_STATIC)
			continue;
		r = agg_get(&a, objmap_group(m, ob.group)->name);
		if (!r)
			err = -ENOMEM;
		else
			r->n++;
		a.total++;
	}
	if (!err)
		agg_sort(&a);
	for (size_t i = 0; i < a.n && !err; i++) {
		const struct agg_row *r = &a.rows[i];

		if (o->top && shown >= o->top)
			break;
		if (a.total && (double)r->n / (double)a.total < o->min_share)
			continue;
		objmap_path_text(m, r->group, path, sizeof(path));
		err = table_row(t) ||
		      table_cell(t, "%s", r->key) ||
		      table_cell(t, "%s", objmap_kind_name(r->okind)) ||
		      table_cell(t, "%" PRIu64, r->blocks) ||
		      table_cell(t, "%" PRIu64, r->bytes) ||
		      table_cell(t, "%" PRIu64, r->largest) ||
		      table_cell(t, "%" PRIu64, r->n) ||
		      table_cell(t, "%s", path) ? -ENOMEM : 0;
		shown++;
	}
	t->hidden = a.n - shown;
	agg_free(&a);
	objmap_free(m);
	return err;
}

/* Every thread (it maps indices to pids); --top cuts the list. */
static int view_threads(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { view_thread_col(p, "thread:r", "thread"), "pid:r", "tid:r", "name",
			       "samples:r", "mem_samples:r", "loads:r", "stores:r", "rmw:r",
			       "traps:r", "handler_us:r", NULL };
	uint64_t (*kinds)[4] = calloc(p->ntasks + 1, sizeof(*kinds));
	int err = 0;

	if (!kinds)
		return -ENOMEM;
	table_init(t, "Threads", cols);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct rec_sample *s = &p->samples[i];
		uint32_t x = thread_index(p, s->pid, s->tid, s->time);

		kinds[x < p->ntasks ? x : p->ntasks][s->kind & 3]++;
	}
	for (size_t i = 0; i < p->ntasks && !err; i++) {
		const struct rec_task *k = &p->tasks[i];
		uint64_t ns = k->st.handler_ns + k->st.trap_ns;
		uint64_t n = k->st.samples + k->st.steps + k->st.traps;
		char lab[32];

		if (o->top && i >= o->top) {
			t->hidden = p->ntasks - i;
			break;
		}
		err = table_row(t) ||
		      table_cell(t, "%s", profile_thread_label(p, k->index, lab, sizeof(lab))) ||
		      table_cell(t, "%u", profile_os_pid(p, k->pid)) ||
		      table_cell(t, "%u", k->tid) || table_cell(t, "%.16s", k->name) ||
		      table_cell(t, "%" PRIu64, k->st.samples) ||
		      table_cell(t, "%" PRIu64, kinds[i][1] + kinds[i][2] + kinds[i][3]) ||
		      table_cell(t, "%" PRIu64, kinds[i][MEM_LOAD]) ||
		      table_cell(t, "%" PRIu64, kinds[i][MEM_STORE]) ||
		      table_cell(t, "%" PRIu64, kinds[i][MEM_RMW]) ||
		      table_cell(t, "%" PRIu64, k->st.traps) ||
		      table_cell(t, "%.2f", n ? (double)ns / (double)n / 1000.0 : 0) ? -ENOMEM : 0;
	}
	free(kinds);
	return err;
}

static int view_samples(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { view_thread_col(p, "thread:r", "thread"), "pid:r", "tid:r", "time_ns:r", "cpu:r",
					     "kind", "size:r", "addr", "ip", "function", "file",
					     "line:r", "object", "offset:r", "flags", NULL };
	uint64_t t0 = p->nsamples ? p->samples[0].time : 0;
	struct objmap *m = NULL;
	int err;

	table_init(t, "Samples", cols);
	err = objmap_build(&m, p);
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].time < t0)
			t0 = p->samples[i].time;
	for (size_t i = 0; i < p->nsamples && !err; i++) {
		const struct rec_sample *s = &p->samples[i];
		const struct prof_sym *c = profile_sym(p, s->pid, s->time, SYM_CODE, s->ip);
		char buf[512], lab[32];
		const char *obj;
		uint32_t okind;
		uint64_t off;

		if (o->top && i >= o->top) {
			t->hidden = p->nsamples - i;
			break;
		}
		obj = record_obj(m, p, s->pid, s->time, s->addr, s->flags & SAMPLE_F_STACK, buf,
				 sizeof(buf), &off, &okind);
		err = table_row(t) ||
		      table_cell(t, "%s", record_thread(p, s->pid, s->tid, s->time, lab,
							 sizeof(lab))) ||
		      table_cell(t, "%u", profile_os_pid(p, s->pid)) || table_cell(t, "%u", s->tid) ||
		      table_cell(t, "%" PRIu64, s->time - t0) || table_cell(t, "%u", s->cpu) ||
		      table_cell(t, "%s", names_kind(s->kind)) ||
		      table_cell(t, "%u", s->size) ||
		      table_cell(t, "0x%" PRIx64, s->addr) || table_cell(t, "0x%" PRIx64, s->ip) ||
		      table_cell(t, "%s", c && c->name ? c->name : "") ||
		      table_cell(t, "%s", c && c->file ? c->file : "") ||
		      table_cell(t, "%u", c ? c->line : 0) ||
		      table_cell(t, "%s", (s->flags & SAMPLE_F_ADDR) ? obj : "") ||
		      table_cell(t, "%" PRIu64, off) ||
		      table_cell(t, "%s%s%s", s->flags & SAMPLE_F_ADDR ? "a" : "",
				 s->flags & SAMPLE_F_STEP ? "s" : "",
				 s->flags & SAMPLE_F_STACK ? "k" : "") ? -ENOMEM : 0;
	}
	objmap_free(m);
	return err;
}

static int view_traps(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { view_thread_col(p, "thread:r", "thread"), "tid:r", "time_ns:r", "watched", "object",
					    "kind", "size:r", "insn", "location", NULL };
	uint64_t t0 = p->ntraps ? p->traps[0].time : 0;
	struct objmap *m = NULL;
	int err;

	table_init(t, "Watchpoint traps", cols);
	err = objmap_build(&m, p);
	for (size_t i = 0; i < p->ntraps; i++)
		if (p->traps[i].time < t0)
			t0 = p->traps[i].time;
	for (size_t i = 0; i < p->ntraps && !err; i++) {
		const struct rec_trap *x = &p->traps[i];
		uint64_t ip = x->flags & TRAP_F_INSN ? x->insn_ip : x->ip, off;
		char loc[512], buf[512], lab[32];
		const char *obj;
		uint32_t okind;

		if (o->top && i >= o->top) {
			t->hidden = p->ntraps - i;
			break;
		}
		names_code(p, x->pid, x->time, ip, loc, sizeof(loc));
		obj = record_obj(m, p, x->pid, x->time, x->wp_addr, 0, buf, sizeof(buf), &off,
				 &okind);
		err = table_row(t) ||
		      table_cell(t, "%s", record_thread(p, x->pid, x->tid, x->time, lab,
							 sizeof(lab))) ||
		      table_cell(t, "%u", x->tid) || table_cell(t, "%" PRIu64, x->time - t0) ||
		      table_cell(t, "0x%" PRIx64, x->wp_addr) || table_cell(t, "%s", obj) ||
		      table_cell(t, "%s", x->flags & TRAP_F_EXEC ? "exec" : names_kind(x->kind)) ||
		      table_cell(t, "%u", x->size) || table_cell(t, "0x%" PRIx64, ip) ||
		      table_cell(t, "%s", loc) ? -ENOMEM : 0;
	}
	objmap_free(m);
	return err;
}

static int view_summary(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "key", "value", NULL };
	uint64_t k[4] = { 0 }, addr = 0, fail = 0;
	int err;

	(void)o;
	table_init(t, NULL, cols);
	for (size_t i = 0; i < p->nsamples; i++) {
		k[p->samples[i].kind & 3]++;
		addr += !!(p->samples[i].flags & SAMPLE_F_ADDR);
	}
	for (size_t i = 0; i < p->ntasks; i++)
		fail += p->tasks[i].st.decode_fail;
	err = view_summary_run(p, t);
#define KV(key, ...) (table_row(t) || table_cell(t, "%s", key) || table_cell(t, __VA_ARGS__))
	if (!err)
		err = KV("memory_samples", "%zu", p->nsamples) ||
		      KV("with_address", "%" PRIu64, addr) ||
		      KV("loads", "%" PRIu64, k[MEM_LOAD]) ||
		      KV("stores", "%" PRIu64, k[MEM_STORE]) ||
		      KV("rmw", "%" PRIu64, k[MEM_RMW]) ||
		      KV("decode_failures", "%" PRIu64, fail) ||
		      KV("traps", "%zu", p->ntraps);
#undef KV
	if (!err)
		err = view_summary_errors(p, t);
	return err ? -ENOMEM : 0;
}

const struct view record_views[] = {
	{ "summary", "run settings and totals", view_summary, NULL },
	{ "threads", "per thread: samples by kind, agent cost", view_threads, NULL },
	{ "functions", "memory samples by function and source line", view_functions, NULL },
	{ "objects", "memory samples by data object", view_objects, NULL },
	{ "allocs", "heap blocks, mappings and stacks by allocation call path", view_allocs, NULL },
	{ "samples", "every sample (CSV is the useful form)", view_samples, NULL },
	{ "traps", "watchpoint traps from --watch", view_traps, NULL },
	{ "processes", "each process: parent, execs, how it ended", view_processes, NULL },
	{ NULL, NULL, NULL, NULL },
};

const char *const record_report[] = { "summary", "threads", "functions", "objects",
				      "traps", NULL };
