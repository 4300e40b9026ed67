// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt numa's command line, what the front end watches of the program
 * from outside while it runs (faults.c, pages.c), the run's meta and its
 * report.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/cliopt.h"
#include "lib/core/pmu_events.h"
#include "lib/core/run.h"
#include "lib/core/topo.h"
#include "lib/core/view_print.h"
#include "lib/tools/numa/model.h"
#include "lib/tools/numa/parts.h"

#define NUMA_DEFAULT_INTERVAL_MS 100
/*
 * The soft source's default rate.  A thread's remote share is a
 * proportion of its samples: 250 a second give it within +-6 points
 * (two standard errors at 50%) after one second of the thread's CPU,
 * and a longer run does better.  1 kHz (record's rate) cost numa_jacobi,
 * 5 threads on 2 CPUs meeting at barriers, 1.29x; 250 Hz about 1.1x
 * (tests/bench/run.sh numa).
 */
#define NUMA_SOFT_HZ 250

static struct {
	const char *bind, *predict, *interval;
	int no_faults, uncore;
	uint64_t interval_ms;
	char events[512];  /* the counters used, for the meta */
	char roles[32];    /* their enum numa_role, in the same order */
	char counters[160]; /* why there are none */
	char faults_why[200]; /* why first touch is not watched, or "" */
	char uncore_why[200];
	struct faults f;
	struct pages g;
	int watching;
} numa_o;

static void numa_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt numa [options] [--] program [args...]\n"
		"\n"
		"How much of each thread's memory traffic goes to a remote NUMA node, to\n"
		"which data, and which thread first touched that data.  Samples memory\n"
		"accesses and maps their pages to nodes (move_pages), watches page faults\n"
		"for first touch, and on a PMU host counts local and remote DRAM per thread.\n"
		"\n"
		"      --bind POLICY     pin threads as they start: compact (fill a node's\n"
		"                        CPUs first), scatter (nodes in turn) or none (default)\n"
		"  -I, --interval MS     timeline interval and counter reads (default %d)\n"
		"      --predict N[:compact|scatter[:CPUS]]\n"
		"                        model: which accesses would be remote on N nodes of\n"
		"                        CPUS CPUs each (default: threads / N), threads placed\n"
		"                        by the policy (default compact), pages at first touch\n"
		"      --count           counting mode: no samples; first touch, migrations\n"
		"                        and, with a PMU, each thread's local and remote counts\n"
		"      --no-faults       do not watch page faults (no first touch)\n"
		"      --uncore          interconnect traffic per socket: says whether this\n"
		"                        host has the uncore PMU for it (cdt does not read\n"
		"                        link counters yet)\n", NUMA_DEFAULT_INTERVAL_MS);
}

static int numa_option(struct run_opts *o, int argc, char **argv, int *i)
{
	int r;

	if ((r = cliopt_match(argc, argv, i, NULL, "--bind", &numa_o.bind)))
		return r;
	if ((r = cliopt_match(argc, argv, i, "-I", "--interval", &numa_o.interval)))
		return r;
	if ((r = cliopt_match(argc, argv, i, NULL, "--predict", &numa_o.predict)))
		return r;
	if ((r = cliopt_match(argc, argv, i, NULL, "--count", NULL)) > 0) {
		o->count_only = 1;
		return r;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--no-faults", NULL)) > 0) {
		numa_o.no_faults = 1;
		return r;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--uncore", NULL)) > 0) {
		numa_o.uncore = 1;
		return r;
	}
	return r;
}

