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
 *  - footprint: the sizes of the live objects the samples touched (see
 *    mb_footprints): a heap block or mapping whole, as its allocation
 *    record says, and for a site whose instances the samples reach only
 *    some of, as many as the samples' repeats say were in use; a static
 *    variable whole; the addresses of a stack or of no known object by
 *    the span sampled.  The smallest level that holds it is where the
 *    thread's data lives (L1 and L2 per thread, L3 for all threads).
 *
 *  - chase: of the memory samples, the loads that chase a pointer (the
 *    agent decodes them: a load into a register its address is made of).
 *  - achieved bandwidth: from the pairs of a sample and its follow-up
 *    (rate.c), against the calibrated peak of the footprint's level.
 *
 * Verdicts (decisions written in cdt-membound(1)):
 *  - a working set that fits L1 is not memory bound: an L1 hit costs what
 *    the core's own pipeline does, and without counters L1 port
 *    saturation cannot be told from arithmetic;
 *  - latency bound when half or more of the memory samples chase a
 *    pointer: at DRAM when a quarter or more of the probed lines were in
 *    DRAM, else at the footprint's level;
 *  - in L2 or L3: bandwidth bound there when 70% of the time or more was
 *    at memory instructions, else not memory bound;
 *  - beyond the caches, by the achieved bandwidth: bandwidth bound at
 *    DRAM from half the peak; below it latency bound when the time at
 *    memory or the lines in DRAM say so, else not memory bound; without
 *    a figure, latency bound by the lines in DRAM, not memory bound by
 *    the time away from memory, else too few samples to tell.
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
#define MB_CHASE_MEM 0.25    /* ... if this much of the time is at memory at all */
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
	} else if (t->mem && (double)t->chase >= MB_CHASE_SHARE * (double)t->mem &&
		   (double)t->mem >= MB_CHASE_MEM * (double)t->samples) {
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
	uint64_t key;      /* the object's start << 1, or its 1 GiB region << 1 | 1 */
	uint64_t lo, hi, n, size;
	uint32_t group;    /* objmap's, OBJMAP_NO_GROUP for none */
	uint32_t whole;    /* counted whole (heap, mmap, static), else by its span */
};

/* A site's instances touched by one thread (or all) in a window. */
struct mb_site {
	uint32_t k, thread, group;
	uint64_t n, m, f1, f2; /* samples; instances; those sampled once, twice */
	double bytes;          /* the instances' sizes summed */
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

/* The addresses of x into the span of (k, thread, key). */
static int mb_span_add(struct mb_build *b, uint32_t k, uint32_t thread, const struct mb_span *x)
{
	uint64_t hv = hash_mix(hash_mix(hash_u64(k), thread), x->key);
	struct mb_span *s;
	size_t i;

	for (size_t c = 0; (i = hash_walk(&b->sp_ix, hv, &c)) != HASH_NONE;) {
		s = &b->sp[i];
		if (s->k == k && s->thread == thread && s->key == x->key) {
			s->lo = x->lo < s->lo ? x->lo : s->lo;
			s->hi = x->hi > s->hi ? x->hi : s->hi;
			s->n += x->n;
			return 0;
		}
	}
	if (array_grow(&b->sp, &b->spcap, b->nsp, sizeof(*b->sp)) ||
	    hash_add(&b->sp_ix, hv, b->nsp))
		return -ENOMEM;
	s = &b->sp[b->nsp++];
	*s = *x;
	s->k = k;
	s->thread = thread;
	return 0;
}

/* The estimated bytes a span's object had in use: n uniform samples
 * leave on average span/(n-1) beyond each end together. */
static double mb_span_bytes(const struct mb_span *s)
{
	double w;

	/* Whole once the window has two samples in it: one stray sample (a
	 * walk that ran into a buffer written long before) put a 128 MiB
	 * block into a compute loop's footprint, and DRAM its level. */
	if (s->whole && s->n >= 2)
		return (double)s->size;
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
			struct mb_span x = { .key = (s->addr >> 30) << 1 | 1, .n = 1,
					     .lo = s->addr & ~63ull, .hi = s->addr & ~63ull,
					     .group = OBJMAP_NO_GROUP };
			int err;

			/* By its start: blocks freed and made again at one
			 * address are the same lines to the caches. */
			if (b->om && !objmap_find(b->om, s->pid, s->addr, s->time, &ob) && ob.id) {
				x.key = ob.start << 1;
				x.size = ob.size;
				x.whole = ob.kind != OBJ_STACK;
				x.group = ob.kind == OBJ_STATIC ? OBJMAP_NO_GROUP : ob.group;
			}
			if ((err = mb_span_add(b, k, th, &x)))
				return err;
		}
	}
	return 0;
}

