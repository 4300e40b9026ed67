// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt membound's model (model.h).  The soft estimate, per interval:
 *
 *  - memory share: of the samples (those that found no memory access
 *    within the step budget included), those whose interrupted
 *    instruction itself accesses memory (not one walked or stepped to).
 *    Timer samples are time-weighted, so this is the share of time at
 *    memory instructions: near 1 in a streaming loop, small in a compute
 *    loop.  Stack operands (push, call) are left out: they hit L1.  A
 *    pointer chase counts wherever the sample fell: it skids past the load
 *    that waited (DESIGN.md) and walks to the next link.
 *  - where: each probed sample's line, by the probe's time against the
 *    calibrated probe times of the levels: L1/L2, L3 or DRAM.  The share
 *    at L3 or DRAM is the share of time a thread was about to wait on a
 *    line from there: a pointer chase waits on every one, a stream finds
 *    its next line prefetched.
 *  - footprint: per data object, the span of the addresses sampled in it
 *    in the interval, widened by the expected gap at its ends
 *    (span (n+1)/(n-1) for n uniform samples), at most the object's size;
 *    summed per thread.  The smallest level that holds it is where the
 *    thread's data lives (L1 and L2 per thread, L3 for all threads).
 *
 *  - chase: of the memory samples, the loads that chase a pointer (the
 *    agent decodes them: a load into a register its address is made of).
 *
 * Verdicts (decisions written in cdt-membound(1)):
 *  - a working set that fits L1 is not memory bound: an L1 hit costs what
 *    the core's own pipeline does, and without counters L1 port
 *    saturation cannot be told from arithmetic;
 *  - latency bound when half or more of the memory samples chase a
 *    pointer: at DRAM when a quarter or more of the probed lines were in
 *    DRAM, else at the footprint's level;
 *  - else bandwidth bound at the footprint's level when 70% of the time
 *    or more was at memory instructions;
 *  - else not memory bound.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/hash.h"
#include "lib/core/names.h"
#include "lib/core/objmap.h"
#include "lib/tools/membound/events.h"
#include "lib/tools/membound/metrics.h"
#include "lib/tools/membound/model.h"

#define MB_DRAM_SHARE 0.25   /* probed lines in DRAM that put a chase there */
#define MB_CHASE_SHARE 0.5   /* memory samples chasing pointers: latency bound */
#define MB_MEM_SHARE 0.7     /* time at memory instructions for bandwidth bound */
#define MB_FAULT_FACTOR 20.0 /* a probe this many DRAM latencies long faulted */
#define MB_BW_UTIL 0.5       /* of the calibrated peak achieved: bandwidth bound */

const char *mb_verdict_name(int v)
{
	switch (v) {
	case MB_V_NOT_MEMORY: return "not_memory_bound";
	case MB_V_BANDWIDTH: return "bandwidth";
	case MB_V_LATENCY: return "latency";
	}
	return "unknown";
}

const char *mb_level_name(int level)
{
	static const char *const n[MB_NLEVELS] = { "L1", "L2", "L3", "DRAM", "remote DRAM" };

	return level >= 0 && level < MB_NLEVELS ? n[level] : "?";
}

int mb_where_of(const struct mb_calib_view *c, double ns)
{
	if (ns >= c->cut_dram_ns)
		return MB_W_DRAM;
	if (ns >= c->cut_l3_ns)
		return MB_W_L3;
	return MB_W_NEAR;
}

int mb_level_of(const struct mb_calib_view *c, double bytes)
{
	for (int l = MB_L1; l <= MB_L3; l++)
		if (c->size[l] > 0 && bytes <= c->size[l])
			return l;
	return MB_DRAM;
}

void mb_tally_classify(struct mb_tally *t, const struct mb_calib_view *c, int pmu)
{
	int level = mb_level_of(c, t->footprint);
	double dram = t->probed ? (double)t->where[MB_W_DRAM] / (double)t->probed : 0;
	int at_dram = t->probed >= MB_MIN_SAMPLES && dram >= MB_DRAM_SHARE;
	int at_mem = (double)t->mem >= MB_MEM_SHARE * (double)t->samples;

	t->verdict = MB_V_UNKNOWN;
	t->level = -1;
	if (pmu)
		return;
	mb_rate_finish(t, c, level);
	if (t->samples < MB_MIN_SAMPLES)
		return;
	if (level == MB_L1) {
		t->verdict = MB_V_NOT_MEMORY;
	} else if (t->mem && (double)t->chase >= MB_CHASE_SHARE * (double)t->mem) {
		t->verdict = MB_V_LATENCY;
		t->level = at_dram ? MB_DRAM : level;
	} else if (level < MB_DRAM) {
		/*
		 * Within the caches the time at memory says it.  A stream
		 * there mostly wraps its data within a pair, and where its
		 * speed is measured, a VM's calibrated L3 is not the L3 the
		 * program gets: the host's other guests share it (a 14 MiB
		 * read at 7 GB/s, DRAM's speed, against an L3 calibrated at
		 * 16 MiB and 15 GB/s).
		 */
		t->verdict = at_mem ? MB_V_BANDWIDTH : MB_V_NOT_MEMORY;
		t->level = at_mem ? level : -1;
	} else if (t->bw_run >= 0 && t->bw_peak > 0) {
		/* Beyond the caches the achieved bandwidth against the peak decides. */
		if (t->bw_run >= MB_BW_UTIL * t->bw_peak) {
			t->verdict = MB_V_BANDWIDTH;
			t->level = level;
		} else if (at_mem || at_dram) {
			t->verdict = MB_V_LATENCY;
			t->level = MB_DRAM;
		} else {
			t->verdict = MB_V_NOT_MEMORY;
		}
	} else if (at_dram) {
		/* No stream measured, and lines waited for in DRAM. */
		t->verdict = MB_V_LATENCY;
		t->level = MB_DRAM;
	} else if (!at_mem) {
		t->verdict = MB_V_NOT_MEMORY;
	}
	/* else too few samples to tell: at memory, beyond the caches, and
	 * no stream measured */
}

