// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt membound's model on injected profiles: the soft estimate's verdicts
 * from samples shaped like each kernel (a compute loop, a stream, a
 * pointer chase, L2- and L3-sized footprints), the probe's classes
 * against the calibration in the meta, phases and their boundaries, and
 * the counters of a pmu host: deltas per interval, the paper's shapes
 * giving the paper's verdicts, multiplexed counts marked scaled; the
 * footprint of objects (a grid made row by row, a few rows used, a
 * buffer made again in place) and the estimate of a site's instances in
 * use; and the records' checks as untrusted input.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/core/profile.h"
#include "lib/core/records.h"
#include "lib/tools/membound/events.h"
#include "lib/tools/membound/model.h"

#define PID 100
#define MS 1000000ull
#define T0 1000000000ull
#define BUF 0x7f0000000000ull
#define TSC_HZ 2e9 /* 2 ticks a ns */
#define FLOOR 40   /* ticks of a probe of an L1 line */

static void meta(struct profile *p, const char *k, const char *v)
{
	assert_int_equal(profile_set_meta(p, k, v), 0);
}

/* A machine of 48 KiB L1, 1 MiB L2, 8 MiB L3; probe medians 0, 4, 20,
 * 200 ns above the floor; chase latencies 1, 4, 40, 300 ns. */
static void prof_new(struct profile *p)
{
	profile_init(p);
	p->ops = &membound_prof;
	meta(p, "tool", "membound");
	meta(p, "interval_ms", "100");
	meta(p, "membound_method", "soft estimate");
	meta(p, "calib_tsc_hz", "2e9");
	meta(p, "calib_l1_size", "49152");
	meta(p, "calib_l2_size", "1048576");
	meta(p, "calib_l3_size", "8388608");
	meta(p, "calib_l1_probe_ns", "0");
	meta(p, "calib_l2_probe_ns", "4");
	meta(p, "calib_l3_probe_ns", "20");
	meta(p, "calib_dram_probe_ns", "200");
	meta(p, "calib_l1_lat_ns", "1");
	meta(p, "calib_l2_lat_ns", "4");
	meta(p, "calib_l3_lat_ns", "40");
	meta(p, "calib_dram_lat_ns", "300");
	/* DRAM: 10 GB/s read and 6 written on one core, 18 and 12 on two. */
	meta(p, "calib_threads", "2");
	meta(p, "calib_dram_rd_bw1", "10e9");
	meta(p, "calib_dram_wr_bw1", "6e9");
	meta(p, "calib_dram_rd_bwn", "18e9");
	meta(p, "calib_dram_wr_bwn", "12e9");
}

/* A heap block of BUF's, from before the samples. */
static void add_buf(struct profile *p, uint64_t bytes)
{
	struct rec_alloc a = { .h = { sizeof(a), REC_ALLOC, 0 }, .pid = PID, .tid = 1,
			       .time = T0 - 5, .addr = BUF, .size = bytes, .kind = ALLOC_MALLOC };

	assert_int_equal(profile_add(p, &a.h), 0);
}

/*
 * n pairs of samples of thread tid from time t, 1 ms apart (each lead
 * stands for 1 ms), over `bytes` of BUF: a stream of `streams` operands
 * moving at `rate` bytes/s in all (each operand at rate/streams), `w` of
 * them written, the follow-up 300 us after its lead.  wrap: the
 * follow-up lands anywhere in the buffer instead (a stream faster than
 * the pair, or random accesses).
 */
static void add_pairs(struct profile *p, uint32_t tid, uint64_t t, int n, uint64_t bytes,
		      double rate, int streams, int w, int wrap)
{
	for (int i = 0; i < n; i++) {
		struct rec_mb_pair r = { .h = { sizeof(r), REC_MB_PAIR, 0 } };
		uint64_t lead = (uint64_t)i * (bytes / 2) / (uint64_t)n / 64 * 64;

		r.pid = PID;
		r.tid = tid;
		r.time = t + (uint64_t)i * MS + 300000;
		r.lead_addr = BUF + lead;
		r.addr = wrap ? BUF + (uint64_t)(i * 7919 % n) * (bytes / (uint64_t)n) :
				r.lead_addr + (uint64_t)(rate / streams * 300e-6);
		r.dt_ns = 300000;
		r.span_ns = MS;
		r.streams = (uint16_t)streams;
		r.wstreams = (uint16_t)w;
		assert_int_equal(profile_add(p, &r.h), 0);
	}
}