/* The per-thread counters of a pmu host, into o->counter[]. */
static void numa_counters(struct run_opts *o, const struct events_host *h)
{
	const struct numa_event_row *row = numa_events_row(h->pmu);
	size_t n = 0;
	char err[256];

	o->ncounters = 0;
	if (!h->hw_pmu || (o->src.source == SRC_SOFT && !o->count_only)) {
		snprintf(numa_o.counters, sizeof(numa_o.counters), "no hardware PMU: %s",
			 o->count_only ? "nothing to count but faults and migrations" :
			 "sampled addresses only");
		return;
	}
	if (!row) {
		snprintf(numa_o.counters, sizeof(numa_o.counters), "no local/remote events "
			 "known for PMU '%s': sampled addresses only", h->pmu);
		return;
	}
	for (int k = 0; k < NUMA_MAX_EVENTS && row->ev[k].name; k++) {
		struct agent_event *ev = &o->counter[o->ncounters];

		if (events_encode(row->ev[k].name, 0, ev, err, sizeof(err)) ||
		    events_try_open(ev)) {
			fprintf(stderr, "cdt numa: warning: %s: %s\n", row->ev[k].name,
				err[0] ? err : "does not open");
			continue;
		}
		ev->kind = 0;
		snprintf(numa_o.roles + strlen(numa_o.roles), sizeof(numa_o.roles) -
			 strlen(numa_o.roles), "%s%d", o->ncounters ? "," : "", row->ev[k].role);
		o->ncounters++;
		n += (size_t)snprintf(numa_o.events + n, sizeof(numa_o.events) - n, "%s%s",
				      n ? "," : "", row->ev[k].name);
		if (n >= sizeof(numa_o.events))
			n = sizeof(numa_o.events) - 1;
	}
	o->counter_interval_ns = numa_o.interval_ms * 1000000ull;
	snprintf(numa_o.counters, sizeof(numa_o.counters), "%s", o->ncounters ?
		 (row->validated ? "validated" : "not validated on this CPU") :
		 "none of the events opened");
}

/*
 * --uncore: interconnect links are uncore PMUs of the whole machine
 * (uncore_upi_*, uncore_qpi_*, AMD's amd_df), which need
 * perf_event_paranoid <= 0 or CAP_PERFMON.  Where there are none (every
 * VM) or they are not permitted, one line says so and the run goes on.
 */
static void numa_uncore(void)
{
	DIR *d = opendir(EVENTS_SYSFS_DIR);
	struct dirent *e;
	char found[64] = "";

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "uncore_upi", 10) || !strncmp(e->d_name, "uncore_qpi", 10) ||
		    !strcmp(e->d_name, "amd_df"))
			snprintf(found, sizeof(found), "%.60s", e->d_name);
	if (d)
		closedir(d);
	if (!found[0])
		snprintf(numa_o.uncore_why, sizeof(numa_o.uncore_why), "no interconnect PMU "
			 "(uncore_upi, uncore_qpi, amd_df) on this host");
	else
		snprintf(numa_o.uncore_why, sizeof(numa_o.uncore_why), "interconnect PMU %s "
			 "found, but cdt does not read link counters yet", found);
	fprintf(stderr, "cdt numa: --uncore: %s; going on without link traffic\n",
		numa_o.uncore_why);
}

static int numa_prepare(struct run_opts *o)
{
	struct numa_params *np = (struct numa_params *)o->params;
	struct events_host h;
	struct topo t = { 0 };
	int nodes, policy, per_node, err = 0;

	numa_o.interval_ms = NUMA_DEFAULT_INTERVAL_MS;
	if (numa_o.interval && cliopt_u64("-I", numa_o.interval, 0, &numa_o.interval_ms))
		return -EINVAL;
	if (numa_o.predict && numa_predict_parse(numa_o.predict, &nodes, &policy, &per_node, 1))
		return -EINVAL;
	if (numa_o.bind) {
		policy = numa_policy(numa_o.bind, 1);
		if (policy < 0) {
			fprintf(stderr, "cdt numa: --bind '%s': give compact, scatter or none\n",
				numa_o.bind);
			return -EINVAL;
		}
		np->bind = (uint32_t)policy;
		if (policy != NUMA_BIND_NONE) {
			err = topo_read(&t);
			if (!err)
				err = numa_place_cpus(&t, policy, np->bind_cpu, NUMA_BIND_MAX,
						      &np->nbind);
			topo_free(&t);
			if (err) {
				fprintf(stderr, "cdt numa: --bind: cannot read the CPUs and nodes "
					"of this machine: %s\n", strerror(-err));
				return err;
			}
		}
	}
	events_host_detect(&h);
	numa_counters(o, &h);
	if (numa_o.uncore)
		numa_uncore();
	return 0;
}

/*
 * Where a run of faults landed: its first and last page are asked, not
 * every page.  A run is one thread at one instruction on one CPU, so the
 * kernel placed its pages alike; the model infers the rest from the CPU
 * (and says so), and pages that samples name are asked anyway.  Asking
 * all would cost the front end a hash entry and a query per page of a
 * program that faults in gigabytes.
 */