/* ---- the calibration, from the meta ---- */

static double meta_d(const struct profile *p, const char *key)
{
	const char *v = profile_meta(p, key);

	return v ? strtod(v, NULL) : 0;
}

/* The probe time between two classes: the geometric mean of their medians,
 * the lower taken as at least one TSC tick (L1 and L2 medians are often
 * 0 at the TSC's grain). */
static double mb_cut(double lo, double hi, double tick)
{
	if (lo < tick)
		lo = tick;
	if (hi <= lo)
		return lo * 2;
	return sqrt(lo * hi);
}

static void mb_calib_read(const struct profile *p, struct mb_calib_view *c)
{
	static const char *const lv[MB_NLEVELS] = { "l1", "l2", "l3", "dram", "rdram" };
	char key[64];
	double tick;

	for (int l = 0; l < MB_NLEVELS; l++) {
#define MB_GET(field, name) \
	(snprintf(key, sizeof(key), "calib_%s_%s", lv[l], name), c->field[l] = meta_d(p, key))
		MB_GET(size, "size");
		MB_GET(lat_ns, "lat_ns");
		MB_GET(probe_ns, "probe_ns");
		MB_GET(rd_bw1, "rd_bw1");
		MB_GET(wr_bw1, "wr_bw1");
		MB_GET(rd_bwn, "rd_bwn");
		MB_GET(wr_bwn, "wr_bwn");
#undef MB_GET
	}
	c->tsc_hz = meta_d(p, "calib_tsc_hz");
	c->threads = (unsigned)meta_d(p, "calib_threads");
	c->have = c->tsc_hz > 0 && c->size[MB_L1] > 0;
	tick = c->tsc_hz > 0 ? 1e9 / c->tsc_hz : 1;
	c->cut_l3_ns = mb_cut(c->probe_ns[MB_L2], c->probe_ns[MB_L3], tick);
	c->cut_dram_ns = mb_cut(c->probe_ns[MB_L3], c->probe_ns[MB_DRAM], tick);
	if (c->cut_dram_ns <= c->cut_l3_ns)
		c->cut_dram_ns = c->cut_l3_ns * 2;
}

/* ---- building ---- */

/* Addresses sampled in one object by one thread in one interval. */
struct mb_span {
	uint32_t k, thread;
	uint64_t key;      /* the object's id, or its 1 GiB region | 1 */
	uint64_t lo, hi, n, size;
};

struct mb_func {
	uint32_t phase;
	uint32_t image;
	uint64_t start;    /* the function's (or the ip's when unknown) */
	uint64_t ip;       /* a sample of it, for its name */
	uint32_t pid;
	uint64_t time, n;
};

struct mb_build {
	const struct profile *p;
	struct mb_model *m;
	struct objmap *om;
	struct mb_span *sp;
	size_t nsp, spcap, ivcap;
	struct hash sp_ix;
	uint64_t *floor;   /* per thread: the probe's floor in ticks; 0 unknown */
	uint32_t *thread_of; /* per sample */
	uint32_t *iv_of;     /* per sample */
	/* pmu: the counters (the meta's membound_events, in order) */
	const struct mb_event_row *row;
	int idx[MB_NROLES][MB_TERMS]; /* the counter of each role's term, or -1 */
	size_t ncnt;
	struct mb_count *iv_cnt;      /* per interval, ncnt each: deltas summed */
	size_t iv_cnt_n;              /* intervals iv_cnt holds */
	struct mb_count *thr_cnt;     /* per thread, ncnt each */
	struct mb_peaks peaks;
};

static struct mb_interval *mb_interval_get(struct mb_build *b, uint32_t k)
{
	struct mb_model *m = b->m;

	while (m->niv <= k) {
		if (array_grow(&m->iv, &b->ivcap, m->niv, sizeof(*m->iv)))
			return NULL;
		m->iv[m->niv].k = (uint32_t)m->niv;
		m->iv[m->niv].start = m->niv * m->interval_ns;
		m->iv[m->niv].end = (m->niv + 1) * m->interval_ns;
		m->niv++;
	}
	return &m->iv[k];
}