/*
 * Footprints: per thread and interval the sum of the objects it touched
 * in the intervals from MB_FP_WINDOW before to MB_FP_WINDOW after.  An
 * interval's own samples are few (20 at 200 Hz), and five together see
 * more of a loop (and of one that aliased with the sampling period; the
 * clocks now jitter, lib/agent/clock.c).  At a switch the window lends
 * one kernel's footprint to the other's intervals, which matters only
 * where the memory share or chases make it.
 *
 * What the samples touched is the objects, not the lines sampled (a
 * grid made row by row was read as a few KB):
 *  - a heap block or mapping counts whole, its size from the allocation
 *    record: a block bigger than the part a loop reads reads larger (the
 *    kernels of the tests allocate what they read);
 *  - a site of many instances (4096 rows of 64 KiB) gets, say, 100
 *    samples on as many rows in a window: the rows it used are estimated
 *    (mb_instances) from how often the samples fell on one twice, at
 *    most the site's blocks alive in the window, times the mean size of
 *    the instances touched;
 *  - a static variable counts whole; a thread's stack, and addresses of
 *    no known object (a region of 1 GiB each), by the span of the
 *    addresses sampled, widened by the expected unsampled ends.
 * Blocks are told apart by their start, so a buffer freed and made again
 * in place is one.  The interval's level question is asked per thread (L1
 * and L2 are private), so it keeps the largest thread's footprint for
 * L1/L2 and all threads' together for L3, each object counted once there
 * (a thread that reads its half of a shared array touches all of it).
 */
#define MB_FP_WINDOW 2
/* The tail below which the samples' repeats deny that every live
 * instance of a site was in use. */
#define MB_FP_REJECT 0.01

/* P(X >= c) for X Poisson with mean lambda (its terms in logs: e^-lambda
 * alone underflows past 745). */
static double mb_poisson_tail(uint64_t c, double lambda)
{
	double below = 0, ll;

	if (lambda <= 0)
		return c ? 0 : 1;
	ll = log(lambda);
	for (uint64_t i = 0; i < c && below < 1; i++)
		below += exp(-lambda + (double)i * ll - lgamma((double)i + 1));
	return below < 1 ? 1 - below : 0;
}

/*
 * How many instances of a site of `live` were in use, from n samples that
 * fell on m of them, f1 of those once and f2 twice.  If all live ones were
 * used evenly, n samples would repeat n - live (1 - (1 - 1/live)^n) times
 * on average (about Poisson): all live ones unless there are so many
 * more repeats that this is below a 1% tail.  Else Chao1's lower bound,
 * m + f1^2 / (2 f2) (f1 (f1 - 1) / 2 without pairs), between m and live.
 * With 100 samples over 4096 rows, 1.2 repeats are expected: 2 or 3 are
 * chance, 5 (a 0.8% tail) say fewer rows, about 1000.
 */
double mb_instances(uint64_t n, uint64_t m, uint64_t f1, uint64_t f2, uint64_t live)
{
	double l, expect, chao;

	if (live < m)
		live = m;
	if (!m || live == m)
		return (double)m;
	l = (double)live;
	expect = (double)n - l * -expm1((double)n * log1p(-1 / l));
	/* No more repeats than expected: no need to weigh them. */
	if ((double)(n - m) <= expect || mb_poisson_tail(n - m, expect) >= MB_FP_REJECT)
		return l;
	chao = f2 ? (double)m + (double)f1 * (double)f1 / (2.0 * (double)f2) :
		    (double)m + (double)f1 * ((double)f1 - 1) / 2;
	return chao < l ? chao : l;
}