static int numa_on_fault(void *ctx, const struct rec_numa_fault *r)
{
	struct pages *g = ctx;
	int err = pages_want(g, r->pid, r->addr);

	if (!err && r->npages > 1)
		err = pages_want(g, r->pid, r->addr + (uint64_t)(r->npages - 1) * 4096);
	return err;
}

static int numa_attach(const struct run_opts *o, pid_t child)
{
	struct topo t = { 0 };
	int err, ncpus;

	(void)o;
	memset(&numa_o.g, 0, sizeof(numa_o.g));
	numa_o.watching = 1;
	if (numa_o.no_faults) {
		snprintf(numa_o.faults_why, sizeof(numa_o.faults_why), "off (--no-faults)");
		return 0;
	}
	/* Every possible CPU number, so a CPU brought online later is not
	 * missed by the per-CPU rings: the topology's highest. */
	ncpus = !topo_read(&t) && t.ncpus > 0 ? t.cpus[t.ncpus - 1].cpu + 1 : 0;
	topo_free(&t);
	if (ncpus <= 0)
		ncpus = 1;
	err = faults_open(&numa_o.f, child, ncpus);
	if (err) {
		snprintf(numa_o.faults_why, sizeof(numa_o.faults_why), "off: cannot watch page "
			 "faults: %s%s", strerror(-err), err == -EACCES || err == -EPERM ?
			 " (perf_event_paranoid; `cdt probe` says more)" : "");
		fprintf(stderr, "cdt numa: warning: %s; no first touch in this profile\n",
			numa_o.faults_why + 5);
		return 0;
	}
	numa_o.f.on_fault = numa_on_fault;
	numa_o.f.ctx = &numa_o.g;
	return 0;
}

static int numa_poll(const struct run_opts *o, struct profile *p, int final)
{
	int err = 0;

	(void)o;
	if (!numa_o.watching)
		return 0;
	if (numa_o.f.r)
		err = faults_poll(&numa_o.f, p, final);
	if (err >= 0) {
		int busy = err;

		err = pages_poll(&numa_o.g, p, final);
		if (!err)
			err = busy;
	}
	return err;
}

static int numa_meta_u64(struct profile *p, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return profile_set_meta(p, key, buf);
}

/* The run's settings and what the front end saw, for the report. */
static int numa_finish(const struct run_opts *o, struct profile *p)
{
	int err;

	(void)o;
	err = numa_meta_u64(p, "interval_ms", numa_o.interval_ms) ||
	      profile_set_meta(p, "bind", numa_o.bind ? numa_o.bind : "none") ||
	      profile_set_meta(p, "numa_counters", numa_o.counters) ||
	      profile_set_meta(p, "first_touch", numa_o.faults_why[0] ? numa_o.faults_why :
			       "page faults, every one") ||
	      numa_meta_u64(p, "faults", numa_o.f.faults) ||
	      numa_meta_u64(p, "migrations", numa_o.f.migrations) ||
	      numa_meta_u64(p, "faults_lost", numa_o.f.lost) ||
	      numa_meta_u64(p, "pages_asked", numa_o.g.asked) ||
	      numa_meta_u64(p, "pages_unasked", numa_o.g.failed) ? -ENOMEM : 0;
	if (!err && numa_o.events[0])
		err = profile_set_meta(p, "numa_events", numa_o.events) ||
		      profile_set_meta(p, "numa_roles", numa_o.roles) ? -ENOMEM : 0;
	if (!err && numa_o.predict)
		err = profile_set_meta(p, "predict", numa_o.predict);
	if (!err && numa_o.uncore)
		err = profile_set_meta(p, "uncore", numa_o.uncore_why);
	faults_close(&numa_o.f);
	pages_free(&numa_o.g);
	return err;
}

static int numa_print(const struct profile *p)
{
	return view_print_run_report(p, numa_views, numa_report);
}

const struct run_ops numa_run = {
	.soft_hz = NUMA_SOFT_HZ,
	/* The objects view is half the answer: which data is remote. */
	.objects = 1,
	.usage = numa_usage,
	.option = numa_option,
	.prepare = numa_prepare,
	.attach = numa_attach,
	.poll = numa_poll,
	.finish = numa_finish,
	.report = numa_print,
};