/* Addresses lo..hi, n samples, into the span of (k, thread, key). */
static int mb_span_add(struct mb_build *b, uint32_t k, uint32_t thread, uint64_t key,
		       uint64_t lo, uint64_t hi, uint64_t n, uint64_t size)
{
	uint64_t hv = hash_mix(hash_mix(hash_u64(k), thread), key);
	struct mb_span *s;
	size_t i;

	for (size_t c = 0; (i = hash_walk(&b->sp_ix, hv, &c)) != HASH_NONE;) {
		s = &b->sp[i];
		if (s->k == k && s->thread == thread && s->key == key) {
			s->lo = lo < s->lo ? lo : s->lo;
			s->hi = hi > s->hi ? hi : s->hi;
			s->n += n;
			return 0;
		}
	}
	if (array_grow(&b->sp, &b->spcap, b->nsp, sizeof(*b->sp)) ||
	    hash_add(&b->sp_ix, hv, b->nsp))
		return -ENOMEM;
	b->sp[b->nsp++] = (struct mb_span){ .k = k, .thread = thread, .key = key, .lo = lo,
					    .hi = hi, .n = n, .size = size };
	return 0;
}

/* The estimated bytes a span's object had in use: n uniform samples
 * leave on average span/(n-1) beyond each end together. */
static double mb_span_bytes(const struct mb_span *s)
{
	double w;

	if (s->n < 2)
		return 64;
	w = (double)(s->hi - s->lo + 64) * (double)(s->n + 1) / (double)(s->n - 1);
	if (s->size && w > (double)s->size)
		w = (double)s->size;
	return w;
}

/* The pairs' part of a tally (rate.c). */
static void mb_tally_add_pairs(struct mb_tally *a, const struct mb_tally *x)
{
	a->pr_n += x->pr_n;
	a->pr_valid += x->pr_valid;
	a->pr_fwd += x->pr_fwd;
	a->pr_back += x->pr_back;
	a->pr_span += x->pr_span;
	a->pr_span_valid += x->pr_span_valid;
	a->pr_span_away += x->pr_span_away;
	a->pr_span_stack += x->pr_span_stack;
	a->pr_bytes += x->pr_bytes;
	a->pr_wbytes += x->pr_wbytes;
	a->pr_thr_sum += x->pr_thr_sum;
	a->pr_thr_n += x->pr_thr_n;
	a->pr_run_ns += x->pr_run_ns;
	a->wall_ns += x->wall_ns;
}

static void mb_tally_add(struct mb_tally *a, const struct mb_tally *x)
{
	a->samples += x->samples;
	a->mem += x->mem;
	a->probed += x->probed;
	for (int w = 0; w < MB_W_N; w++)
		a->where[w] += x->where[w];
	a->faulted += x->faulted;
	a->chase += x->chase;
	mb_tally_add_pairs(a, x);
}

/* Each sample into its interval and thread, and its address into a span. */
static int mb_samples(struct mb_build *b)
{
	const struct profile *p = b->p;
	struct mb_model *m = b->m;
	double tick_ns = m->cal.tsc_hz > 0 ? 1e9 / m->cal.tsc_hz : 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct rec_sample *s = &p->samples[i];
		const struct rec_task *task = profile_task_by_tid(p, s->pid, s->tid, s->time);
		struct mb_interval *iv;
		struct mb_tally x = { .samples = 1 };
		uint64_t probe;
		uint32_t th, k;

		if (!task || task->index >= m->nthr || s->time < m->t0)
			continue;
		th = task->index;
		k = (uint32_t)((s->time - m->t0) / m->interval_ns);
		if (!(iv = mb_interval_get(b, k)))
			return -ENOMEM;
		b->thread_of[i] = th;
		b->iv_of[i] = k;
		/* A chase's sample skids past the load that waited and walks
		 * to the next link: its time is the load's all the same. */
		x.chase = (s->flags & SAMPLE_F_ADDR) && (s->weight & MB_WEIGHT_CHASE);
		if (x.chase || ((s->flags & SAMPLE_F_ADDR) &&
				!(s->flags & (SAMPLE_F_AHEAD | SAMPLE_F_STACK))))
			x.mem = 1;
		probe = s->weight & ~MB_WEIGHT_CHASE;
		if (probe != MB_WEIGHT_NONE && tick_ns > 0 && m->cal.have) {
			uint64_t ticks = probe - 1, fl = b->floor[th];
			double ns = (double)(ticks > fl ? ticks - fl : 0) * tick_ns;

			if (m->cal.lat_ns[MB_DRAM] > 0 &&
			    ns > MB_FAULT_FACTOR * m->cal.lat_ns[MB_DRAM]) {
				x.faulted = 1;
			} else {
				x.probed = 1;
				x.where[mb_where_of(&m->cal, ns)] = 1;
			}
		}
		mb_tally_add(&iv->t, &x);
		mb_tally_add(&m->thr[th].t, &x);
		mb_tally_add(&m->all, &x);
		if ((s->flags & SAMPLE_F_ADDR) && !(s->flags & SAMPLE_F_STACK)) {
			struct objmap_obj ob;
			uint64_t key = (s->addr >> 30) << 1 | 1, size = 0;
			int err;

			if (b->om && !objmap_find(b->om, s->pid, s->addr, s->time, &ob) && ob.id) {
				key = ob.id << 1;
				size = ob.size;
			}
			if ((err = mb_span_add(b, k, th, key, s->addr & ~63ull, s->addr & ~63ull, 1,
					       size)))
				return err;
		}
	}
	return 0;
}

