// SPDX-License-Identifier: GPL-2.0-only
/* cdt fvar's command line: its metrics and thresholds, the run's meta and its report. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/cliopt.h"
#include "lib/core/dbtrap.h"
#include "lib/core/pmu_events.h"
#include "lib/core/run.h"
#include "lib/core/view_print.h"
#include "lib/tools/fvar/fvar.h"
#include "lib/tools/fvar/model.h"
#include "lib/tools/fvar/parts.h"

/*
 * The budget: a measured instance costs its sample, two debug traps
 * (entry and return, 17-45 us each to deliver in a KVM guest) and two
 * retargetings of a debug register, each of which makes the kernel
 * reschedule the thread's perf events (perf attributes about 13 us to
 * each): 120 to 380 us of the program's time all told per sample
 * (tests/bench, us/smp all).  At 100 samples per second of CPU time that
 * is 1 to 4%, 1.03x geomean on the bench; 200 per second cost 1.04x.
 */
#define FV_SOFT_DEFAULT_HZ 100u
/* pmu: cycles between samples, about 100 per second at 2 GHz. */
#define FV_PMU_DEFAULT_PERIOD 20000003ull
/* At each level, the chance to measure a caller instead (caller_p16/65536). */
#define FV_CALLER_P16 16384u /* 1/4 */

/* Metrics without a PMU; anything else is a libpfm4 event name. */
static const struct {
	const char *name;
	uint32_t config; /* PERF_COUNT_SW_*, or ~0u for the agent's clock */
	uint32_t flags;
	const char *help;
} fv_soft[] = {
	{ "wall", ~0u, FV_M_TIME, "wall-clock time, ns (the vDSO clock)" },
	{ "cpu", PERF_COUNT_SW_TASK_CLOCK, FV_M_TIME, "the thread's CPU time, ns (task-clock)" },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS, 0, "page faults" },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 0, "context switches" },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 0, "moves to another CPU" },
};
#define FV_NSOFT (sizeof(fv_soft) / sizeof(fv_soft[0]))

static const char *fv_events; /* -e, kept until prepare */
static char fv_chosen[256];   /* the metrics measured, for the meta */
static double fv_flag[3] = { FV_FLAG_SHARE, FV_FLAG_CV, FV_FLAG_CV_THREADS };

static void fvar_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt fvar [options] [--] program [args...]\n"
		"\n"
		"Measure whole instances of the functions of program, from call to return,\n"
		"and find those whose cost varies from call to call or from thread to\n"
		"thread.  Writes a profile for cdt report and prints the report on stderr\n"
		"(the program keeps stdout).\n"
		"\n"
		"  -e, --event LIST      metrics per instance, comma-separated (default\n"
		"                        cpu,wall without a PMU, cycles,instructions with one):\n");
	for (size_t i = 0; i < FV_NSOFT; i++)
		fprintf(f, "                          %-10s %s\n", fv_soft[i].name, fv_soft[i].help);
	fprintf(f,
		"                        or libpfm4 event names (with a PMU); the first ranks\n"
		"      --depth N         open instances kept per thread, 1 to %u (default %u)\n"
		"      --stack BYTES     callers' stack kept for a call path, 0 to %u\n"
		"                        (default %u; 0: call sites only)\n"
		"      --flag-share X    flag functions above this share of the run (default %g)\n"
		"      --flag-cv X       ... and above this CV within threads (default %g)\n"
		"      --flag-cv-threads X  ... or above this CV across threads (default %g)\n",
		FV_MAX_DEPTH, FV_DEFAULT_DEPTH, FV_MAX_STACK, FV_DEFAULT_STACK, FV_FLAG_SHARE,
		FV_FLAG_CV, FV_FLAG_CV_THREADS);
}

static void fvar_defaults(struct run_opts *o)
{
	struct fvar_params *fp = (struct fvar_params *)o->params;

	fp->depth = FV_DEFAULT_DEPTH;
	fp->caller_p16 = FV_CALLER_P16;
	fp->stack_bytes = FV_DEFAULT_STACK;
}

static int fv_fraction(const char *opt, const char *v, double *out)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !(x >= 0 && x <= 100)) {
		fprintf(stderr, "cdt fvar: %s takes a fraction such as 0.2, not '%s'\n", opt, v);
		return -EINVAL;
	}
	*out = x;
	return 1;
}

