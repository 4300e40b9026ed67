// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt membound's event table and metrics: every event of every row
 * encodes under LIBPFM_FORCE_PMU (in a child, since libpfm4 reads it
 * once), the uncore names exist in libpfm4, the counter groups keep the
 * hardware's limits; the formulas on counts shaped like the paper's
 * Haswell-EP measurements (Table 2 peaks, Figures 7-10), multiplexing
 * and counters that never ran; the verdicts on those shapes.
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <perfmon/pfmlib.h>

#include "lib/core/pmu_events.h"
#include "lib/tools/membound/events.h"
#include "lib/tools/membound/metrics.h"

#define SEC 1000000000ull /* ns */
#define GHZ 2.5e9         /* the paper's core clock */

/* ---- the table under LIBPFM_FORCE_PMU, in a child ---- */

static char self_exe[4096];

/* Helper mode: the detected PMU, then one line per event of its row:
 * rc role term type config config1 name<TAB>error. */
static int helper_main(void)
{
	struct events_host h;
	const struct mb_event_row *row;

	events_host_detect(&h);
	printf("pmu %s\n", h.pmu);
	row = mb_events_row(h.pmu);
	if (!row)
		return 3;
	for (int i = 0; i < MB_NROLES; i++)
		for (int k = 0; k < MB_TERMS && row->role[i].ev[k]; k++) {
			struct agent_event ev = { 0 };
			char err[256] = "";
			int rc = events_encode(row->role[i].ev[k], 0, &ev, err, sizeof(err));

			printf("%d %d %d %u %#llx %#llx %s\t%s\n", rc, i, k, ev.type,
			       (unsigned long long)ev.config, (unsigned long long)ev.config1,
			       row->role[i].ev[k], err);
		}
	return fflush(stdout) ? 1 : 0;
}

