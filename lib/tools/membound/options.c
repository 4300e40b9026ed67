// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt membound's command line, the calibration a run measures against
 * (copied into the profile's meta, so a report needs nothing live), the
 * counters of a pmu host, and the run's report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib.h>

#include "lib/core/cliopt.h"
#include "lib/core/pmu_events.h"
#include "lib/core/run.h"
#include "lib/core/view_print.h"
#include "lib/tools/membound/calib.h"
#include "lib/tools/membound/events.h"
#include "lib/tools/membound/parts.h"

#define MB_DEFAULT_INTERVAL_MS 100
/*
 * The soft source's default rate.  A verdict rests on shares of an
 * interval's samples: at 200 Hz a 100 ms interval of one thread has 20,
 * which puts a share of 50% within +-22 points (two standard errors);
 * the thresholds (25%, 50%, 70%) sit far from what the kernels show (near
 * 0 or near 100%), and a phase pools its intervals.  500 Hz cost zstd
 * 1.12x and stencil 1.07x on this project's VM, 200 Hz about 1.03x
 * (tests/bench/run.sh membound); a sample costs 80-700 us of CPU all told
 * there, 12-26 us of it in the handler.
 */
#define MB_SOFT_HZ 200

static struct {
	const char *interval;
	uint64_t interval_ms;
	int no_probe, probe;
	char method[32];
	char events[512];   /* the counters used, for the meta */
	char pmu[32];       /* libpfm4's name of the PMU they are of */
	char counters[160]; /* why there are none */
	struct calib cal;
	int have_cal;
} mb_o;

/* `cdt membound --calibrate ...` runs no program: the calibration's own
 * command (calib_cli.c). */
int membound_command(int argc, char **argv)
{
	for (int i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--calibrate"))
			return calib_main(argc, argv);
	}
	return -1;
}

static void mb_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt membound [options] [--] program [args...]\n"
		"       cdt membound --calibrate [--quick] [--force] [--csv] [--threads N]\n"
		"\n"
		"Is the program memory bound, at which level (L1, L2, L3, DRAM), bandwidth or\n"
		"latency, and when?  Measured against this machine's own peaks, which\n"
		"--calibrate measures once and keeps in $XDG_CACHE_HOME/cdt (a run without\n"
		"them makes a quick calibration first).  With a PMU: counters per thread and\n"
		"interval.  Without: an estimate from samples, probing where each sampled\n"
		"line was, and labelled as one.\n"
		"\n"
		"  -I, --interval MS     timeline interval (default %d)\n"
		"      --no-probe        soft estimate: do not time a load of sampled lines\n"
		"      --calibrate       measure this machine's bandwidth and latency per level\n"
		"                        (cdt membound --calibrate --help)\n", MB_DEFAULT_INTERVAL_MS);
}

static int mb_option(struct run_opts *o, int argc, char **argv, int *i)
{
	int r;

	(void)o;
	if ((r = cliopt_match(argc, argv, i, "-I", "--interval", &mb_o.interval)))
		return r;
	if ((r = cliopt_match(argc, argv, i, NULL, "--no-probe", NULL)) > 0) {
		mb_o.no_probe = 1;
		return r;
	}
	return r;
}

/*
 * Events a group may hold, the cycles event included: the PMU's
 * general-purpose counters (at most 4, what one hyperthread gets on
 * Intel), plus the cycles event, which the kernel puts on a fixed counter.
 * A group larger than the PMU would never be scheduled at all.
 */
static unsigned mb_group_size(const char *pmu)
{
	pfm_pmu_info_t info;
	unsigned gp = 4;
	int i;

	if (pfm_initialize() != PFM_SUCCESS)
		return gp + 1;
	pfm_for_all_pmus(i) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)i, &info) == PFM_SUCCESS && info.name &&
		    !strcmp(info.name, pmu) && info.num_cntrs > 0 && info.num_cntrs < (int)gp)
			gp = (unsigned)info.num_cntrs;
	}
	return gp + 1;
}

/*
 * The indicator events of a pmu host, into o->counter[]: the row's
 * groups (mb_events_groups: cycles first in each, the stall events in the
 * first), each a perf group read in one window, as many as the agent's
 * counters take.  Groups that do not fit the PMU together are rotated by
 * the kernel; each count comes with its group's times, and the model
 * scales by them and marks what it scaled.  Roles of groups left out are
 * said in the meta and are empty in the views.
 */
static void mb_counters(struct run_opts *o, const struct events_host *h)
{
	const struct mb_event_row *row = mb_events_row(h->pmu);
	struct mb_group g[8];
	size_t n = 0, left = 0;
	int ng;
	char err[256];

	o->ncounters = 0;
	if (!h->hw_pmu) {
		snprintf(mb_o.counters, sizeof(mb_o.counters), "no hardware PMU (%s)",
			 h->hypervisor[0] ? h->hypervisor : "none found");
		return;
	}
	if (!row) {
		snprintf(mb_o.counters, sizeof(mb_o.counters), "no indicator events known for "
			 "PMU '%s'", h->pmu);
		return;
	}
	ng = mb_events_groups(row, mb_group_size(h->pmu), g, sizeof(g) / sizeof(g[0]));
	for (int gi = 0; gi < ng; gi++) {
		uint32_t first = o->ncounters;

		if (o->ncounters + g[gi].n > MEMBOUND_MAX_COUNTERS) {
			left += g[gi].n - 1;
			continue;
		}
		for (unsigned k = 0; k < g[gi].n; k++) {
			struct agent_event *ev = &o->counter[o->ncounters];

			if (events_encode(g[gi].ev[k], 0, ev, err, sizeof(err)) ||
			    events_try_open(ev)) {
				fprintf(stderr, "cdt membound: warning: %s: %s\n", g[gi].ev[k],
					err[0] ? err : "does not open");
				if (!k) /* no cycles: the group's rates mean nothing */
					break;
				continue;
			}
			ev->kind = 0;
			ev->group = (uint32_t)gi;
			o->ncounters++;
			n += (size_t)snprintf(mb_o.events + n, sizeof(mb_o.events) - n, "%s%s",
					      n ? "," : "", g[gi].ev[k]);
			if (n >= sizeof(mb_o.events))
				n = sizeof(mb_o.events) - 1;
		}
		if (o->ncounters == first + 1) /* cycles alone */
			o->ncounters = first;
	}
	snprintf(mb_o.pmu, sizeof(mb_o.pmu), "%s", h->pmu);
	o->counter_interval_ns = mb_o.interval_ms * 1000000ull;
	snprintf(mb_o.counters, sizeof(mb_o.counters), "%s%s", !o->ncounters ?
		 "none of the events opened" : row->validated ? "validated" :
		 "not validated on this CPU", left ? "; some indicators not counted (more "
		 "groups than the agent's counters)" : "");
}