static int fvar_option(struct run_opts *o, int argc, char **argv, int *i)
{
	struct fvar_params *fp = (struct fvar_params *)o->params;
	static const char *const flags[3] = { "--flag-share", "--flag-cv", "--flag-cv-threads" };
	const char *v;
	uint64_t n;
	int r;

	if ((r = cliopt_match(argc, argv, i, "-e", "--event", &v))) {
		if (r < 0)
			return -EINVAL;
		fv_events = v;
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--depth", &v))) {
		if (r < 0)
			return -EINVAL;
		if (cliopt_parse_u64(v, 0, &n) || n < 1 || n > FV_MAX_DEPTH) {
			fprintf(stderr, "cdt fvar: --depth takes 1 to %u, not '%s'\n", FV_MAX_DEPTH, v);
			return -EINVAL;
		}
		fp->depth = (uint32_t)n;
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--stack", &v))) {
		if (r < 0)
			return -EINVAL;
		if (cliopt_parse_u64(v, 0, &n) || n > FV_MAX_STACK) {
			fprintf(stderr, "cdt fvar: --stack takes 0 to %u bytes, not '%s'\n",
				FV_MAX_STACK, v);
			return -EINVAL;
		}
		fp->stack_bytes = (uint32_t)(n & ~7ull);
		return 1;
	}
	for (int k = 0; k < 3; k++)
		if ((r = cliopt_match(argc, argv, i, NULL, flags[k], &v)))
			return r < 0 ? -EINVAL : fv_fraction(flags[k], v, &fv_flag[k]);
	return 0;
}

static void fv_list_soft(void)
{
	fprintf(stderr, "cdt fvar: metrics without a PMU:");
	for (size_t i = 0; i < FV_NSOFT; i++)
		fprintf(stderr, " %s", fv_soft[i].name);
	fprintf(stderr, "\n");
}

/* One metric into fp and o's counters; 0 or -EINVAL (said). */
static int fv_metric(struct run_opts *o, struct fvar_params *fp, const char *name, int hw)
{
	struct fvar_metric *m = &fp->metric[fp->nmetrics];
	struct agent_event *ev;
	char err[256];
	int r;

	if (fp->nmetrics >= FV_MAX_METRICS) {
		fprintf(stderr, "cdt fvar: at most %d metrics\n", FV_MAX_METRICS);
		return -EINVAL;
	}
	for (size_t i = 0; i < FV_NSOFT; i++) {
		if (strcmp(name, fv_soft[i].name))
			continue;
		m->flags = fv_soft[i].flags;
		if (fv_soft[i].config == ~0u) {
			m->src = FV_SRC_WALL;
		} else {
			ev = &o->counter[o->ncounters];
			memset(ev, 0, sizeof(*ev));
			ev->type = PERF_TYPE_SOFTWARE;
			ev->config = fv_soft[i].config;
			m->src = FV_SRC_COUNTER;
			m->counter = o->ncounters++;
		}
		fp->nmetrics++;
		return 0;
	}
	ev = &o->counter[o->ncounters];
	r = events_encode(name, 0, ev, err, sizeof(err));
	if (r || !hw) {
		if (r)
			fprintf(stderr, "cdt fvar: -e %s: %s\n", name, err);
		else
			fprintf(stderr, "cdt fvar: -e %s needs a hardware PMU, and this host has "
				"none\n", name);
		fv_list_soft();
		return -EINVAL;
	}
	m->src = FV_SRC_COUNTER;
	m->counter = o->ncounters++;
	fp->nmetrics++;
	return 0;
}