static void forced(const char *pmu, char *out, size_t len)
{
	int fd[2], status;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		execl(self_exe, "test_membound_metrics", "--helper", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (got < len - 1 && (r = read(fd[0], out + got, len - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status))
		fail_msg("LIBPFM_FORCE_PMU=%s: helper exit %d:\n%s", pmu, WEXITSTATUS(status), out);
}

/* Every event of every row encodes as a raw core event (type 4); a
 * failure lists all the names that failed.  Validated rows map every
 * role.  Haswell-EP against the encodings libpfm4 4.13 gives, which are
 * the ones Intel documents for the paper's events. */
static void test_event_table(void **state)
{
	static const struct {
		int role, term;
		unsigned long long config, config1;
	} hswep[] = {
		{ MB_R_CYCLES, 0, 0x3c, 0 },
		{ MB_R_NO_EXECUTE, 0, 0x40004a3, 0 },
		{ MB_R_STALLS_LOAD, 0, 0xc000ca3, 0 },
		{ MB_R_STALLS_STORE, 0, 0x8a2, 0 },
		{ MB_R_BW_FB_FULL, 0, 0x1000248, 0 },
		{ MB_R_BW_SQ_FULL, 0, 0x1b2, 0 },
		{ MB_R_L1_RD, 0, 0x81d0, 0 },
		{ MB_R_L1_WR, 0, 0x82d0, 0 },
		{ MB_R_L2_RD, 0, 0x1f0, 0 },
		{ MB_R_L2_RD, 1, 0x2f0, 0 },
		{ MB_R_L2_WR, 0, 0x10f0, 0 },
		{ MB_R_L3_WR, 0, 0x40f0, 0 },
		/* request ANY_DATA|ANY_RFO = 0x1b3, supplier, SNP_ANY */
		{ MB_R_L3_RD, 0, 0x1b7, 0x3f803c01b3ull },
		{ MB_R_DRAM_RD, 0, 0x1b7, 0x3f804001b3ull },
		{ MB_R_RDRAM_RD, 0, 0x1b7, 0x3fb80001b3ull },
	};
	static char out[16384];
	char bad[4096];
	int nrows = 0;

	(void)state;
	for (const struct mb_event_row *row = mb_events_table(); row->pmu; row++, nrows++) {
		int n = 0, expect = 0, nhits = 0;
		size_t nbad = 0;
		char *l, *save = NULL;

		bad[0] = '\0';
		for (int i = 0; i < MB_NROLES; i++) {
			for (int k = 0; k < MB_TERMS && row->role[i].ev[k]; k++)
				expect++;
			assert_non_null(row->role[i].note);
			if (row->validated && !row->role[i].ev[0])
				fail_msg("%s is validated but has no event for %s", row->pmu,
					 mb_events_role_name((enum mb_role)i));
		}
		assert_non_null(row->role[MB_R_CYCLES].ev[0]);
		forced(row->pmu, out, sizeof(out));
		for (l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			int rc, role, term;
			unsigned type;
			unsigned long long config, config1;
			char name[256];

			if (!strncmp(l, "pmu ", 4)) {
				assert_string_equal(l + 4, row->pmu);
				continue;
			}
			assert_int_equal(sscanf(l, "%d %d %d %u %llx %llx %255[^\t]", &rc, &role, &term,
						&type, &config, &config1, name), 7);
			n++;
			assert_string_equal(name, row->role[role].ev[term]);
			if (rc || type != 4) {
				nbad += (size_t)snprintf(bad + nbad, sizeof(bad) - nbad, "  %s\n", l);
				if (nbad >= sizeof(bad))
					nbad = sizeof(bad) - 1;
				continue;
			}
			if (strcmp(row->pmu, "hsw_ep"))
				continue;
			for (size_t i = 0; i < sizeof(hswep) / sizeof(hswep[0]); i++)
				if (hswep[i].role == role && hswep[i].term == term) {
					assert_int_equal(config, hswep[i].config);
					assert_int_equal(config1, hswep[i].config1);
					nhits++;
				}
		}
		if (bad[0])
			fail_msg("LIBPFM_FORCE_PMU=%s: events that do not encode:\n%s", row->pmu, bad);
		assert_int_equal(n, expect);
		if (!strcmp(row->pmu, "hsw_ep"))
			assert_int_equal(nhits, (int)(sizeof(hswep) / sizeof(hswep[0])));
	}
	assert_true(nrows >= 8);
	assert_null(mb_events_row("no_such_pmu"));
	assert_null(mb_events_row(NULL));
	assert_int_equal(mb_events_row("hsw_ep")->validated, 1);
	assert_int_equal(mb_events_row("skx")->validated, 0);
	assert_string_equal(mb_events_role_name(MB_R_L3_RD), "l3_rd");
}

/*
 * Uncore PMUs are only active where the kernel exposes them, so they
 * cannot be encoded here; libpfm4 still lists their events.  Each name's
 * event and each of its unit masks must exist in box 0's PMU.
 */
static int pmu_index(const char *name)
{
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) == PFM_SUCCESS && !strcmp(pi.name, name))
			return p;
	}
	return -1;
}

static int name_known(int pmu, const char *full)
{
	char buf[256], *tok, *save = NULL;
	pfm_pmu_info_t pi;
	int e;

	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	if (pfm_get_pmu_info((pfm_pmu_t)pmu, &pi) != PFM_SUCCESS)
		return 0;
	snprintf(buf, sizeof(buf), "%s", full);
	tok = strtok_r(buf, ":", &save);
	for (e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
		pfm_event_info_t ei;

		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pfm_get_event_info(e, PFM_OS_NONE, &ei) == PFM_SUCCESS && !strcmp(ei.name, tok))
			break;
	}
	if (e == -1)
		return 0;
	while ((tok = strtok_r(NULL, ":", &save))) {
		pfm_event_info_t ei;
		int a, found = 0;

		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		pfm_get_event_info(e, PFM_OS_NONE, &ei);
		for (a = 0; a < ei.nattrs && !found; a++) {
			pfm_event_attr_info_t ai;

			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			found = pfm_get_event_attr_info(e, a, PFM_OS_NONE, &ai) == PFM_SUCCESS &&
				!strcmp(ai.name, tok);
		}
		if (!found)
			return 0;
	}
	return 1;
}

static void test_uncore_names(void **state)
{
	char box[64];

	(void)state;
	assert_int_equal(events_init(), 0);
	assert_non_null(mb_events_uncore("hsw_ep"));
	assert_null(mb_events_uncore("icl"));
	for (const struct mb_uncore_row *r = mb_events_uncore_table(); r->pmu; r++)
		for (int i = 0; i < MB_NUROLES; i++) {
			int p;

			assert_non_null(r->role[i].box);
			snprintf(box, sizeof(box), "%s0", r->role[i].box);
			p = pmu_index(box);
			if (p < 0)
				fail_msg("%s: libpfm4 has no PMU %s", r->pmu, box);
			for (int k = 0; k < MB_TERMS && r->role[i].ev[k]; k++)
				if (!name_known(p, r->role[i].ev[k]))
					fail_msg("%s: %s::%s unknown to libpfm4", r->pmu, box,
						 r->role[i].ev[k]);
		}
	for (int i = 0; i < MB_NUROLES; i++)
		assert_true(mb_hswep_uncore_peak[i] > 0);
}