static void add_thread(struct profile *p, uint32_t tid)
{
	struct rec_thread r = { .h = { sizeof(r), REC_THREAD, 0 } };
	struct rec_mb_floor f = { .h = { sizeof(f), REC_MB_FLOOR, 0 } };

	r.pid = f.pid = PID;
	r.tid = f.tid = tid;
	r.time = f.time = T0 - 10;
	f.ticks = FLOOR;
	strcpy(r.name, "app");
	assert_int_equal(profile_add(p, &r.h), 0);
	assert_int_equal(profile_add(p, &f.h), 0);
}

enum shape {
	COMPUTE, /* walked to an L1 line: not at a memory instruction */
	STREAM,  /* at a load, line near, addresses sweep `bytes` */
	CHASE,   /* at a chasing load, line `ns` away */
};

/* n samples of thread tid from time t, 1 ms apart, over `bytes` of BUF;
 * the probe `ns` above the floor. */
static void add_samples(struct profile *p, uint32_t tid, uint64_t t, int n, enum shape sh,
			uint64_t bytes, double ns)
{
	for (int i = 0; i < n; i++) {
		struct rec_sample s = { .h = { sizeof(s), REC_SAMPLE, 0 } };

		s.pid = PID;
		s.tid = tid;
		s.time = t + (uint64_t)i * MS;
		s.ip = 0x401000;
		/* Spread over the footprint, ends included. */
		s.addr = BUF + (uint64_t)i * (bytes - 64) / (uint64_t)(n - 1) / 64 * 64;
		s.size = 8;
		s.kind = MEM_LOAD;
		s.flags = SAMPLE_F_ADDR | (sh == COMPUTE ? SAMPLE_F_AHEAD : 0);
		s.weight = 1 + FLOOR + (uint64_t)(ns * TSC_HZ / 1e9);
		if (sh == CHASE)
			s.weight |= MB_WEIGHT_CHASE;
		assert_int_equal(profile_add(p, &s.h), 0);
	}
}

static const struct mb_model *model_of(struct profile *p)
{
	const struct mb_model *m;

	profile_number_tasks(p);
	m = membound_of(p);
	assert_non_null(m);
	return m;
}

static void expect(const struct mb_tally *t, int verdict, int level)
{
	if (t->verdict != verdict || t->level != level)
		fail_msg("verdict %s at %s, expected %s at %s", mb_verdict_name(t->verdict),
			 mb_level_name(t->level), mb_verdict_name(verdict), mb_level_name(level));
}