/*
 * Footprints: per thread and interval the sum of the spans of the objects
 * it touched in the intervals from MB_FP_WINDOW before to MB_FP_WINDOW
 * after, each object's span taken over that window.  An interval's own
 * samples are few (20 at 200 Hz), and a loop whose pass is short against
 * the sampling period can alias with it: for a while its samples then
 * fall on a few addresses, or all on the loop's bookkeeping (seen here: a
 * 512 KiB read loop whose intervals spanned 330 bytes to 512 KiB); the
 * phase drifts from one interval to the next, and five together see the
 * loop whole.  At a switch the window lends one kernel's footprint to
 * the other's intervals, which matters only where the memory share or
 * chases make it.  The interval's level question is asked per thread (L1
 * and L2 are private), so it keeps the largest thread's footprint for
 * L1/L2 and the sum for L3.
 */
#define MB_FP_WINDOW 2

static int mb_footprints(struct mb_build *b)
{
	struct mb_model *m = b->m;
	double *per = calloc(m->niv * (m->nthr ? m->nthr : 1), sizeof(double));
	struct mb_build w = { .m = m };
	size_t n = b->nsp;
	int err = 0;

	if (!per)
		return -ENOMEM;
	/* Each span into the windows of the intervals around it. */
	for (size_t i = 0; i < n && !err; i++)
		for (int d = -MB_FP_WINDOW; d <= MB_FP_WINDOW && !err; d++) {
			const struct mb_span *x = &b->sp[i];
			int64_t k = (int64_t)x->k + d;

			if (k < 0 || (size_t)k >= m->niv)
				continue;
			err = mb_span_add(&w, (uint32_t)k, x->thread, x->key, x->lo, x->hi, x->n,
					  x->size);
		}
	for (size_t i = 0; i < w.nsp && !err; i++)
		per[(size_t)w.sp[i].k * m->nthr + w.sp[i].thread] += mb_span_bytes(&w.sp[i]);
	if (err) {
		free(per);
		goto out;
	}
	for (size_t k = 0; k < m->niv; k++) {
		double most = 0, sum = 0;

		for (size_t t = 0; t < m->nthr; t++) {
			double f = per[k * m->nthr + t];

			sum += f;
			most = f > most ? f : most;
			if (f > m->thr[t].footprint)
				m->thr[t].footprint = f;
		}
		/* Private levels see one thread's data; L3 everyone's. */
		m->iv[k].t.footprint = mb_level_of(&m->cal, most) <= MB_L2 &&
				       mb_level_of(&m->cal, sum) <= MB_L3 ? most : sum;
	}
	free(per);
out:
	free(w.sp);
	hash_free(&w.sp_ix);
	return err;
}

/* The pairs of samples into their intervals and threads, and the
 * intervals' into the run: per interval, the threads with valid pairs
 * and the CPU time of its busiest thread. */
static int mb_pairs(struct mb_build *b)
{
	const struct profile *p = b->p;
	struct mb_model *m = b->m;
	size_t n = (m->niv ? m->niv : 1) * (m->nthr ? m->nthr : 1);
	uint8_t *seen = calloc(n, 1);
	double *cpu = calloc(n, sizeof(double));
	int err = 0;

	if (!seen || !cpu) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < p->ntool_recs; i++) {
		const struct rec_mb_pair *r = (const void *)p->tool_recs[i];
		const struct rec_task *task;
		struct mb_tally x = { 0 };
		size_t at;
		uint32_t k;

		if (r->h.type != REC_MB_PAIR || r->time < m->t0)
			continue;
		task = profile_task_by_tid(p, r->pid, r->tid, r->time);
		k = (uint32_t)((r->time - m->t0) / m->interval_ns);
		if (!task || task->index >= m->nthr || k >= m->niv)
			continue;
		at = (size_t)k * m->nthr + task->index;
		if (mb_rate_observe(b->om, r, &x) && !seen[at]++)
			m->iv[k].t.pr_thr_sum++;
		cpu[at] += (double)r->span_ns;
		mb_tally_add_pairs(&m->iv[k].t, &x);
		mb_tally_add_pairs(&m->thr[task->index].t, &x);
	}
	for (size_t k = 0; k < m->niv; k++) {
		struct mb_tally *t = &m->iv[k].t;

		t->wall_ns = (double)m->interval_ns;
		t->pr_thr_n = t->pr_thr_sum > 0;
		for (size_t th = 0; th < m->nthr; th++)
			if (cpu[k * m->nthr + th] > t->pr_run_ns)
				t->pr_run_ns = cpu[k * m->nthr + th];
		/* No pairs (no follow-ups here): all of it. */
		if (!t->pr_n)
			t->pr_run_ns = t->wall_ns;
		mb_tally_add_pairs(&m->all, t);
	}
	/* A thread's bandwidth is per second of its own CPU time, on one core. */
	for (size_t t = 0; t < m->nthr; t++) {
		m->thr[t].t.wall_ns = m->thr[t].t.pr_run_ns = m->thr[t].t.pr_span;
		m->thr[t].t.pr_thr_sum = m->thr[t].t.pr_thr_n = 1;
	}
out:
	free(seen);
	free(cpu);
	return err;
}

