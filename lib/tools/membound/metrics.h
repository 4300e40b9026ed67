/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cdt membound's metrics: counter readings to rates, utilizations
 * against calibrated peaks, the stall decomposition of Molka et al.
 * (ICPE'17, Figure 10) and a verdict.  Pure functions, no I/O.
 *
 * Every number carries flags: unavailable (no event on this CPU, a counter
 * that never ran, no calibrated peak), scaled (a count extrapolated for
 * multiplexing; the flag follows the count into every metric built on
 * it), over (a utilization above the calibrated peak, kept as measured),
 * cut (a share limited so the decomposition adds up).
 */
#ifndef CDT_TOOLS_MEMBOUND_METRICS_H
#define CDT_TOOLS_MEMBOUND_METRICS_H

#include <stdint.h>

#include "lib/tools/membound/events.h"
#include "lib/tools/membound/membound.h"

enum {
	MB_V_NA = 1u << 0,      /* unavailable: v is NaN */
	MB_V_SCALED = 1u << 1,  /* built on a count scaled for multiplexing */
	MB_V_OVER = 1u << 2,    /* utilization > 1: peak exceeded (or peak too low) */
	MB_V_CUT = 1u << 3,     /* limited to keep the decomposition consistent */
	MB_V_PARTIAL = 1u << 4, /* one of the max() operands missing on this CPU */
};

struct mb_val {
	double v;
	unsigned flags; /* MB_V_* */
};

/* One event's read: value, time_enabled and time_running (ns) as perf
 * reports them with PERF_FORMAT_TOTAL_TIME_ENABLED|RUNNING. */
struct mb_count {
	uint64_t value, enabled, running;
};

/* Calibrated maximal event rates per role, events/s of one core; 0 or
 * NaN: not calibrated. */
struct mb_peaks {
	double max_rate[MB_NROLES];
};

/*
 * A count scaled for multiplexing: value * enabled / running.  Flags
 * MB_V_SCALED when running < enabled; MB_V_NA when running == 0 (the
 * event never reached a counter: nothing is known, and no division by
 * zero happens).
 */
struct mb_val mb_metrics_scale(struct mb_count c);

/*
 * Events per second of running time of each role of row r: the sum over
 * the role's terms of value / running.  cnt[role][k] is the read of
 * r->role[role].ev[k] (an event serving two roles is copied to both).
 * A role without events, or with a term that never ran, is MB_V_NA.
 * Returns 0 or -EINVAL.
 */
int mb_metrics_rates(const struct mb_event_row *r, const struct mb_count cnt[MB_NROLES][MB_TERMS],
		     struct mb_val rate[MB_NROLES]);

struct mb_metrics {
	/* Fractions of the calibrated peak, by level; DRAM and RDRAM writes
	 * have no core event (Table 2: n/a) and stay MB_V_NA. */
	struct mb_val util_rd[MB_NLEVELS];
	struct mb_val util_wr[MB_NLEVELS];
	/* Shares of unhalted core cycles (Figure 10). */
	struct mb_val active;     /* >= 1 uop executed */
	struct mb_val stalled;    /* no uop executed */
	struct mb_val productive; /* neither stalled on memory nor without execution */
	struct mb_val memory_bound;
	struct mb_val bandwidth_bound;
	struct mb_val latency_bound;
	struct mb_val other_stall; /* stalled, not on memory */
};

/* The metrics from the role rates and the peaks.  Returns 0 or -EINVAL. */
int mb_metrics_compute(const struct mb_val rate[MB_NROLES], const struct mb_peaks *pk,
		       struct mb_metrics *m);

/*
 * The verdict.  Thresholds (justified in metrics.c and the man page):
 * memory bound from MB_T_MEMORY_BOUND of the cycles; then bandwidth bound
 * when the bandwidth-bound cycles make MB_T_BW_SHARE of the memory-bound
 * ones or a level runs at MB_T_UTIL_HIGH of its peak, else latency bound.
 */
#define MB_T_MEMORY_BOUND 0.30
#define MB_T_BW_SHARE 0.50
#define MB_T_UTIL_HIGH 0.70

enum mb_verdict {
	MB_NOT_MEMORY_BOUND,
	MB_BANDWIDTH_BOUND,
	MB_LATENCY_BOUND,
};

struct mb_class {
	enum mb_verdict verdict;
	enum mb_level level; /* highest utilization; MB_NLEVELS if none known */
	struct mb_val util;  /* that utilization (max of read and write) */
	unsigned flags;      /* MB_V_SCALED/PARTIAL of the inputs that decided */
};

/* -ENODATA when the memory-bound share is unavailable (no stall event on
 * this CPU or no counts), -EINVAL for NULL; else 0. */
int mb_metrics_classify(const struct mb_metrics *m, struct mb_class *c);

const char *mb_metrics_verdict_name(enum mb_verdict v);

#endif