static int mb_prepare(struct run_opts *o)
{
	struct membound_params *mp = (struct membound_params *)o->params;
	struct events_host h;
	int err;

	mb_o.interval_ms = MB_DEFAULT_INTERVAL_MS;
	if (mb_o.interval && (cliopt_u64("-I", mb_o.interval, 0, &mb_o.interval_ms) ||
			      !mb_o.interval_ms)) {
		if (!mb_o.interval_ms)
			fprintf(stderr, "cdt membound: -I must be 1 ms or more\n");
		return -EINVAL;
	}
	/* The peaks, before the program runs: a missing calibration is made
	 * now (quick) rather than after the run, so the run is not slowed. */
	err = calib_ensure(&mb_o.cal, stderr);
	if (err) {
		fprintf(stderr, "cdt membound: no calibration of this machine: %s\n",
			strerror(-err));
		return err;
	}
	mb_o.have_cal = 1;
	events_host_detect(&h);
	mb_counters(o, &h);
	if (o->ncounters) {
		snprintf(mb_o.method, sizeof(mb_o.method), "counters");
	} else {
		snprintf(mb_o.method, sizeof(mb_o.method), "soft estimate");
		mb_o.probe = !mb_o.no_probe;
		if (mb_o.probe)
			mp->flags |= MB_P_PROBE;
	}
	return 0;
}

static int mb_meta_d(struct profile *p, const char *key, double v)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.12g", v);
	return profile_set_meta(p, key, buf);
}

/* The calibration into the meta (calib_*), as model.c reads it. */
static int mb_calib_meta(struct profile *p, const struct calib *c)
{
	static const char *const lv[MB_NLEVELS] = { "l1", "l2", "l3", "dram", "rdram" };
	char key[64];
	int err = 0;

	for (int l = 0; l < MB_NLEVELS && !err; l++) {
#define MB_PUT(name, v) \
	(snprintf(key, sizeof(key), "calib_%s_%s", lv[l], name), mb_meta_d(p, key, (v)))
		err = MB_PUT("size", (double)c->lvl[l].size) ||
		      MB_PUT("lat_ns", c->lvl[l].lat_ns) ||
		      MB_PUT("probe_ns", c->lvl[l].probe_ns_p50) ||
		      MB_PUT("rd_bw1", c->lvl[l].rd_bw1) ||
		      MB_PUT("wr_bw1", c->lvl[l].wr_bw1) ||
		      MB_PUT("rd_bwn", c->lvl[l].rd_bwN) ||
		      MB_PUT("wr_bwn", c->lvl[l].wr_bwN);
#undef MB_PUT
	}
	/* The transfer roles' peaks of a pmu host, for utilization. */
	for (int r = 0; r < MB_NROLES && !err && mb_o.pmu[0]; r++) {
		double peak = calib_peak(c, mb_events_row(mb_o.pmu), r);

		snprintf(key, sizeof(key), "calib_peak_%s", mb_events_role_name((enum mb_role)r));
		if (peak > 0)
			err = mb_meta_d(p, key, peak);
	}
	if (!err)
		err = mb_meta_d(p, "calib_tsc_hz", c->tsc_hz) ||
		      mb_meta_d(p, "calib_threads", (double)c->nthreads) ||
		      profile_set_meta(p, "calib_key", c->key) ||
		      profile_set_meta(p, "calib_quick", c->quick ? "1" : "0") ||
		      mb_meta_d(p, "calib_time", (double)c->time);
	return err ? -ENOMEM : 0;
}

static int mb_finish(const struct run_opts *o, struct profile *p)
{
	char buf[32];
	int err;

	(void)o;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mb_o.interval_ms);
	err = profile_set_meta(p, "interval_ms", buf) ||
	      profile_set_meta(p, "membound_method", mb_o.method) ||
	      profile_set_meta(p, "membound_counters", mb_o.counters) ||
	      profile_set_meta(p, "probe", mb_o.probe ? "on" : "off") ? -ENOMEM : 0;
	if (!err && mb_o.events[0])
		err = profile_set_meta(p, "membound_events", mb_o.events) ||
		      profile_set_meta(p, "membound_pmu", mb_o.pmu) ? -ENOMEM : 0;
	if (!err && mb_o.have_cal)
		err = mb_calib_meta(p, &mb_o.cal);
	return err;
}

static int mb_print(const struct profile *p)
{
	return view_print_run_report(p, membound_views, membound_report);
}

const struct run_ops membound_run = {
	.soft_hz = MB_SOFT_HZ,
	/* Footprints are per data object. */
	.objects = 1,
	.usage = mb_usage,
	.option = mb_option,
	.prepare = mb_prepare,
	.finish = mb_finish,
	.report = mb_print,
};