static int mb_floors(struct mb_build *b)
{
	const struct profile *p = b->p;

	for (size_t i = 0; i < p->ntool_recs; i++) {
		const struct rec_mb_floor *r = (const void *)p->tool_recs[i];
		const struct rec_task *task;

		if (r->h.type != REC_MB_FLOOR)
			continue;
		task = profile_task_by_tid(p, r->pid, r->tid, r->time);
		if (task && task->index < b->m->nthr)
			b->floor[task->index] = r->ticks;
	}
	return 0;
}

/* ---- the counters of a pmu host ---- */

/* Which counter holds each role's terms: the meta names them in order. */
static int mb_pmu_setup(struct mb_build *b)
{
	const struct profile *p = b->p;
	const char *pmu = profile_meta(p, "membound_pmu");
	const char *ev = profile_meta(p, "membound_events");
	char *names = NULL, *save = NULL, *tok, *list[MEMBOUND_MAX_COUNTERS];
	char key[64];
	size_t n = 0;

	for (int r = 0; r < MB_NROLES; r++)
		for (int k = 0; k < MB_TERMS; k++)
			b->idx[r][k] = -1;
	if (!pmu || !ev || !(b->row = mb_events_row(pmu)))
		return 0;
	if (!(names = strdup(ev)))
		return -ENOMEM;
	for (tok = strtok_r(names, ",", &save); tok && n < MEMBOUND_MAX_COUNTERS;
	     tok = strtok_r(NULL, ",", &save))
		list[n++] = tok;
	/* An event counted once may serve two roles (its first copy is used:
	 * groups repeat only the cycles event). */
	for (int r = 0; r < MB_NROLES; r++)
		for (int k = 0; k < MB_TERMS && b->row->role[r].ev[k]; k++)
			for (size_t i = 0; i < n; i++)
				if (!strcmp(list[i], b->row->role[r].ev[k])) {
					b->idx[r][k] = (int)i;
					break;
				}
	for (int r = 0; r < MB_NROLES; r++) {
		snprintf(key, sizeof(key), "calib_peak_%s", mb_events_role_name((enum mb_role)r));
		b->peaks.max_rate[r] = meta_d(p, key);
	}
	b->ncnt = n;
	free(names);
	return 0;
}

/* One thread's counter readings, as deltas into their intervals. */
static int mb_pmu_counts(struct mb_build *b)
{
	const struct profile *p = b->p;
	struct mb_model *m = b->m;
	struct mb_count *last;

	if (!b->ncnt)
		return 0;
	last = calloc((m->nthr ? m->nthr : 1) * b->ncnt, sizeof(*last));
	b->thr_cnt = calloc((m->nthr ? m->nthr : 1) * b->ncnt, sizeof(*b->thr_cnt));
	if (!last || !b->thr_cnt) {
		free(last);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->ntool_recs; i++) {
		const struct rec_mb_counts *r = (const void *)p->tool_recs[i];
		const struct rec_task *task;
		struct mb_count *prev, *d;
		uint32_t k;

		if (r->h.type != REC_MB_COUNTS || r->n != b->ncnt || r->time < m->t0)
			continue;
		task = profile_task_by_tid(p, r->pid, r->tid, r->time);
		if (!task || task->index >= m->nthr)
			continue;
		k = (uint32_t)((r->time - m->t0) / m->interval_ns);
		if (!mb_interval_get(b, k)) {
			free(last);
			return -ENOMEM;
		}
		if (k >= b->iv_cnt_n) {
			size_t want = (size_t)k + 1;
			struct mb_count *x = realloc(b->iv_cnt, want * b->ncnt * sizeof(*x));

			if (!x) {
				free(last);
				return -ENOMEM;
			}
			memset(x + b->iv_cnt_n * b->ncnt, 0, (want - b->iv_cnt_n) * b->ncnt * sizeof(*x));
			b->iv_cnt = x;
			b->iv_cnt_n = want;
		}
		prev = &last[(size_t)task->index * b->ncnt];
		d = &b->iv_cnt[(size_t)k * b->ncnt];
		for (size_t c = 0; c < b->ncnt; c++) {
			/* Counts only grow; a smaller one is a new thread of a reused tid. */
			if (r->v[c] < prev[c].value || r->enabled[c] < prev[c].enabled ||
			    r->running[c] < prev[c].running)
				prev[c] = (struct mb_count){ 0 };
			d[c].value += r->v[c] - prev[c].value;
			d[c].enabled += r->enabled[c] - prev[c].enabled;
			d[c].running += r->running[c] - prev[c].running;
			prev[c] = (struct mb_count){ r->v[c], r->enabled[c], r->running[c] };
			b->thr_cnt[(size_t)task->index * b->ncnt + c] = prev[c];
		}
	}
	free(last);
	return 0;
}

static double mb_v(struct mb_val x)
{
	return x.flags & MB_V_NA ? -1 : x.v;
}