static void test_kernels(void **state)
{
	static const struct {
		enum shape sh;
		uint64_t bytes;
		double ns;
		double rate; /* the pairs' bytes/s (0: no pairs) */
		int streams, wrap;
		int verdict, level;
	} k[] = {
		{ COMPUTE, 4096, 0, 0, 0, 0, MB_V_NOT_MEMORY, -1 },
		{ STREAM, 16 << 10, 0, 0, 0, 0, MB_V_NOT_MEMORY, -1 }, /* L1: never memory bound */
		{ STREAM, 512 << 10, 2, 0, 0, 0, MB_V_BANDWIDTH, MB_L2 },
		/* A stream in a cache wraps within a pair: the time at memory decides. */
		{ STREAM, 512 << 10, 2, 100e9, 1, 1, MB_V_BANDWIDTH, MB_L2 },
		{ STREAM, 4 << 20, 15, 0, 0, 0, MB_V_BANDWIDTH, MB_L3 },
		/* Beyond the caches the achieved bandwidth decides: 9 of 10 GB/s. */
		{ STREAM, 256 << 20, 20, 9e9, 1, 0, MB_V_BANDWIDTH, MB_DRAM },
		/* 3 streams at 3 GB/s each: as much. */
		{ STREAM, 256 << 20, 20, 9e9, 3, 0, MB_V_BANDWIDTH, MB_DRAM },
		/* At memory all the time, yet 3 of 10 GB/s: latency. */
		{ STREAM, 256 << 20, 20, 3e9, 1, 0, MB_V_LATENCY, MB_DRAM },
		/* Arithmetic over a big array, 1 of 10 GB/s: not memory bound. */
		{ COMPUTE, 256 << 20, 20, 1e9, 1, 0, MB_V_NOT_MEMORY, -1 },
		/* No stream measured beyond the caches: too few to tell. */
		{ STREAM, 256 << 20, 20, 0, 0, 0, MB_V_UNKNOWN, -1 },
		{ STREAM, 256 << 20, 20, 9e9, 1, 1, MB_V_UNKNOWN, -1 },
		{ CHASE, 512 << 10, 4, 0, 0, 0, MB_V_LATENCY, MB_L2 },
		{ CHASE, 256 << 20, 250, 0, 0, 0, MB_V_LATENCY, MB_DRAM },
		/* A chase in a footprint the calibration calls L3 whose lines
		 * were in DRAM goes by the lines. */
		{ CHASE, 4 << 20, 250, 0, 0, 0, MB_V_LATENCY, MB_DRAM },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct profile p;
		const struct mb_model *m;

		prof_new(&p);
		add_thread(&p, 1);
		add_samples(&p, 1, T0, 100, k[i].sh, k[i].bytes, k[i].ns);
		if (k[i].rate > 0) {
			add_buf(&p, k[i].bytes);
			add_pairs(&p, 1, T0, 99, k[i].bytes, k[i].rate, k[i].streams, 0,
				  k[i].wrap);
		}
		m = model_of(&p);
		assert_int_equal(m->niv, 1);
		expect(&m->iv[0].t, k[i].verdict, k[i].level);
		/* 99 leads of 1 ms in 100 ms of the interval. */
		if (k[i].rate > 0 && !k[i].wrap) {
			double want = k[i].rate * 0.99;

			assert_true(m->iv[0].t.bw > want * 0.99 && m->iv[0].t.bw < want * 1.01);
			assert_true(m->iv[0].t.bw_peak > 9.99e9 && m->iv[0].t.bw_peak < 10.01e9);
		} else if (k[i].rate > 0) {
			assert_true(m->iv[0].t.bw < 0);
		}
		expect(&m->thr[0].t, k[i].verdict, k[i].level);
		assert_int_equal(m->nph, 1);
		/* The footprint of 100 evenly spread samples is the span itself. */
		if (k[i].bytes > 4096)
			assert_true(m->iv[0].t.footprint >= (double)k[i].bytes &&
				    m->iv[0].t.footprint <= 1.03 * (double)k[i].bytes);
		profile_free(&p);
	}
}

static void test_probe_classes(void **state)
{
	struct profile p;
	const struct mb_model *m;

	(void)state;
	prof_new(&p);
	add_thread(&p, 1);
	add_samples(&p, 1, T0, 30, STREAM, 1 << 20, 0);      /* near */
	add_samples(&p, 1, T0 + 30 * MS, 30, STREAM, 1 << 20, 15);  /* L3 */
	add_samples(&p, 1, T0 + 60 * MS, 30, STREAM, 1 << 20, 150); /* DRAM */
	/* Probes past 20 DRAM latencies are faults, left out. */
	add_samples(&p, 1, T0 + 90 * MS, 5, STREAM, 1 << 20, 20 * 300 + 1);
	m = model_of(&p);
	assert_int_equal(m->all.where[MB_W_NEAR], 30);
	assert_int_equal(m->all.where[MB_W_L3], 30);
	assert_int_equal(m->all.where[MB_W_DRAM], 30);
	assert_int_equal(m->all.faulted, 5);
	assert_int_equal(m->all.probed, 90);
	profile_free(&p);
}

/* Compute for 500 ms, then a DRAM stream for 500 ms: two phases, the
 * boundary at 500 ms; a lone odd interval inside a phase is absorbed. */