/* ---- counter groups ---- */

static int count_class(const struct mb_group *g, const char *a, const char *b)
{
	int n = 0;

	for (unsigned k = 1; k < g->n; k++)
		n += !strncmp(g->ev[k], a, strlen(a)) || (b && !strncmp(g->ev[k], b, strlen(b)));
	return n;
}

static int in_group(const struct mb_group *g, const char *ev)
{
	for (unsigned k = 0; k < g->n; k++)
		if (!strcmp(g->ev[k], ev))
			return 1;
	return 0;
}

static void test_groups(void **state)
{
	struct mb_group g[32];
	const struct mb_event_row *hsw = mb_events_row("hsw_ep");
	int n;

	(void)state;
	for (const struct mb_event_row *r = mb_events_table(); r->pmu; r++) {
		n = mb_events_groups(r, 5, g, 32);
		assert_true(n >= 1);
		for (int i = 0; i < n; i++) {
			assert_true(g[i].n >= 1 && g[i].n <= 5);
			assert_string_equal(g[i].ev[0], r->role[MB_R_CYCLES].ev[0]);
			assert_true(count_class(&g[i], "OFFCORE_RESPONSE", "OCR:") <= 2);
			assert_true(count_class(&g[i], "CYCLE_ACTIVITY:STALLS_L1D_PENDING", NULL) <= 1);
		}
		/* Every event of the row, in exactly one group (CYCLES in all). */
		for (int role = 1; role < MB_NROLES; role++)
			for (int k = 0; k < MB_TERMS && r->role[role].ev[k]; k++) {
				int seen = 0;

				for (int i = 0; i < n; i++)
					seen += in_group(&g[i], r->role[role].ev[k]);
				if (strcmp(r->role[role].ev[k], r->role[MB_R_CYCLES].ev[0]))
					assert_int_equal(seen, 1);
			}
	}
	/* Haswell-EP: 15 distinct events besides CYCLES, 4 per group; the
	 * stall events of Figure 10 share the first group. */
	n = mb_events_groups(hsw, 5, g, 32);
	assert_int_equal(n, 4);
	for (int role = MB_R_STALLS_LOAD; role <= MB_R_BW_SQ_FULL; role++)
		assert_true(in_group(&g[0], hsw->role[role].ev[0]));
	assert_int_equal(mb_events_groups(hsw, 2, g, 32), 15);
	assert_int_equal(mb_events_groups(hsw, 5, g, 3), -ENOSPC);
	assert_int_equal(mb_events_groups(hsw, 1, g, 32), -EINVAL);
	assert_int_equal(mb_events_groups(hsw, MB_GROUP_MAX + 1, g, 32), -EINVAL);
	assert_int_equal(mb_events_groups(NULL, 5, g, 32), -EINVAL);
}

/* ---- the formulas ---- */

static struct mb_count cnt[MB_NROLES][MB_TERMS];
static struct mb_val rate[MB_NROLES];
static struct mb_metrics met;
static struct mb_peaks peaks;

#define assert_near(a, b) assert_near_((a), (b), __LINE__)
static void assert_near_(double a, double b, int line)
{
	if (!(fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1)))
		fail_msg("line %d: %.12g != %.12g", line, a, b);
}

/* Role total `events` over `sec` seconds of running time, split over the
 * role's terms (the remainder in the first), each term fully running. */
static void put(const struct mb_event_row *r, int role, double events, double sec)
{
	int nt = 0;
	uint64_t total = (uint64_t)llround(events), each;

	while (nt < MB_TERMS && r->role[role].ev[nt])
		nt++;
	assert_true(nt > 0);
	each = total / (uint64_t)nt;
	for (int k = 0; k < nt; k++) {
		cnt[role][k].value = k ? each : total - each * (uint64_t)(nt - 1);
		cnt[role][k].enabled = cnt[role][k].running = (uint64_t)llround(sec * 1e9);
	}
}