/* A tally's metrics and verdict from counts summed over its window. */
static void mb_pmu_tally(const struct mb_build *b, const struct mb_count *acc, struct mb_tally *t)
{
	struct mb_count cnt[MB_NROLES][MB_TERMS];
	struct mb_val rate[MB_NROLES];
	struct mb_metrics mm;
	struct mb_class cl;
	unsigned flags = 0;

	memset(cnt, 0, sizeof(cnt));
	for (int r = 0; r < MB_NROLES; r++)
		for (int k = 0; k < MB_TERMS; k++)
			if (b->idx[r][k] >= 0)
				cnt[r][k] = acc[b->idx[r][k]];
	t->verdict = MB_V_UNKNOWN;
	t->level = -1;
	if (mb_metrics_rates(b->row, cnt, rate) || mb_metrics_compute(rate, &b->peaks, &mm))
		return;
	for (int l = 0; l < MB_NLEVELS; l++) {
		t->util[l][0] = mb_v(mm.util_rd[l]);
		t->util[l][1] = mb_v(mm.util_wr[l]);
		flags |= mm.util_rd[l].flags | mm.util_wr[l].flags;
	}
	t->active = mb_v(mm.active);
	t->productive = mb_v(mm.productive);
	t->mem_bound = mb_v(mm.memory_bound);
	t->bw_bound = mb_v(mm.bandwidth_bound);
	t->lat_bound = mb_v(mm.latency_bound);
	flags |= mm.active.flags | mm.memory_bound.flags | mm.bandwidth_bound.flags;
	t->scaled = !!(flags & MB_V_SCALED);
	if (mb_metrics_classify(&mm, &cl))
		return;
	t->verdict = cl.verdict == MB_BANDWIDTH_BOUND ? MB_V_BANDWIDTH :
		     cl.verdict == MB_LATENCY_BOUND ? MB_V_LATENCY : MB_V_NOT_MEMORY;
	t->level = t->verdict == MB_V_NOT_MEMORY || cl.level >= MB_NLEVELS ? -1 : (int)cl.level;
}