/* The window's instances of site x->group as seen by (k, thread). */
static int mb_site_add(struct mb_site **v, size_t *n, size_t *cap, struct hash *ix,
		       const struct mb_span *x)
{
	uint64_t hv = hash_mix(hash_mix(hash_u64(x->k), x->thread), x->group);
	struct mb_site *s = NULL;
	size_t i;

	for (size_t c = 0; (i = hash_walk(ix, hv, &c)) != HASH_NONE;)
		if ((*v)[i].k == x->k && (*v)[i].thread == x->thread && (*v)[i].group == x->group) {
			s = &(*v)[i];
			break;
		}
	if (!s) {
		if (array_grow(v, cap, *n, sizeof(**v)) || hash_add(ix, hv, *n))
			return -ENOMEM;
		s = &(*v)[(*n)++];
		*s = (struct mb_site){ .k = x->k, .thread = x->thread, .group = x->group };
	}
	s->n += x->n;
	s->m++;
	s->f1 += x->n == 1;
	s->f2 += x->n == 2;
	s->bytes += (double)x->size;
	return 0;
}

/* The most blocks of a site alive at the start, middle or end of the
 * window around interval k. */
static uint64_t mb_site_live(const struct mb_build *b, uint32_t group, uint32_t k)
{
	const struct mb_model *m = b->m;
	uint64_t a = m->t0 + (k > MB_FP_WINDOW ? k - MB_FP_WINDOW : 0) * m->interval_ns;
	uint64_t e = m->t0 + ((uint64_t)k + MB_FP_WINDOW + 1) * m->interval_ns - 1, most = 0;
	uint64_t at[3] = { a, a + (e - a) / 2, e };

	for (int i = 0; i < 3 && b->om; i++) {
		uint64_t l = objmap_live(b->om, group, at[i]);

		most = l > most ? l : most;
	}
	return most;
}

static int mb_footprints(struct mb_build *b)
{
	struct mb_model *m = b->m;
	size_t per_thr = m->nthr + 1; /* the last: all threads together */
	double *per = calloc(m->niv * per_thr, sizeof(double));
	struct mb_build w = { .m = m };
	struct mb_site *site = NULL;
	size_t n = b->nsp, nsite = 0, sitecap = 0;
	struct hash site_ix = { 0 };
	int err = 0;

	if (!per)
		return -ENOMEM;
	/* Each span into the windows of the intervals around it, its
	 * thread's and all threads'. */
	for (size_t i = 0; i < n && !err; i++)
		for (int d = -MB_FP_WINDOW; d <= MB_FP_WINDOW && !err; d++) {
			const struct mb_span *x = &b->sp[i];
			int64_t k = (int64_t)x->k + d;

			if (k < 0 || (size_t)k >= m->niv)
				continue;
			err = mb_span_add(&w, (uint32_t)k, x->thread, x);
			if (!err)
				err = mb_span_add(&w, (uint32_t)k, (uint32_t)m->nthr, x);
		}
	for (size_t i = 0; i < w.nsp && !err; i++) {
		if (w.sp[i].whole && w.sp[i].group != OBJMAP_NO_GROUP)
			err = mb_site_add(&site, &nsite, &sitecap, &site_ix, &w.sp[i]);
		else
			per[(size_t)w.sp[i].k * per_thr + w.sp[i].thread] += mb_span_bytes(&w.sp[i]);
	}
	for (size_t i = 0; i < nsite && !err; i++) {
		const struct mb_site *x = &site[i];

		/* A site, as an object, once the window has two samples in it. */
		per[(size_t)x->k * per_thr + x->thread] += x->n < 2 ? 64 :
			mb_instances(x->n, x->m, x->f1, x->f2, mb_site_live(b, x->group, x->k)) *
			x->bytes / (double)x->m;
	}
	if (err)
		goto out;
	for (size_t k = 0; k < m->niv; k++) {
		double most = 0, all = per[k * per_thr + m->nthr];

		for (size_t t = 0; t < m->nthr; t++) {
			double f = per[k * per_thr + t];

			most = f > most ? f : most;
			if (f > m->thr[t].footprint)
				m->thr[t].footprint = f;
		}
		/* Private levels see one thread's data; L3 everyone's. */
		m->iv[k].t.footprint = mb_level_of(&m->cal, most) <= MB_L2 &&
				       mb_level_of(&m->cal, all) <= MB_L3 ? most : all;
	}
out:
	free(per);
	free(site);
	hash_free(&site_ix);
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