static int fvar_prepare(struct run_opts *o)
{
	struct fvar_params *fp = (struct fvar_params *)o->params;
	struct events_host h;
	struct dbtrap d;
	char list[256], *save = NULL, *tok;
	int hw, err = 0;

	events_host_detect(&h);
	hw = h.hw_pmu && o->src.source != SRC_SOFT;
	snprintf(list, sizeof(list), "%s",
		 fv_events ? fv_events : hw ? "cycles,instructions" : "cpu,wall");
	snprintf(fv_chosen, sizeof(fv_chosen), "%s", list);
	fp->nmetrics = 0;
	o->ncounters = 0;
	for (tok = strtok_r(list, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save))
		err = fv_metric(o, fp, tok, h.hw_pmu);
	if (!err && !fp->nmetrics) {
		fprintf(stderr, "cdt fvar: -e names no metric\n");
		err = -EINVAL;
	}
	/* Without traps no instance is timed, but the samples still say where
	 * the time goes: the run goes on and says so (cdt-fvar(1)). */
	if (!err && !dbtrap_check(&d))
		o->traps_lost = "fvar cannot time instances (its entry breakpoint and "
				"return-slot watchpoint never fire), so no CV is measured; "
				"its samples still give each function's share of the run";
	return err;
}

/* The instances' call paths; the names of the metrics, in order, and the
 * thresholds, for the report. */
static int fvar_finish(const struct run_opts *o, struct profile *p)
{
	static const char *const keys[3] = { "flag_share", "flag_cv", "flag_cv_threads" };
	char buf[32];
	int err;

	(void)o;
	err = fvar_paths(p);
	if (!err)
		err = profile_set_meta(p, "metrics", fv_chosen);
	for (int k = 0; k < 3 && !err; k++) {
		snprintf(buf, sizeof(buf), "%g", fv_flag[k]);
		err = profile_set_meta(p, keys[k], buf);
	}
	return err;
}

static int fvar_print(const struct profile *p)
{
	return view_print_run_report(p, fvar_views, fvar_report);
}

/*
 * The pmu source's sampling event: retired near calls, precise, where the
 * CPU has such an event (Intel since Nehalem: BR_INST_RETIRED:NEAR_CALL),
 * as the paper does: a sample stands at the callee's entry and is the
 * instance.  AMD's and Arm's PMUs count no retired calls as such, and a
 * host without PEBS cannot make the sample precise: there cycles sample
 * time, and the entry breakpoint picks the instance, as without a PMU.
 * Rows are tried in order; the first that encodes and opens is used.
 */
static const struct {
	const char *event;
	uint32_t kind;           /* FV_EV_CALLS, or 0: time */
	uint64_t period;         /* default */
} fv_pmu_rows[] = {
	/* 1 in ~1M calls: 100 per second at 100M calls per second. */
	{ "BR_INST_RETIRED:NEAR_CALL:precise=2", FV_EV_CALLS, 1000003 },
	{ "cycles", 0, FV_PMU_DEFAULT_PERIOD },
};

int fvar_pmu_sample(const struct events_host *h, uint64_t period, struct agent_event *ev,
		    uint32_t *nev, char *names, size_t nlen, char *err, size_t errlen)
{
	int r = -ENOENT;

	(void)h;
	for (size_t i = 0; i < sizeof(fv_pmu_rows) / sizeof(fv_pmu_rows[0]); i++) {
		uint64_t per = period ? period : fv_pmu_rows[i].period;

		if (!strcmp(fv_pmu_rows[i].event, "cycles")) {
			/* The kernel's generic event: every PMU it drives has it. */
			memset(&ev[0], 0, sizeof(ev[0]));
			ev[0].type = PERF_TYPE_HARDWARE;
			ev[0].config = PERF_COUNT_HW_CPU_CYCLES;
			ev[0].period = per;
			r = 0;
		} else {
			r = events_encode(fv_pmu_rows[i].event, per, &ev[0], err, errlen);
		}
		if (r || (fv_pmu_rows[i].kind && events_try_open(&ev[0])))
			continue;
		ev[0].kind = fv_pmu_rows[i].kind;
		*nev = 1;
		snprintf(names, nlen, "%s", fv_pmu_rows[i].event);
		return 0;
	}
	return r ? r : -ENOENT;
}

const struct run_ops fvar_run = {
	.soft_hz = FV_SOFT_DEFAULT_HZ,
	.pmu_sample = fvar_pmu_sample,
	.pmu_period = FV_PMU_DEFAULT_PERIOD,
	.usage = fvar_usage,
	.defaults = fvar_defaults,
	.option = fvar_option,
	.prepare = fvar_prepare,
	.finish = fvar_finish,
	.report = fvar_print,
};
