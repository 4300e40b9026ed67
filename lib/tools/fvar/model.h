/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fvar model: per function and per calling context, the Welford
 * state of each metric over the measured instances, the share of the
 * run's samples the function was on the stack for, per-thread totals for
 * the inter-thread CV, a bounded reservoir of instances, and the drops by
 * cause.
 */
#ifndef CDT_TOOLS_FVAR_MODEL_H
#define CDT_TOOLS_FVAR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/hash.h"
#include "lib/core/profile.h"
#include "lib/tools/fvar/fvar.h"
#include "lib/tools/fvar/welford.h"

/* Instances kept per calling context for histograms and timelines:
 * enough for a 20-bin histogram with ~10 per bin, 2 KB-ish each. */
#define FV_RESERVOIR 256
/* Table 1 of the paper: share of the run, intra- and inter-thread CV. */
#define FV_FLAG_SHARE 0.10
#define FV_FLAG_CV 0.20
#define FV_FLAG_CV_THREADS 0.10
/* A mean under this many calibration spreads is cdt's noise, not the
 * function's: the function is untimed (fv_resolution). */
#define FV_RESOLUTION 3
/*
 * ... and so is one with half its instances or more at 0 (their traps'
 * delivery took at least the calibration's median, which each loses, and
 * less is not kept), unless its mean is FV_ZEROS_MEAN resolutions or
 * more: then its long calls carry it (a function that often returns at
 * once).  The calibration's spread is that of its middle half; the traps'
 * cost has a long tail besides: a 70 ns call read 0.16 to 0.84 us on the
 * mean where R was 1 to 2.2 us, its median 0 in 4 runs of 6, and a
 * calibration that met its traps at a quiet moment makes R smaller.
 */
#define FV_ZEROS_MEAN 3

struct fv_inst {
	uint64_t time;    /* ns since the run began */
	uint32_t thread;  /* thread index */
	uint32_t pad;
	double v[FV_MAX_METRICS];
};

/* What a function, or a function in one context, has. */
struct fv_stats {
	struct welford m[FV_MAX_METRICS]; /* over its instances */
	uint64_t samples;                 /* samples it was on the stack for */
	uint64_t drops[FV_NCAUSE];
	uint64_t zeros;     /* instances of metric 0 at 0: measuring took all */
	double cv_intra;    /* of metric 0, within threads (pooled) */
	double cv_threads;  /* of the per-thread sample totals */
	uint32_t nthreads;  /* threads it was sampled in */
};

/* Call paths kept per context, the most frequent first once finished;
 * the others are only counted. */
#define FV_CTX_PATHS 4

/* A full call path beyond the call site: "g (a.c:9) < main (a.c:30)",
 * a frame repeated by recursion written once with "x3". */
struct fv_path {
	char *text;
	uint64_t n; /* instances that had it */
};

/* A function in one calling context: its call site (ret). */
struct fv_ctx {
	uint32_t pid, func;
	char *site;        /* the call site as names_code has it, "" if unknown */
	uint64_t time;     /* when first seen, for names */
	uint64_t entry, ret;
	struct fv_stats st;
	uint64_t offered;  /* instances offered to the reservoir */
	struct fv_inst *res;
	size_t nres;
	struct fv_path path[FV_CTX_PATHS];
	uint32_t npath;
	uint64_t path_n;     /* instances whose path was unwound */
	uint64_t path_other; /* ... whose path was none of path[] */
};

/* A function: the same in every process and rank that runs its code. */
struct fv_func {
	uint32_t pid;      /* where it was first seen, for names */
	char *id;          /* its name and place, as names_code has it */
	uint64_t time, entry; /* its entry was symbolized */
	struct fv_stats st;
	int flagged;       /* Table 1: high cost and high variance */
	int untimed;       /* under the resolution (fv_untimed): noise */
};

/* One thread's part of a function (inter-thread variance). */
struct fv_thr {
	uint32_t func, thread;
	uint64_t samples;
	struct welford m0; /* metric 0 of its instances */
};

struct fv_model {
	uint32_t nmetrics;
	char metric[FV_MAX_METRICS][32]; /* names, from the profile's meta */
	int metric_ns[FV_MAX_METRICS];   /* the metric is a time in ns */
	struct fv_func *fn;
	size_t nfn;
	struct fv_ctx *ctx;
	size_t nctx;
	struct fv_thr *thr;
	size_t nthr;
	size_t *order;      /* functions, flagged first, then by share */
	uint64_t samples;   /* all samples of the run */
	uint64_t instances;
	uint64_t drops[FV_NCAUSE];
	uint64_t start;     /* the run's first time, ns */
	int call_samples;   /* samples are of calls (pmu), not of time */
	double total[FV_MAX_METRICS]; /* the threads' metrics all told (rec_fvar_total) */
	uint32_t calib_runs; /* the first process's calibration (rec_fvar_calib) */
	double bias[FV_MAX_METRICS];
	double spread[FV_MAX_METRICS]; /* resolution: the calibration's spread */
	double period;      /* what a sample stands for: CPU ns (soft), events (pmu) */
	double flag_share, flag_cv, flag_cv_threads;
};

/* The model of p, built on first use and kept with p; NULL on failure. */
const struct fv_model *fvar_of(const struct profile *p);
/* The share of the run a function or context took: of the samples it was
 * on the stack for; of the threads' first metric all told, for call
 * samples (its calls times its mean instance). */
double fv_share(const struct fv_model *m, const struct fv_stats *st);
/* Its calls: call samples times the period; else estimated from its time
 * and its mean instance, or, under the resolution, from its time over
 * the resolution (a lower bound); 0 if unknown. */
double fv_calls(const struct fv_model *m, const struct fv_stats *st);
/* The shortest mean instance cdt can time here, in metric 0's unit:
 * FV_RESOLUTION spreads of the calibration; 0 if there was none. */
double fv_resolution(const struct fv_model *m);
/* Is this function or context under the resolution: its mean under R, or
 * half its instances at 0 and its mean under FV_ZEROS_MEAN R (a time)? */
int fv_untimed(const struct fv_model *m, const struct fv_stats *st);
const char *fv_cause_name(int cause);

#endif
