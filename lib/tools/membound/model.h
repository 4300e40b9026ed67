/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cdt membound's model of a profile: per interval and per thread, how
 * much time went to memory and at which level, by the soft estimate
 * (samples: what the thread was about to access, where that line was, the
 * footprint of what it touched) or by counters on a PMU host; and the
 * phases, runs of intervals with one verdict, each with its top functions.
 *
 * Everything the model needs is in the profile: the calibration the run
 * used is in its meta (calib_*), so a report needs nothing live.
 */
#ifndef CDT_TOOLS_MEMBOUND_MODEL_H
#define CDT_TOOLS_MEMBOUND_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/profile.h"
#include "lib/tools/membound/membound.h"

/* What binds an interval, a thread or a phase. */
enum mb_verdict_kind {
	MB_V_UNKNOWN = 0,  /* too few samples to say */
	MB_V_NOT_MEMORY,   /* not memory bound */
	MB_V_BANDWIDTH,    /* bandwidth bound at a level */
	MB_V_LATENCY,      /* latency bound at a level */
};

/* The soft estimate's probe classes: where a sampled line was. */
enum mb_where {
	MB_W_NEAR = 0, /* L1 or L2: their probe times are alike (the TSC's grain) */
	MB_W_L3,
	MB_W_DRAM,
	MB_W_N
};

/* The levels as the calibration measured them (profile meta calib_*). */
struct mb_calib_view {
	int have;
	double size[MB_NLEVELS];    /* bytes each level holds; DRAM: 0 */
	double lat_ns[MB_NLEVELS];  /* pointer chase */
	double probe_ns[MB_NLEVELS]; /* the probe's median above its floor */
	double rd_bw1[MB_NLEVELS], wr_bw1[MB_NLEVELS]; /* bytes/s, one core */
	double rd_bwn[MB_NLEVELS], wr_bwn[MB_NLEVELS]; /* all cores */
	double tsc_hz;
	double cut_l3_ns, cut_dram_ns; /* probe times that separate the classes */
	unsigned threads; /* cores of the all-cores figures (0: not known) */
};

/* Sample counts of an interval, a thread or a phase. */
struct mb_tally {
	uint64_t samples;  /* all of them */
	uint64_t mem;      /* the sampled instruction itself accessed memory */
	uint64_t chase;    /* ... and chased a pointer (a load into its own address) */
	uint64_t probed;   /* its line was probed */
	uint64_t where[MB_W_N];
	uint64_t faulted;  /* the probe took far longer than DRAM: left out */
	double footprint;  /* bytes: estimated working set (intervals) */
	/* pmu: metrics of the interval's counters, -1 where not counted */
	double util[MB_NLEVELS][2]; /* read, write utilization of the calibrated peak */
	double active, productive, mem_bound, bw_bound, lat_bound;
	int scaled;        /* a counter was multiplexed and scaled */
	/* soft: the pairs of samples (rate.c); spans are ns of CPU time */
	uint64_t pr_n, pr_valid, pr_fwd, pr_back;
	double pr_span, pr_span_valid, pr_span_away, pr_span_stack;
	double pr_bytes, pr_wbytes; /* the valid pairs' rates x their spans */
	/* Per interval, the threads with valid pairs (summed over the
	 * intervals that have some, and how many), and the CPU time of its
	 * busiest thread (summed): the time the program ran. */
	uint32_t pr_thr_sum, pr_thr_n;
	double pr_run_ns;
	uint32_t pr_threads;        /* rate.c: threads at once, on average */
	double wall_ns;             /* the window's time (a thread's: its CPU time) */
	double bw, bw_peak;         /* bytes/s achieved and the calibrated peak; -1 none */
	double bw_run;              /* bytes/s while its threads ran; -1 none */
	int verdict;       /* enum mb_verdict_kind */
	int level;         /* enum mb_level, for bandwidth and latency */
};

struct mb_interval {
	uint32_t k;
	uint64_t start, end; /* ns from the run's first sample */
	uint32_t threads;    /* threads sampled in it */
	struct mb_tally t;
};

struct mb_thread {
	uint32_t index, pid, tid;
	double footprint; /* the largest of its intervals' */
	struct mb_tally t;
};

#define MB_TOP_FUNCS 3
struct mb_phase {
	uint32_t first, last; /* intervals */
	uint64_t start, end;  /* ns from the run's first sample */
	struct mb_tally t;
	char *func[MB_TOP_FUNCS]; /* its commonest functions, "f (file.c:12)" */
	double func_share[MB_TOP_FUNCS];
};

struct mb_model {
	int pmu;                  /* counters, not the soft estimate */
	uint64_t interval_ns, t0;
	struct mb_calib_view cal;
	struct mb_interval *iv;
	size_t niv;
	struct mb_thread *thr;
	size_t nthr;
	struct mb_phase *ph;
	size_t nph;
	struct mb_tally all;
};

extern const struct prof_ops membound_prof;
/* The model of p, built once (profile_cache); NULL on ENOMEM. */
const struct mb_model *membound_of(const struct profile *p);

/* rate.c: a pair of samples into t (its window's), and the achieved
 * bandwidth of t (bw, bw_peak) from its pairs, at the footprint's level.
 * A window needs this many valid pairs for a figure. */
#define MB_RATE_MIN_PAIRS 6
/* Fewer samples in a window: too few to tell. */
#define MB_MIN_SAMPLES 8
struct objmap;
struct rec_mb_pair;
/* 1 if the pair was valid (it moved within one stream). */
int mb_rate_observe(const struct objmap *om, const struct rec_mb_pair *r, struct mb_tally *t);
void mb_rate_finish(struct mb_tally *t, const struct mb_calib_view *c, int level);

/* Classification of a tally, from its counts and the calibration. */
void mb_tally_classify(struct mb_tally *t, const struct mb_calib_view *c, int pmu);
/* The class of a probe time in ns. */
int mb_where_of(const struct mb_calib_view *c, double ns);
/* The level holding a working set of `bytes` (a thread's, for L1 and L2). */
int mb_level_of(const struct mb_calib_view *c, double bytes);
/* How many of a site's `live` instances were in use, from n samples on m
 * of them, f1 of those sampled once and f2 twice (model.c). */
double mb_instances(uint64_t n, uint64_t m, uint64_t f1, uint64_t f2, uint64_t live);
/* Names for columns: "not_memory_bound", "bandwidth", "latency", "unknown";
 * "L1", "L2", "L3", "DRAM", "remote DRAM". */
const char *mb_verdict_name(int v);
const char *mb_level_name(int level);

#endif
