// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt membound's metrics, after Molka et al., "Detecting Memory-
 * Boundedness with Hardware Performance Counters", ICPE'17 (the paper).
 * Pure functions over counter reads; see metrics.h for the flags.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>

#include "lib/tools/membound/metrics.h"

static struct mb_val na(unsigned flags)
{
	return (struct mb_val){ NAN, flags | MB_V_NA };
}

static struct mb_val val(double v, unsigned flags)
{
	return (struct mb_val){ v, flags & ~(unsigned)MB_V_NA };
}

static int is_na(struct mb_val x)
{
	return (x.flags & MB_V_NA) || isnan(x.v);
}

struct mb_val mb_metrics_scale(struct mb_count c)
{
	/* A counter that never ran says nothing, not zero. */
	if (c.running == 0)
		return na(0);
	/* running > enabled does not happen; if it did, the raw count is the
	 * best there is, and no extrapolation took place. */
	if (c.running >= c.enabled)
		return val((double)c.value, 0);
	return val((double)c.value * ((double)c.enabled / (double)c.running), MB_V_SCALED);
}

/*
 * Rates per second of running time: value / running equals the scaled
 * count over the enabled time, so the rate is what the event would show
 * had it counted all along.  For a per-thread event both times advance
 * only while the thread runs, so the rate is per second on a core, the
 * unit of Table 2's per-core peaks.
 */
int mb_metrics_rates(const struct mb_event_row *r, const struct mb_count cnt[MB_NROLES][MB_TERMS],
		     struct mb_val rate[MB_NROLES])
{
	int rc = -EINVAL;

	if (!r || !cnt || !rate)
		goto out;
	for (int i = 0; i < MB_NROLES; i++) {
		const struct mb_role_events *re = &r->role[i];
		double sum = 0;
		unsigned flags = 0;
		int k;

		if (!re->ev[0]) {
			rate[i] = na(0);
			continue;
		}
		for (k = 0; k < MB_TERMS && re->ev[k]; k++) {
			struct mb_val s = mb_metrics_scale(cnt[i][k]);

			flags |= s.flags;
			if (is_na(s))
				break;
			sum += (double)cnt[i][k].value * 1e9 / (double)cnt[i][k].running;
		}
		/* A sum with a term missing would read as a low rate: unavailable. */
		rate[i] = (k < MB_TERMS && re->ev[k]) ? na(flags) : val(sum, flags);
	}
	rc = 0;
out:
	return rc;
}

/* x / CYCLES: a share of unhalted core cycles, the denominator of every
 * stall metric in section 4.3 and Figure 10. */
static struct mb_val share(struct mb_val x, struct mb_val cyc)
{
	unsigned f = x.flags | cyc.flags;

	if (is_na(x) || is_na(cyc) || cyc.v <= 0)
		return na(f);
	return val(x.v / cyc.v, f);
}

/* max() of two shares where either may be missing on a CPU: the other
 * stands in, flagged partial. */
static struct mb_val max2(struct mb_val a, struct mb_val b)
{
	if (is_na(a) && is_na(b))
		return na(a.flags | b.flags);
	if (is_na(a))
		return val(b.v, b.flags | MB_V_PARTIAL);
	if (is_na(b))
		return val(a.v, a.flags | MB_V_PARTIAL);
	return val(a.v > b.v ? a.v : b.v, a.flags | b.flags);
}

static struct mb_val util(struct mb_val rate, double peak)
{
	struct mb_val u;

	if (is_na(rate) || !(peak > 0))
		return na(rate.flags);
	/* Kept above 1: the application beat the calibration, or the event
	 * counts more per line than the benchmark made it (prefetches). */
	u = val(rate.v / peak, rate.flags);
	if (u.v > 1)
		u.flags |= MB_V_OVER;
	return u;
}

int mb_metrics_compute(const struct mb_val rate[MB_NROLES], const struct mb_peaks *pk,
		       struct mb_metrics *m)
{
	static const int rd[MB_NLEVELS] = { MB_R_L1_RD, MB_R_L2_RD, MB_R_L3_RD, MB_R_DRAM_RD,
					    MB_R_RDRAM_RD };
	/* Table 2: no core event counts writes to DRAM. */
	static const int wr[MB_NLEVELS] = { MB_R_L1_WR, MB_R_L2_WR, MB_R_L3_WR, -1, -1 };
	struct mb_val cyc, ld, st, act, noex;
	int rc = -EINVAL;