static void reset(void)
{
	memset(cnt, 0, sizeof(cnt));
	for (int i = 0; i < MB_NROLES; i++)
		peaks.max_rate[i] = mb_hswep_core_peak[i];
}

static void compute(const struct mb_event_row *r)
{
	assert_int_equal(mb_metrics_rates(r, (const struct mb_count(*)[MB_TERMS])cnt, rate), 0);
	assert_int_equal(mb_metrics_compute(rate, &peaks, &met), 0);
}

/* Table 2: counts at exactly the maximal rates for 1 s are 100% of every
 * level, half of them 50%; over 2 s the same counts are 50% again. */
static void test_utilization(void **state)
{
	const struct mb_event_row *r = mb_events_row("hsw_ep");
	static const int roles[] = { MB_R_L1_RD, MB_R_L1_WR, MB_R_L2_RD, MB_R_L2_WR, MB_R_L3_RD,
				     MB_R_L3_WR, MB_R_DRAM_RD, MB_R_RDRAM_RD };
	const double frac[] = { 1.0, 0.5 };

	(void)state;
	for (size_t f = 0; f < 2; f++) {
		reset();
		put(r, MB_R_CYCLES, GHZ, 1);
		for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
			put(r, roles[i], mb_hswep_core_peak[roles[i]] * frac[f], 1);
		compute(r);
		for (int l = 0; l < MB_NLEVELS; l++) {
			assert_near(met.util_rd[l].v, frac[f]);
			assert_int_equal(met.util_rd[l].flags, 0);
		}
		for (int l = MB_L1; l <= MB_L3; l++) {
			assert_near(met.util_wr[l].v, frac[f]);
			assert_int_equal(met.util_wr[l].flags, 0);
		}
		/* Table 2: no core event for DRAM writes. */
		assert_true(met.util_wr[MB_DRAM].flags & MB_V_NA);
		assert_true(isnan(met.util_wr[MB_RDRAM].v));
	}
	reset();
	put(r, MB_R_CYCLES, 2 * GHZ, 2);
	put(r, MB_R_L3_RD, mb_hswep_core_peak[MB_R_L3_RD], 2);
	compute(r);
	assert_near(met.util_rd[MB_L3].v, 0.5);
	/* The paper's L3 read is three OFFCORE_RESPONSE events summed. */
	assert_int_equal(cnt[MB_R_L3_RD][2].running, 2 * SEC);
	assert_true(cnt[MB_R_L3_RD][2].value > 0);

	/* Above the peak: kept as measured, flagged. */
	reset();
	put(r, MB_R_L2_RD, 1.2 * mb_hswep_core_peak[MB_R_L2_RD], 1);
	compute(r);
	assert_near(met.util_rd[MB_L2].v, 1.2);
	assert_true(met.util_rd[MB_L2].flags & MB_V_OVER);
	/* No calibration for a role: unavailable, not infinite. */
	peaks.max_rate[MB_R_L2_RD] = 0;
	peaks.max_rate[MB_R_L1_RD] = NAN;
	put(r, MB_R_L1_RD, 1e9, 1);
	compute(r);
	assert_true(met.util_rd[MB_L2].flags & MB_V_NA);
	assert_true(met.util_rd[MB_L1].flags & MB_V_NA);
}

/* Counts shaped like Figures 7-9 over 1 s at 2.5 GHz. */
static void bandwidth_shape(const struct mb_event_row *r)
{
	/* Fig. 9, streaming from DRAM: 80% no-execute cycles, nearly all of
	 * them with a miss pending; the queues full most of that time. */
	put(r, MB_R_CYCLES, GHZ, 1);
	put(r, MB_R_ACTIVE, 0.20 * GHZ, 1);
	put(r, MB_R_NO_EXECUTE, 0.80 * GHZ, 1);
	put(r, MB_R_STALLS_LOAD, 0.76 * GHZ, 1);
	put(r, MB_R_STALLS_STORE, 0.02 * GHZ, 1);
	put(r, MB_R_BW_FB_FULL, 0.40 * GHZ, 1);
	put(r, MB_R_BW_SQ_FULL, 0.72 * GHZ, 1);
	put(r, MB_R_L1_RD, 0.2 * 4993e6, 1);
	put(r, MB_R_L2_RD, 0.3 * 1546e6, 1);
	put(r, MB_R_L3_RD, 0.5 * 467e6, 1);
	put(r, MB_R_DRAM_RD, 0.9 * 61e6, 1);
	put(r, MB_R_RDRAM_RD, 0.01 * 63e6, 1);
}