static void test_phases(void **state)
{
	struct profile p;
	const struct mb_model *m;

	(void)state;
	prof_new(&p);
	add_thread(&p, 1);
	add_buf(&p, 256 << 20);
	add_samples(&p, 1, T0, 200, COMPUTE, 4096, 0);
	add_samples(&p, 1, T0 + 200 * MS, 100, STREAM, 256 << 20, 20); /* a blip */
	add_pairs(&p, 1, T0 + 200 * MS, 99, 256 << 20, 9e9, 1, 0, 0);
	add_samples(&p, 1, T0 + 300 * MS, 200, COMPUTE, 4096, 0);
	add_samples(&p, 1, T0 + 500 * MS, 500, STREAM, 256 << 20, 20);
	add_pairs(&p, 1, T0 + 500 * MS, 499, 256 << 20, 9e9, 1, 0, 0);
	m = model_of(&p);
	assert_int_equal(m->niv, 10);
	assert_int_equal(m->nph, 2);
	expect(&m->ph[0].t, MB_V_NOT_MEMORY, -1);
	expect(&m->ph[1].t, MB_V_BANDWIDTH, MB_DRAM);
	assert_int_equal(m->ph[1].first, 5);
	assert_int_equal(m->ph[1].start, 500 * MS);
	profile_free(&p);
}

/* Too few samples to say: unknown, and it joins the phase before it. */
static void test_sparse(void **state)
{
	struct profile p;
	const struct mb_model *m;

	(void)state;
	prof_new(&p);
	add_thread(&p, 1);
	add_samples(&p, 1, T0, 100, STREAM, 256 << 20, 20);
	add_samples(&p, 1, T0 + 150 * MS, 3, COMPUTE, 4096, 0);
	m = model_of(&p);
	assert_int_equal(m->niv, 2);
	assert_int_equal(m->iv[1].t.verdict, MB_V_UNKNOWN);
	assert_int_equal(m->nph, 1);
	profile_free(&p);
}

/* Without a calibration nothing is probed into classes, and no L1/L2/L3
 * size is known: footprints are DRAM-sized, the verdict says so. */
static void test_no_calibration(void **state)
{
	struct profile p;
	const struct mb_model *m;

	(void)state;
	profile_init(&p);
	p.ops = &membound_prof;
	meta(&p, "interval_ms", "100");
	add_thread(&p, 1);
	add_samples(&p, 1, T0, 50, STREAM, 1 << 20, 20);
	m = model_of(&p);
	assert_false(m->cal.have);
	assert_int_equal(m->all.probed, 0);
	profile_free(&p);
}

/* ---- a pmu host: Haswell-EP's counters ---- */

static void add_counts(struct profile *p, uint32_t tid, uint64_t time, const uint64_t *v,
		       int n, uint64_t en, uint64_t run)
{
	struct rec_mb_counts r = { .h = { sizeof(r), REC_MB_COUNTS, 0 } };

	r.pid = PID;
	r.tid = tid;
	r.time = time;
	r.n = (uint32_t)n;
	for (int k = 0; k < n; k++) {
		r.v[k] = v[k];
		r.enabled[k] = en;
		r.running[k] = run;
	}
	assert_int_equal(profile_add(p, &r.h), 0);
}

/* The counters of hsw_ep's stall group, in mb_events_groups' order. */
static int stall_group(const char **names, int max)
{
	const struct mb_event_row *row = mb_events_row("hsw_ep");
	struct mb_group g[8];
	int ng;

	assert_non_null(row);
	ng = mb_events_groups(row, 5, g, 8);
	assert_true(ng >= 1);
	assert_true((int)g[0].n <= max);
	for (unsigned k = 0; k < g[0].n; k++)
		names[k] = g[0].ev[k];
	return (int)g[0].n;
}