	if (!rate || !pk || !m)
		goto out;

	/* Section 3.1: utilization = event rate / the maximal event rate the
	 * micro-benchmarks reach on this machine (not the data sheet's peak,
	 * which the practical bandwidths fall short of). */
	for (int l = 0; l < MB_NLEVELS; l++) {
		m->util_rd[l] = util(rate[rd[l]], pk->max_rate[rd[l]]);
		m->util_wr[l] = wr[l] < 0 ? na(0) : util(rate[wr[l]], pk->max_rate[wr[l]]);
	}

	cyc = rate[MB_R_CYCLES];
	act = share(rate[MB_R_ACTIVE], cyc);
	noex = share(rate[MB_R_NO_EXECUTE], cyc);
	/* Cycles either execute a uop or not: one stands in for the other. */
	m->active = !is_na(act) ? act : is_na(noex) ? noex : val(1 - noex.v, noex.flags);
	m->stalled = !is_na(noex) ? noex : is_na(act) ? act : val(1 - act.v, act.flags);

	/*
	 * Memory bound (section 4.3, Figure 10): max of the load stalls
	 * (STALLS_L1D_PENDING, the one event of Figure 8 that leaves out
	 * dependency stalls) and the store stalls (RESOURCE_STALLS:SB), not
	 * their sum, as the two overlap on mixed accesses.  The paper notes
	 * that this underestimates an interval with separate load-bound and
	 * store-bound phases.  A share above 1 is a counting artefact.
	 */
	ld = share(rate[MB_R_STALLS_LOAD], cyc);
	st = share(rate[MB_R_STALLS_STORE], cyc);
	m->memory_bound = max2(ld, st);
	if (!is_na(m->memory_bound) && m->memory_bound.v > 1)
		m->memory_bound = val(1, m->memory_bound.flags | MB_V_CUT);

	/*
	 * Bandwidth bound (Figure 9/10): max of L1D_PEND_MISS:FB_FULL and
	 * OFFCORE_REQUESTS_BUFFER:SQ_FULL, the maximum again because the
	 * load-side events also count the RFOs of stores (Fig. 9b).  Part of
	 * the memory-bound cycles by construction, so it is cut to them.
	 */
	m->bandwidth_bound = max2(share(rate[MB_R_BW_FB_FULL], cyc), share(rate[MB_R_BW_SQ_FULL], cyc));
	if (!is_na(m->bandwidth_bound) && !is_na(m->memory_bound) &&
	    m->bandwidth_bound.v > m->memory_bound.v)
		m->bandwidth_bound = val(m->memory_bound.v,
					 m->bandwidth_bound.flags | m->memory_bound.flags | MB_V_CUT);

	/* Latency bound: the memory-bound cycles that are not bandwidth bound
	 * (Figure 10's remainder). */
	if (is_na(m->memory_bound) || is_na(m->bandwidth_bound))
		m->latency_bound = na(m->memory_bound.flags | m->bandwidth_bound.flags);
	else
		m->latency_bound = val(m->memory_bound.v - m->bandwidth_bound.v,
				       m->memory_bound.flags | m->bandwidth_bound.flags);

	/*
	 * Productive: cycles that execute (the paper's reference for stalls
	 * is CYCLES_NO_EXECUTE, sec. 4.3) and are not memory bound.  The
	 * memory-bound load stalls are no-execute cycles by definition, so
	 * "active minus memory bound" would count them twice; the store
	 * stalls (an allocation stall) may fall in executing cycles, so the
	 * larger of the two is taken out: 1 - max(stalled, memory bound).
	 * As the paper says, mispredicted paths and front-end stalls are not
	 * told apart.  Without a no-execute count, 1 - memory bound, partial.
	 */
	if (is_na(m->memory_bound)) {
		m->productive = is_na(m->active) ? na(m->memory_bound.flags | m->active.flags)
						 : val(m->active.v, m->active.flags | MB_V_PARTIAL);
	} else if (is_na(m->stalled)) {
		m->productive = val(1 - m->memory_bound.v, m->memory_bound.flags | MB_V_PARTIAL);
	} else {
		unsigned f = m->stalled.flags | m->memory_bound.flags;
		double s = m->stalled.v;

		if (m->memory_bound.v > s) {
			s = m->memory_bound.v;
			f |= MB_V_CUT;
		}
		m->productive = val(s >= 1 ? 0 : 1 - s, f);
	}