static void latency_shape(const struct mb_event_row *r)
{
	/* Fig. 7, pointer chasing in DRAM: ~200 cycles per load, one miss at
	 * a time, no queue ever full. */
	put(r, MB_R_CYCLES, GHZ, 1);
	put(r, MB_R_ACTIVE, 0.04 * GHZ, 1);
	put(r, MB_R_NO_EXECUTE, 0.96 * GHZ, 1);
	put(r, MB_R_STALLS_LOAD, 0.94 * GHZ, 1);
	put(r, MB_R_STALLS_STORE, 0, 1);
	put(r, MB_R_BW_FB_FULL, 0.001 * GHZ, 1);
	put(r, MB_R_BW_SQ_FULL, 0.002 * GHZ, 1);
	put(r, MB_R_L1_RD, GHZ / 200, 1);
	put(r, MB_R_L2_RD, GHZ / 200, 1);
	put(r, MB_R_L3_RD, GHZ / 200, 1);
	put(r, MB_R_DRAM_RD, GHZ / 200, 1);
	put(r, MB_R_RDRAM_RD, 0, 1);
}

static void compute_shape(const struct mb_event_row *r)
{
	/* Arithmetic on L1-resident data: busy load ports, few stalls. */
	put(r, MB_R_CYCLES, GHZ, 1);
	put(r, MB_R_ACTIVE, 0.90 * GHZ, 1);
	put(r, MB_R_NO_EXECUTE, 0.10 * GHZ, 1);
	put(r, MB_R_STALLS_LOAD, 0.05 * GHZ, 1);
	put(r, MB_R_STALLS_STORE, 0.02 * GHZ, 1);
	put(r, MB_R_BW_FB_FULL, 0.01 * GHZ, 1);
	put(r, MB_R_BW_SQ_FULL, 0.0, 1);
	put(r, MB_R_L1_RD, 0.9 * 4993e6, 1);
	put(r, MB_R_L2_RD, 0.01 * 1546e6, 1);
}

static void test_decomposition(void **state)
{
	const struct mb_event_row *r = mb_events_row("hsw_ep");
	struct mb_class c;

	(void)state;
	/* Bandwidth bound: memory bound ~ bandwidth bound, latency ~ 0. */
	reset();
	bandwidth_shape(r);
	compute(r);
	assert_near(met.active.v, 0.20);
	assert_near(met.stalled.v, 0.80);
	assert_near(met.memory_bound.v, 0.76);
	assert_near(met.bandwidth_bound.v, 0.72);
	assert_near(met.latency_bound.v, 0.04);
	assert_near(met.productive.v, 0.20);
	assert_near(met.other_stall.v, 0.04);
	assert_int_equal(met.memory_bound.flags, 0);
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_BANDWIDTH_BOUND);
	assert_int_equal(c.level, MB_DRAM);
	assert_near(c.util.v, 0.9);
	assert_int_equal(c.flags, 0);

	/* Latency bound dominant. */
	reset();
	latency_shape(r);
	compute(r);
	assert_near(met.memory_bound.v, 0.94);
	assert_near(met.bandwidth_bound.v, 0.002);
	assert_near(met.latency_bound.v, 0.938);
	assert_true(met.latency_bound.v > 10 * met.bandwidth_bound.v);
	assert_near(met.productive.v, 0.04);
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_LATENCY_BOUND);
	assert_int_equal(c.level, MB_DRAM); /* 12.5 M/s is 20% of DRAM, 2.7% of L3 */

	/* Busy but not memory bound, however high L1's utilization (3.2). */
	reset();
	compute_shape(r);
	compute(r);
	assert_near(met.memory_bound.v, 0.05);
	assert_near(met.productive.v, 0.90);
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_NOT_MEMORY_BOUND);
	assert_int_equal(c.level, MB_L1);

	/* Stores: RESOURCE_STALLS:SB exceeds the load stalls and the
	 * no-execute cycles (an allocation stall while older uops execute):
	 * the max, and productive cut so the shares add up. */
	reset();
	bandwidth_shape(r);
	put(r, MB_R_STALLS_LOAD, 0.30 * GHZ, 1);
	put(r, MB_R_STALLS_STORE, 0.85 * GHZ, 1);
	compute(r);
	assert_near(met.memory_bound.v, 0.85);
	assert_near(met.productive.v, 0.15);
	assert_true(met.productive.flags & MB_V_CUT);
	assert_near(met.other_stall.v, 0);

	/* Bandwidth-bound cycles above the memory-bound ones: cut to them. */
	reset();
	latency_shape(r);
	put(r, MB_R_STALLS_LOAD, 0.30 * GHZ, 1);
	put(r, MB_R_BW_SQ_FULL, 0.50 * GHZ, 1);
	compute(r);
	assert_near(met.bandwidth_bound.v, 0.30);
	assert_true(met.bandwidth_bound.flags & MB_V_CUT);
	assert_near(met.latency_bound.v, 0);
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_BANDWIDTH_BOUND);

	/* Just below and at the memory-bound threshold. */
	reset();
	latency_shape(r);
	put(r, MB_R_STALLS_LOAD, (MB_T_MEMORY_BOUND - 0.01) * GHZ, 1);
	compute(r);
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_NOT_MEMORY_BOUND);
	put(r, MB_R_STALLS_LOAD, MB_T_MEMORY_BOUND * GHZ, 1);
	compute(r);
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_LATENCY_BOUND);

	assert_string_equal(mb_metrics_verdict_name(MB_LATENCY_BOUND), "latency bound");
}