static void test_counters(void **state)
{
	const struct mb_event_row *row = mb_events_row("hsw_ep");
	const char *names[MEMBOUND_MAX_COUNTERS];
	char list[1024] = "";
	int n = stall_group(names, MEMBOUND_MAX_COUNTERS), r;
	uint64_t v[MEMBOUND_MAX_COUNTERS] = { 0 }, cum[MEMBOUND_MAX_COUNTERS] = { 0 };
	struct profile p;
	const struct mb_model *m;

	(void)state;
	for (int k = 0; k < n; k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? "," : "",
			 names[k]);
	prof_new(&p);
	meta(&p, "membound_method", "counters");
	meta(&p, "membound_pmu", "hsw_ep");
	meta(&p, "membound_events", list);
	add_thread(&p, 1);
	add_samples(&p, 1, T0, 10, STREAM, 1 << 20, 0);
	/* Interval 0, a bandwidth benchmark's shape (Figure 9): no uop
	 * executes in 80% of the cycles, load stalls 80%, fill buffers full
	 * 70%.  Interval 1, a latency benchmark's (Figure 7): stalls 90%,
	 * buffers never full.  Interval 2: compute, stalls 5%. */
	for (int iv = 0; iv < 3; iv++) {
		static const double shape[3][4] = { /* no_exec, load, fb, sq */
			{ 0.8, 0.8, 0.7, 0.6 }, { 0.9, 0.9, 0.0, 0.0 }, { 0.05, 0.05, 0, 0 } };
		const double cycles = 2.5e8;

		for (int k = 0; k < n; k++) {
			double x = 0;

			for (r = 0; r < MB_NROLES; r++)
				if (row->role[r].ev[0] && !strcmp(row->role[r].ev[0], names[k]))
					break;
			switch (r) {
			case MB_R_CYCLES: x = cycles; break;
			case MB_R_ACTIVE: x = cycles * (1 - shape[iv][0]); break;
			case MB_R_NO_EXECUTE: x = cycles * shape[iv][0]; break;
			case MB_R_STALLS_LOAD: x = cycles * shape[iv][1]; break;
			case MB_R_BW_FB_FULL: x = cycles * shape[iv][2]; break;
			case MB_R_BW_SQ_FULL: x = cycles * shape[iv][3]; break;
			default: x = 0;
			}
			v[k] = (uint64_t)x;
			cum[k] += v[k];
		}
		/* Interval 1 multiplexed: half its time on the PMU. */
		add_counts(&p, 1, T0 + (uint64_t)(iv + 1) * 100 * MS - 1, cum, n,
			   (uint64_t)(iv + 1) * 100 * MS, (uint64_t)(iv + 1) * 100 * MS -
			   (iv >= 1 ? 50 * MS : 0));
	}
	m = model_of(&p);
	assert_true(m->pmu);
	assert_int_equal(m->niv, 3);
	expect(&m->iv[0].t, MB_V_BANDWIDTH, m->iv[0].t.level);
	assert_true(m->iv[0].t.mem_bound > 0.79 && m->iv[0].t.mem_bound < 0.81);
	assert_int_equal(m->iv[0].t.scaled, 0);
	expect(&m->iv[1].t, MB_V_LATENCY, m->iv[1].t.level);
	assert_int_equal(m->iv[1].t.scaled, 1);
	expect(&m->iv[2].t, MB_V_NOT_MEMORY, -1);
	assert_int_equal(m->nph, 3);
	profile_free(&p);
}

static const struct rec_desc *desc_of(uint16_t type)
{
	for (size_t i = 0; i < membound_prof.ntypes; i++)
		if (membound_prof.types[i].type == type)
			return &membound_prof.types[i];
	return NULL;
}

static void test_records(void **state)
{
	const struct rec_desc *d = desc_of(REC_MB_COUNTS);
	struct rec_mb_counts r = { .h = { sizeof(r), REC_MB_COUNTS, 0 } };
	char why[160];

	(void)state;
	assert_non_null(d);
	assert_non_null(desc_of(REC_MB_FLOOR));
	r.n = 2;
	r.enabled[0] = r.running[0] = 10;
	r.enabled[1] = 10;
	r.running[1] = 5;
	assert_int_equal(d->check(&r.h, why, sizeof(why)), 0);
	r.running[1] = 11; /* running longer than enabled: not the kernel's */
	assert_int_equal(d->check(&r.h, why, sizeof(why)), -EBADMSG);
	r.running[1] = 5;
	r.n = MEMBOUND_MAX_COUNTERS + 1;
	assert_int_equal(d->check(&r.h, why, sizeof(why)), -EBADMSG);
}

/* All 4096 rows alive unless the repeats are past a 1% tail; else
 * Chao1, between the rows sampled and those alive. */