/* The counts of intervals first..last summed. */
static void mb_pmu_sum(const struct mb_build *b, uint32_t first, uint32_t last,
		       struct mb_count *acc)
{
	memset(acc, 0, b->ncnt * sizeof(*acc));
	for (uint32_t k = first; k <= last && k < b->iv_cnt_n; k++)
		for (size_t c = 0; c < b->ncnt; c++) {
			acc[c].value += b->iv_cnt[(size_t)k * b->ncnt + c].value;
			acc[c].enabled += b->iv_cnt[(size_t)k * b->ncnt + c].enabled;
			acc[c].running += b->iv_cnt[(size_t)k * b->ncnt + c].running;
		}
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Phases: runs of intervals with one verdict and level.  A lone interval
 * between two alike is taken as theirs (a boundary interval is mixed);
 * unknown intervals (too few samples) join the phase before them. */
static int mb_phases(struct mb_build *b)
{
	struct mb_model *m = b->m;
	size_t cap = 0;
	int *v = calloc(m->niv ? m->niv : 1, sizeof(int));
	double *fp = calloc(m->niv ? m->niv : 1, sizeof(double));

	if (!v || !fp) {
		free(v);
		free(fp);
		return -ENOMEM;
	}
	for (size_t k = 0; k < m->niv; k++)
		v[k] = m->iv[k].t.verdict * 16 + (m->iv[k].t.level + 1);
	for (size_t k = 1; k + 1 < m->niv; k++)
		if (v[k] != v[k - 1] && v[k - 1] == v[k + 1])
			v[k] = v[k - 1];
	for (size_t k = 0; k < m->niv; k++) {
		struct mb_phase *ph = m->nph ? &m->ph[m->nph - 1] : NULL;
		int unknown = m->iv[k].t.verdict == MB_V_UNKNOWN;

		if (ph && (v[k] == v[ph->first] || unknown)) {
			ph->last = (uint32_t)k;
			ph->end = m->iv[k].end;
			continue;
		}
		if (array_grow(&m->ph, &cap, m->nph, sizeof(*m->ph))) {
			free(v);
			free(fp);
			return -ENOMEM;
		}
		ph = &m->ph[m->nph++];
		ph->first = ph->last = (uint32_t)k;
		ph->start = m->iv[k].start;
		ph->end = m->iv[k].end;
	}
	/* The phase's tally: its intervals' samples, classified afresh; the
	 * footprint is its intervals' median (the windows of its edge
	 * intervals see the next phase's data). */
	for (size_t i = 0; i < m->nph; i++) {
		struct mb_phase *ph = &m->ph[i];
		size_t n = 0;

		for (uint32_t k = ph->first; k <= ph->last; k++) {
			mb_tally_add(&ph->t, &m->iv[k].t);
			fp[n++] = m->iv[k].t.footprint;
		}
		qsort(fp, n, sizeof(*fp), dbl_cmp);
		ph->t.footprint = fp[n / 2];
		if (m->pmu && b->ncnt && b->row) {
			struct mb_count acc[MEMBOUND_MAX_COUNTERS];

			mb_pmu_sum(b, ph->first, ph->last, acc);
			mb_pmu_tally(b, acc, &ph->t);
		} else {
			mb_tally_classify(&ph->t, &m->cal, m->pmu);
		}
	}
	free(v);
	free(fp);
	return 0;
}

static int func_cmp(const void *x, const void *y)
{
	const struct mb_func *a = x, *b = y;

	if (a->phase != b->phase)
		return a->phase < b->phase ? -1 : 1;
	return (b->n > a->n) - (b->n < a->n);
}

/* The top functions of each phase, by samples. */
static int mb_phase_funcs(struct mb_build *b)
{
	const struct profile *p = b->p;
	struct mb_model *m = b->m;
	struct mb_func *f = NULL;
	size_t nf = 0, cap = 0, i;
	uint32_t *phase_of = calloc(m->niv ? m->niv : 1, sizeof(uint32_t));
	struct hash ix = { 0 };
	int err = 0;

	if (!phase_of)
		return -ENOMEM;
	for (size_t ph = 0; ph < m->nph; ph++)
		for (uint32_t k = m->ph[ph].first; k <= m->ph[ph].last; k++)
			phase_of[k] = (uint32_t)ph;
	for (size_t s = 0; s < p->nsamples && !err; s++) {
		const struct rec_sample *r = &p->samples[s];
		const struct prof_sym *sym;
		uint32_t ph, image;
		uint64_t start, hv;
		int found = 0;

		if (b->thread_of[s] == UINT32_MAX)
			continue;
		ph = phase_of[b->iv_of[s]];
		image = profile_image(p, r->pid, r->time);
		sym = profile_sym(p, r->pid, r->time, SYM_CODE, r->ip);
		start = sym && sym->name ? sym->start : r->ip;
		hv = hash_mix(hash_mix(hash_u64(ph), image), start);
		for (size_t c = 0; (i = hash_walk(&ix, hv, &c)) != HASH_NONE;)
			if (f[i].phase == ph && f[i].image == image && f[i].start == start) {
				f[i].n++;
				found = 1;
				break;
			}
		if (found)
			continue;
		if (array_grow(&f, &cap, nf, sizeof(*f)) || hash_add(&ix, hv, nf)) {
			err = -ENOMEM;
			break;
		}
		f[nf++] = (struct mb_func){ .phase = ph, .image = image, .start = start, .ip = r->ip,
					    .pid = r->pid, .time = r->time, .n = 1 };
	}
	if (!err && nf)
		qsort(f, nf, sizeof(*f), func_cmp);
	for (i = 0; i < nf && !err;) {
		struct mb_phase *ph = &m->ph[f[i].phase];
		size_t j = i;

		for (int t = 0; j < nf && f[j].phase == f[i].phase; j++, t++) {
			char buf[512];

			if (t >= MB_TOP_FUNCS)
				continue;
			names_code(p, f[j].pid, f[j].time, f[j].ip, buf, sizeof(buf));
			/* The function, and the file and line of one of its samples. */
			if (!(ph->func[t] = strdup(buf))) {
				err = -ENOMEM;
				break;
			}
			ph->func_share[t] = ph->t.samples ? (double)f[j].n / (double)ph->t.samples : 0;
		}
		i = j;
	}
	free(f);
	free(phase_of);
	hash_free(&ix);
	return err;
}

static void mb_model_free(struct mb_model *m)
{
	for (size_t i = 0; i < m->nph; i++)
		for (int t = 0; t < MB_TOP_FUNCS; t++)
			free(m->ph[i].func[t]);
	free(m->ph);
	free(m->iv);
	free(m->thr);
	memset(m, 0, sizeof(*m));
}

static int mb_build(const struct profile *p, struct mb_model *m)
{
	struct mb_build b = { .p = p, .m = m };
	const char *v;
	int err = 0;

	memset(m, 0, sizeof(*m));
	mb_calib_read(p, &m->cal);
	v = profile_meta(p, "interval_ms");
	m->interval_ns = (v ? strtoull(v, NULL, 10) : 100) * 1000000ull;
	if (!m->interval_ns)
		m->interval_ns = 100000000ull;
	v = profile_meta(p, "membound_method");
	m->pmu = v && !strcmp(v, "counters");
	m->t0 = UINT64_MAX;
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].time < m->t0)
			m->t0 = p->samples[i].time;
	for (size_t i = 0; i < p->ntool_recs; i++)
		if (p->tool_recs[i]->type == REC_MB_COUNTS &&
		    ((const struct rec_mb_counts *)p->tool_recs[i])->time < m->t0)
			m->t0 = ((const struct rec_mb_counts *)p->tool_recs[i])->time;
	if (m->t0 == UINT64_MAX)
		m->t0 = 0;
	m->nthr = p->ntasks;
	m->thr = calloc(m->nthr ? m->nthr : 1, sizeof(*m->thr));
	b.floor = calloc(m->nthr ? m->nthr : 1, sizeof(uint64_t));
	b.thread_of = malloc((p->nsamples ? p->nsamples : 1) * sizeof(uint32_t));
	b.iv_of = calloc(p->nsamples ? p->nsamples : 1, sizeof(uint32_t));
	if (!m->thr || !b.floor || !b.thread_of || !b.iv_of) {
		err = -ENOMEM;
		goto out;
	}
	memset(b.thread_of, 0xff, (p->nsamples ? p->nsamples : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < m->nthr; i++) {
		m->thr[i].index = p->tasks[i].index;
		m->thr[i].pid = p->tasks[i].pid;
		m->thr[i].tid = p->tasks[i].tid;
	}
	if ((err = mb_floors(&b)) || (err = objmap_build(&b.om, p)) || (err = mb_samples(&b)) ||
	    (err = mb_pairs(&b)) || (err = mb_footprints(&b)))
		goto out;
	if (m->pmu && ((err = mb_pmu_setup(&b)) || (err = mb_pmu_counts(&b))))
		goto out;
	for (size_t k = 0; k < m->niv; k++)
		if (m->iv[k].t.footprint > m->all.footprint)
			m->all.footprint = m->iv[k].t.footprint;
	for (size_t t = 0; t < m->nthr; t++)
		m->thr[t].t.footprint = m->thr[t].footprint;
	if (m->pmu && b.ncnt && b.row) {
		struct mb_count acc[MEMBOUND_MAX_COUNTERS];

		for (size_t k = 0; k < m->niv; k++) {
			mb_pmu_sum(&b, (uint32_t)k, (uint32_t)k, acc);
			mb_pmu_tally(&b, acc, &m->iv[k].t);
		}
		for (size_t t = 0; t < m->nthr; t++)
			mb_pmu_tally(&b, &b.thr_cnt[t * b.ncnt], &m->thr[t].t);
		mb_pmu_sum(&b, 0, (uint32_t)(m->niv ? m->niv - 1 : 0), acc);
		mb_pmu_tally(&b, acc, &m->all);
	} else {
		for (size_t k = 0; k < m->niv; k++)
			mb_tally_classify(&m->iv[k].t, &m->cal, m->pmu);
		for (size_t t = 0; t < m->nthr; t++)
			mb_tally_classify(&m->thr[t].t, &m->cal, m->pmu);
		mb_tally_classify(&m->all, &m->cal, m->pmu);
	}
	if (!(err = mb_phases(&b)))
		err = mb_phase_funcs(&b);
out:
	objmap_free(b.om);
	free(b.sp);
	hash_free(&b.sp_ix);
	free(b.floor);
	free(b.thread_of);
	free(b.iv_of);
	free(b.iv_cnt);
	free(b.thr_cnt);
	if (err)
		mb_model_free(m);
	return err;
}