	/* Stalled but not on memory: dependencies, long-latency arithmetic,
	 * the front end. */
	if (is_na(m->stalled) || is_na(m->memory_bound))
		m->other_stall = na(m->stalled.flags | m->memory_bound.flags);
	else
		m->other_stall = val(m->stalled.v > m->memory_bound.v ? m->stalled.v - m->memory_bound.v : 0,
				     m->stalled.flags | m->memory_bound.flags);
	rc = 0;
out:
	return rc;
}

/*
 * The verdict (the thresholds in metrics.h):
 *
 * - Not memory bound below MB_T_MEMORY_BOUND (0.30) of the cycles.  Even
 *   removing every memory stall then gains less than 1/(1-0.3) = 1.43x.
 *   It is stricter than Intel's top-down 0.2 because the paper's load
 *   event also counts cycles stalled for other reasons while loads are
 *   outstanding (sec. 4.3), so the share runs high on mixed code.  A high
 *   utilization alone does not make a program memory bound: "as long as
 *   the out-of-order engine can keep the execution units busy with useful
 *   work, using all the available bandwidth does not pose a bottleneck"
 *   (sec. 3.2).
 * - Bandwidth bound when the bandwidth-bound cycles are at least
 *   MB_T_BW_SHARE (half) of the memory-bound ones: whichever kind
 *   dominates picks the remedy (cache blocking against prefetching,
 *   sec. 4.3).  Or when a level runs at MB_T_UTIL_HIGH (0.70) of its
 *   calibrated peak: the peaks are the best a tuned benchmark reaches
 *   (sec. 3.1), queueing makes latency climb steeply near them (Little's
 *   law, the paper's [14]), and the core counters undercount the lower
 *   levels (DRAM: 61 of 162 M lines/s in Table 2), so 0.7 measured is
 *   closer to saturation than it reads.  This also decides on CPUs
 *   without FB_FULL/SQ_FULL events (AMD).
 * - Latency bound otherwise.
 *
 * The level is the one of highest utilization, read or write: the
 * utilizations are fractions of each level's own peak, so they compare
 * across levels (a pointer chase through DRAM reaches a far larger share
 * of DRAM's peak than of L1's).
 */
int mb_metrics_classify(const struct mb_metrics *m, struct mb_class *c)
{
	int rc = -EINVAL;

	if (!m || !c)
		goto out;
	c->verdict = MB_NOT_MEMORY_BOUND;
	c->level = MB_NLEVELS;
	c->util = na(0);
	c->flags = 0;
	for (int l = 0; l < MB_NLEVELS; l++) {
		struct mb_val u = max2(m->util_rd[l], m->util_wr[l]);

		if (!is_na(u) && (is_na(c->util) || u.v > c->util.v)) {
			c->util = val(u.v, u.flags & ~(unsigned)MB_V_PARTIAL);
			c->level = (enum mb_level)l;
		}
	}
	rc = -ENODATA;
	if (is_na(m->memory_bound))
		goto out;
	c->flags = m->memory_bound.flags & (MB_V_SCALED | MB_V_PARTIAL);
	rc = 0;
	if (m->memory_bound.v < MB_T_MEMORY_BOUND)
		goto out;
	if (!is_na(m->bandwidth_bound) && m->bandwidth_bound.v >= MB_T_BW_SHARE * m->memory_bound.v) {
		c->verdict = MB_BANDWIDTH_BOUND;
		c->flags |= m->bandwidth_bound.flags & (MB_V_SCALED | MB_V_PARTIAL);
	} else if (!is_na(c->util) && c->util.v >= MB_T_UTIL_HIGH) {
		c->verdict = MB_BANDWIDTH_BOUND;
		c->flags |= c->util.flags & MB_V_SCALED;
	} else {
		c->verdict = MB_LATENCY_BOUND;
		c->flags |= m->bandwidth_bound.flags & (MB_V_SCALED | MB_V_PARTIAL);
	}
out:
	return rc;
}

const char *mb_metrics_verdict_name(enum mb_verdict v)
{
	switch (v) {
	case MB_NOT_MEMORY_BOUND:
		return "not memory bound";
	case MB_BANDWIDTH_BOUND:
		return "bandwidth bound";
	case MB_LATENCY_BOUND:
		return "latency bound";
	}
	return "?";
}