static void test_instances(void **state)
{
	(void)state;
	assert_true(mb_instances(100, 100, 100, 0, 4096) == 4096);
	/* 1.2 repeats expected: 3 are chance (a 12% tail), 5 are not (0.8%). */
	assert_true(mb_instances(100, 97, 94, 3, 4096) == 4096);
	assert_true(fabs(mb_instances(100, 95, 90, 5, 4096) - (95 + 90.0 * 90 / 10)) < 1e-9);
	/* Ten rows, ten samples each: those ten. */
	assert_true(mb_instances(100, 10, 0, 0, 4096) == 10);
	/* Never fewer than sampled, nor more than alive. */
	assert_true(mb_instances(100, 60, 20, 0, 4096) == 4096 ||
		    mb_instances(100, 60, 20, 0, 4096) == 60 + 20 * 19 / 2);
	assert_true(mb_instances(100, 60, 40, 0, 61) <= 61);
	assert_true(mb_instances(5, 5, 5, 0, 1) == 5);
	assert_true(mb_instances(0, 0, 0, 0, 4096) == 0);
}

#define GRID 0x560000000000ull
#define ROW (64ull << 10)

static void add_block(struct profile *p, uint64_t time, uint64_t addr, uint64_t size, int is_free)
{
	struct rec_alloc a = { .h = { sizeof(a), REC_ALLOC, 0 }, .pid = PID, .tid = 1,
			       .time = time, .addr = addr, .size = size, .kind = ALLOC_MALLOC };
	struct rec_free f = { .h = { sizeof(f), REC_FREE, 0 }, .pid = PID, .tid = 1,
			      .time = time, .addr = addr };

	assert_int_equal(profile_add(p, is_free ? &f.h : &a.h), 0);
}

/* A streaming sample of thread 1 at time t, address addr. */
static void add_at(struct profile *p, uint64_t t, uint64_t addr)
{
	struct rec_sample s = { .h = { sizeof(s), REC_SAMPLE, 0 }, .pid = PID, .tid = 1,
				.time = t, .ip = 0x401000, .addr = addr, .size = 8,
				.kind = MEM_LOAD, .flags = SAMPLE_F_ADDR,
				.weight = 1 + FLOOR + (uint64_t)(200 * TSC_HZ / 1e9) };

	assert_int_equal(profile_add(p, &s.h), 0);
}

/* 4096 rows of 64 KiB, 100 samples in a 100 ms interval: on 100 rows
 * spread over the grid, 256 MiB; on 10 rows ten times each, those 10. */
static void test_rows(void **state)
{
	for (int few = 0; few < 2; few++) {
		struct profile p;
		const struct mb_model *m;

		(void)state;
		prof_new(&p);
		add_thread(&p, 1);
		for (uint64_t r = 0; r < 4096; r++)
			add_block(&p, T0 - 1000 + r, GRID + r * (ROW + 16), ROW, 0);
		for (uint64_t i = 0; i < 100; i++) {
			uint64_t r = few ? i % 10 * 409 : i * 41 % 4096;

			add_at(&p, T0 + i * MS, GRID + r * (ROW + 16) + i * 640);
		}
		m = model_of(&p);
		assert_int_equal(m->niv, 1);
		if (few)
			assert_true(m->iv[0].t.footprint == 10.0 * ROW);
		else
			assert_true(m->iv[0].t.footprint == 4096.0 * ROW);
		profile_free(&p);
	}
}

/* A buffer freed and made again in place between samples: one buffer. */
static void test_in_place(void **state)
{
	struct profile p;
	const struct mb_model *m;

	(void)state;
	prof_new(&p);
	add_thread(&p, 1);
	for (uint64_t i = 0; i < 100; i++) {
		add_block(&p, T0 + i * MS, GRID, ROW, 0);
		add_at(&p, T0 + i * MS + 10, GRID + i * 640);
		add_block(&p, T0 + i * MS + 20, GRID, 0, 1);
	}
	m = model_of(&p);
	assert_true(m->iv[0].t.footprint == (double)ROW);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels),
		cmocka_unit_test(test_probe_classes),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_no_calibration),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_in_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