/* Multiplexed counts are scaled, and every metric built on them says so;
 * a counter that never ran is unavailable, never a division by zero. */
static void test_multiplexing(void **state)
{
	const struct mb_event_row *r = mb_events_row("hsw_ep");
	struct mb_val s;
	struct mb_class c;

	(void)state;
	s = mb_metrics_scale((struct mb_count){ 100, 4 * SEC, SEC });
	assert_near(s.v, 400);
	assert_int_equal(s.flags, MB_V_SCALED);
	s = mb_metrics_scale((struct mb_count){ 100, SEC, SEC });
	assert_near(s.v, 100);
	assert_int_equal(s.flags, 0);
	s = mb_metrics_scale((struct mb_count){ 100, SEC, 0 });
	assert_true(isnan(s.v));
	assert_true(s.flags & MB_V_NA);
	s = mb_metrics_scale((struct mb_count){ 0, 0, 0 });
	assert_true(s.flags & MB_V_NA);

	/* The bandwidth shape with SQ_FULL's group on the PMU a quarter of
	 * the time: the same rates, flagged through bandwidth and latency
	 * bound and the verdict, and nowhere else. */
	reset();
	bandwidth_shape(r);
	cnt[MB_R_BW_SQ_FULL][0].value /= 4;
	cnt[MB_R_BW_SQ_FULL][0].running /= 4;
	compute(r);
	assert_near(rate[MB_R_BW_SQ_FULL].v, 0.72 * GHZ);
	assert_true(rate[MB_R_BW_SQ_FULL].flags & MB_V_SCALED);
	assert_near(met.bandwidth_bound.v, 0.72);
	assert_true(met.bandwidth_bound.flags & MB_V_SCALED);
	assert_true(met.latency_bound.flags & MB_V_SCALED);
	assert_false(met.memory_bound.flags & MB_V_SCALED);
	assert_false(met.productive.flags & MB_V_SCALED);
	assert_false(met.util_rd[MB_DRAM].flags & MB_V_SCALED);
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_BANDWIDTH_BOUND);
	assert_true(c.flags & MB_V_SCALED);

	/* CYCLES scaled: every share is. */
	reset();
	bandwidth_shape(r);
	cnt[MB_R_CYCLES][0].value /= 2;
	cnt[MB_R_CYCLES][0].running /= 2;
	compute(r);
	assert_near(met.memory_bound.v, 0.76);
	assert_true(met.active.flags & MB_V_SCALED);
	assert_true(met.memory_bound.flags & MB_V_SCALED);
	assert_true(met.productive.flags & MB_V_SCALED);
	assert_true(met.other_stall.flags & MB_V_SCALED);
	assert_false(met.util_rd[MB_L3].flags & MB_V_SCALED);

	/* One term of L3_RD scaled: the sum and its utilization are. */
	reset();
	bandwidth_shape(r);
	cnt[MB_R_L3_RD][1].value /= 2;
	cnt[MB_R_L3_RD][1].running /= 2;
	compute(r);
	/* (the halved count lost half an event to integer division) */
	assert_true(fabs(met.util_rd[MB_L3].v - 0.5) < 1e-7);
	assert_true(met.util_rd[MB_L3].flags & MB_V_SCALED);

	/* One term never ran: the sum is unavailable, not low. */
	cnt[MB_R_L3_RD][2].running = 0;
	compute(r);
	assert_true(met.util_rd[MB_L3].flags & MB_V_NA);
	assert_true(isnan(met.util_rd[MB_L3].v));

	/* CYCLES never ran: every share unavailable, no verdict. */
	reset();
	bandwidth_shape(r);
	cnt[MB_R_CYCLES][0].running = 0;
	compute(r);
	assert_true(met.memory_bound.flags & MB_V_NA);
	assert_true(met.bandwidth_bound.flags & MB_V_NA);
	assert_true(met.latency_bound.flags & MB_V_NA);
	assert_true(met.productive.flags & MB_V_NA);
	assert_true(met.active.flags & MB_V_NA);
	assert_false(met.util_rd[MB_DRAM].flags & MB_V_NA);
	assert_int_equal(mb_metrics_classify(&met, &c), -ENODATA);
	assert_int_equal(c.level, MB_DRAM);

	/* Nothing ran at all. */
	reset();
	compute(r);
	for (int i = 0; i < MB_NROLES; i++)
		assert_true(rate[i].flags & MB_V_NA);
	assert_int_equal(mb_metrics_classify(&met, &c), -ENODATA);
	assert_int_equal(c.level, MB_NLEVELS);

	assert_int_equal(mb_metrics_rates(NULL, (const struct mb_count(*)[MB_TERMS])cnt, rate), -EINVAL);
	assert_int_equal(mb_metrics_compute(rate, NULL, &met), -EINVAL);
	assert_int_equal(mb_metrics_classify(NULL, &c), -EINVAL);
}