struct mb_state {
	struct mb_model m;
	int built, failed;
};

static void mb_state_free(void *data)
{
	struct mb_state *s = data;

	mb_model_free(&s->m);
	free(s);
}

const struct mb_model *membound_of(const struct profile *p)
{
	struct mb_state *s = profile_cache(p, sizeof(*s), mb_state_free);

	if (!s || s->failed)
		return NULL;
	if (!s->built) {
		if (mb_build(p, &s->m)) {
			s->failed = 1;
			return NULL;
		}
		s->built = 1;
	}
	return &s->m;
}

/* ---- records ---- */

static int mb_check_counts(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_mb_counts *r = (const void *)h;

	if (r->n > MEMBOUND_MAX_COUNTERS) {
		snprintf(why, whylen, "membound counters: %u values", r->n);
		return -EBADMSG;
	}
	for (uint32_t k = 0; k < r->n; k++)
		if (r->running[k] > r->enabled[k]) {
			snprintf(why, whylen, "membound counter %u: running %llu of %llu ns", k,
				 (unsigned long long)r->running[k],
				 (unsigned long long)r->enabled[k]);
			return -EBADMSG;
		}
	return 0;
}

/* Numbers a pair's record may hold: more is not a loop's, nor a thread's. */
#define MB_PAIR_MAX_STREAMS 64
#define MB_PAIR_MAX_NS 10000000000ull

static int mb_check_pair(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_mb_pair *r = (const void *)h;

	if (r->streams > MB_PAIR_MAX_STREAMS || r->wstreams > r->streams ||
	    r->dt_ns > MB_PAIR_MAX_NS || r->span_ns > MB_PAIR_MAX_NS) {
		snprintf(why, whylen, "membound pair: %u streams, %u written, %llu ns, span %llu ns",
			 r->streams, r->wstreams, (unsigned long long)r->dt_ns,
			 (unsigned long long)r->span_ns);
		return -EBADMSG;
	}
	return 0;
}

static const struct rec_desc mb_types[] = {
	{ REC_MB_COUNTS, REC_T_AGENT, sizeof(struct rec_mb_counts), sizeof(struct rec_mb_counts),
	  "REC_MB_COUNTS", mb_check_counts },
	{ REC_MB_FLOOR, REC_T_AGENT, sizeof(struct rec_mb_floor), sizeof(struct rec_mb_floor),
	  "REC_MB_FLOOR", NULL },
	{ REC_MB_PAIR, REC_T_AGENT, sizeof(struct rec_mb_pair), sizeof(struct rec_mb_pair),
	  "REC_MB_PAIR", mb_check_pair },
};

static int mb_merge(struct rec_hdr *h, prof_pid_fn pid, void *ctx)
{
	switch (h->type) {
	case REC_MB_COUNTS:
		return pid(ctx, &((struct rec_mb_counts *)h)->pid);
	case REC_MB_FLOOR:
		return pid(ctx, &((struct rec_mb_floor *)h)->pid);
	case REC_MB_PAIR:
		return pid(ctx, &((struct rec_mb_pair *)h)->pid);
	}
	return 0;
}

/* Profiles merge only if measured the same way against the same peaks. */
static const char *const mb_agree[] = { "membound_method", "membound_events", "calib_key",
					"interval_ms", NULL };

const struct prof_ops membound_prof = {
	.types = mb_types,
	.ntypes = sizeof(mb_types) / sizeof(mb_types[0]),
	.merge = mb_merge,
	.agree = mb_agree,
};