/* Zen 3 lacks the load-stall and queue-full events: memory bound from
 * the store stalls alone (partial), no bandwidth-bound share, so the
 * verdict rests on the utilization. */
static void test_partial_row(void **state)
{
	const struct mb_event_row *r = mb_events_row("amd64_fam19h_zen3");
	struct mb_class c;

	(void)state;
	assert_non_null(r);
	reset();
	put(r, MB_R_CYCLES, GHZ, 1);
	put(r, MB_R_STALLS_STORE, 0.5 * GHZ, 1);
	put(r, MB_R_L1_RD, 0.1 * 4993e6, 1);
	put(r, MB_R_DRAM_RD, 0.8 * 61e6, 1);
	compute(r);
	assert_true(rate[MB_R_STALLS_LOAD].flags & MB_V_NA);
	assert_near(met.memory_bound.v, 0.5);
	assert_true(met.memory_bound.flags & MB_V_PARTIAL);
	assert_true(met.bandwidth_bound.flags & MB_V_NA);
	assert_true(met.latency_bound.flags & MB_V_NA);
	assert_true(met.active.flags & MB_V_NA);
	assert_near(met.productive.v, 0.5);
	assert_true(met.productive.flags & MB_V_PARTIAL);
	assert_true(met.util_rd[MB_L2].flags & MB_V_NA); /* not counted */
	assert_true(met.util_wr[MB_L2].flags & MB_V_NA); /* no event */
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_BANDWIDTH_BOUND);
	assert_int_equal(c.level, MB_DRAM);
	assert_true(c.flags & MB_V_PARTIAL);

	put(r, MB_R_DRAM_RD, 0.3 * 61e6, 1);
	compute(r);
	assert_int_equal(mb_metrics_classify(&met, &c), 0);
	assert_int_equal(c.verdict, MB_LATENCY_BOUND);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_table),
		cmocka_unit_test(test_uncore_names),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_utilization),
		cmocka_unit_test(test_decomposition),
		cmocka_unit_test(test_multiplexing),
		cmocka_unit_test(test_partial_row),
	};
	ssize_t n;

	if (argc == 2 && !strcmp(argv[1], "--helper"))
		return helper_main();
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	assert_true(n > 0);
	self_exe[n] = '\0';
	unsetenv("LIBPFM_FORCE_PMU");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
