// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt probe: what this machine offers a profiler, and which sample source
 * each tool would use.  Every check is a small open-and-close; nothing is
 * left armed, and a failed check is reported, not fatal.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/core/clockcal.h"
#include "lib/core/dbtrap.h"
#include "lib/core/pmu_events.h"
#include "lib/core/run.h"
#include "lib/core/source.h"
#include "lib/core/topo.h"
#include "lib/tools/tool.h"
#include "lib/wire/agentcfg.h"
#include "lib/wire/record.h"
#include "output/table.h"

#ifndef CDT_VERSION
#define CDT_VERSION "unknown"
#endif

#define PROBE_MAX_WP 16
#define KEY_WIDTH 21 /* longest key, "perf_event_paranoid:" plus a space */

/* CSV rows go through the shared table renderer; text prints as it goes. */
struct out {
	int csv;
	struct table *t;
};

static void emit(const struct out *o, const char *key, const char *value,
		 const char *detail)
{
	int pad;

	if (o->csv) {
		if (table_row(o->t) || table_cell(o->t, "%s", key) ||
		    table_cell(o->t, "%s", value) || table_cell(o->t, "%s", detail ? detail : ""))
			fprintf(stderr, "cdt probe: out of memory\n");
		return;
	}
	pad = KEY_WIDTH - (int)strlen(key) - 1;
	printf("%s:%*s%s", key, pad > 0 ? pad : 1, "", value);
	if (detail && *detail)
		printf("  (%s)", detail);
	putchar('\n');
}

static void emit_int(const struct out *o, const char *key, long v, const char *detail)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	emit(o, key, buf, detail);
}

static int read_long(const char *path, long *v)
{
	FILE *f = fopen(path, "re");
	int r = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%ld", v) != 1)
		r = -EINVAL;
	fclose(f);
	return r;
}

/* "ENOSPC: No space left on device" */
static const char *errtext(int err, char *buf, size_t len)
{
	const char *name = strerrorname_np(err);

	snprintf(buf, len, "%s: %s", name ? name : "error", strerror(err));
	return buf;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set. */
static int perf_privileged(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long cap = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &cap) == 1)
			break;
	fclose(f);
	return !!(cap & (1ull << 38 | 1ull << 21));
}

static void probe_kernel(const struct out *o)
{
	struct utsname u;
	char detail[300];

	if (uname(&u) < 0) {
		emit(o, "kernel", "unknown", strerror(errno));
		return;
	}
	snprintf(detail, sizeof(detail), "%s %s", u.machine, u.version);
	emit(o, "kernel", u.release, detail);
}

static void probe_paranoid(const struct out *o)
{
	static const char *const level[] = {
		"no restrictions: all events for all users",          /* -1 */
		"per-process and CPU-wide events, kernel included",   /* 0 */
		"per-process events, user and kernel; no CPU-wide",   /* 1 */
		"user-space measurement of own processes only",       /* 2 */
		"unprivileged perf_event_open refused; cdt needs <= 2 "
		"(sysctl kernel.perf_event_paranoid=2)",              /* 3+ */
	};
	char detail[256];
	long v, rate;
	int priv = perf_privileged();

	if (read_long("/proc/sys/kernel/perf_event_paranoid", &v) < 0) {
		emit(o, "perf_event_paranoid", "unknown",
		     "/proc/sys/kernel/perf_event_paranoid unreadable: perf_event_open is unlikely to work");
	} else {
		const char *what = level[v < -1 ? 0 : v > 3 ? 4 : v + 1];

		snprintf(detail, sizeof(detail), "%s%s", what,
			 priv ? "; not binding here: the process has CAP_PERFMON or CAP_SYS_ADMIN" : "");
		emit_int(o, "perf_event_paranoid", v, detail);
	}
	if (read_long("/proc/sys/kernel/perf_event_max_sample_rate", &rate) < 0)
		emit(o, "max_sample_rate", "unknown", "/proc/sys/kernel/perf_event_max_sample_rate unreadable");
	else
		emit_int(o, "max_sample_rate", rate,
			 "samples/s per event, from /proc/sys/kernel/perf_event_max_sample_rate");
}

static void probe_cpu(const struct out *o, const struct events_host *h)
{
	char ver[32], detail[320];

	emit(o, "cpu", h->cpu_model[0] ? h->cpu_model : "unknown", h->cpu_id);
	emit(o, "hypervisor", h->hypervisor[0] ? h->hypervisor : "none",
	     h->hypervisor[0] ? "CPUID reports a hypervisor" : "bare metal");
	events_pfm_version(ver, sizeof(ver));
	emit(o, "libpfm4", ver, NULL);
	if (!h->pmu[0]) {
		snprintf(detail, sizeof(detail), "libpfm4 %s does not know this CPU%s%s; "
			 "only generic perf events can be named", ver,
			 h->cpu_id[0] ? ": " : "", h->cpu_id);
		emit(o, "libpfm4_pmu", "none", detail);
	} else if (!h->hw_pmu) {
		snprintf(detail, sizeof(detail), "%s; libpfm4 knows this CPU, but no PMU "
			 "driver is present%s", h->pmu_desc,
			 h->hypervisor[0] ? " (a VM without a virtual PMU)" : "");
		emit(o, "libpfm4_pmu", h->pmu, detail);
	} else {
		emit(o, "libpfm4_pmu", h->pmu, h->pmu_desc);
	}
	emit(o, "hw_pmu", h->hw_pmu ? "yes" : "no", h->hw_detail);
}

static void probe_mem_events(const struct out *o, const struct events_host *h)
{
	struct agent_event ev[2];
	char name[128], err[320], detail[400], e[64];
	uint32_t nev = 0;
	int r;

	events_mem_name(h->row, name, sizeof(name));
	r = events_mem_encode(h, PMU_DEFAULT_PERIOD, ev, &nev, err, sizeof(err));
	if (r < 0) {
		emit(o, "mem_events", name, err);
		emit(o, "mem_events_open", "no", "nothing to open");
		return;
	}
	if (nev == 2)
		snprintf(detail, sizeof(detail), "type %u, config %#llx and %#llx, precise_ip %u",
			 ev[0].type, (unsigned long long)ev[0].config,
			 (unsigned long long)ev[1].config, ev[0].precise_ip);
	else
		snprintf(detail, sizeof(detail), "type %u, config %#llx, config2 %#llx",
			 ev[0].type, (unsigned long long)ev[0].config,
			 (unsigned long long)ev[0].config2);
	emit(o, "mem_events", name, detail);

	for (uint32_t i = 0; i < nev; i++) {
		r = events_try_open(&ev[i]);
		if (r < 0)
			break;
	}
	if (r < 0) {
		snprintf(detail, sizeof(detail), "%s%s", errtext(-r, e, sizeof(e)),
			 h->hw_pmu ? "" : "; no hardware PMU");
		emit(o, "mem_events_open", "no", detail);
	} else {
		emit(o, "mem_events_open", "yes", "test open with precise sampling succeeded");
	}
}

static void wp_attr(struct perf_event_attr *a, const void *addr)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = HW_BREAKPOINT_W;
	a->bp_addr = (uintptr_t)addr;
	a->bp_len = HW_BREAKPOINT_LEN_8;
	a->sample_period = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* Open write watchpoints until the kernel runs out of debug registers. */
static void probe_dbregs(const struct out *o)
{
	long slot[PROBE_MAX_WP];
	int fd[PROBE_MAX_WP], n = 0, err = 0;
	char detail[160], e[64];

	for (n = 0; n < PROBE_MAX_WP; n++) {
		struct perf_event_attr a;

		wp_attr(&a, &slot[n]);
		a.disabled = 1;
		fd[n] = events_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd[n] < 0) {
			err = -fd[n];
			break;
		}
	}
	for (int i = 0; i < n; i++)
		close(fd[i]);

	if (err == ENOSPC)
		snprintf(detail, sizeof(detail), "8-byte write watchpoints per thread; "
			 "watchpoint %d gives ENOSPC", n + 1);
	else if (err)
		snprintf(detail, sizeof(detail), "watchpoint %d: %s", n + 1,
			 errtext(err, e, sizeof(e)));
	else
		snprintf(detail, sizeof(detail), "stopped counting at %d", n);
	emit_int(o, "debug_registers", n, detail);
}

/* Arm a sigtrap watchpoint, write the variable, and check the signal: the
 * check the tools make before a run that needs traps (core/dbtrap.c). */
static void probe_trap(const struct out *o)
{
	struct dbtrap d;

	emit(o, "watchpoint_trap", dbtrap_check(&d) ? "ok" : "fail", d.detail);
}

/* Where a trapping int1 leaves the IP (core/dbtrap.c). */
static void probe_int1(const struct out *o)
{
	enum dbtrap_int1 v = dbtrap_int1();

	emit(o, "int1_trap", dbtrap_int1_name(v),
	     v == DBTRAP_INT1_AT ? "the IP stays at the int1: a handler that returns runs it again" :
	     v == DBTRAP_INT1_AFTER ? "the IP is after the int1, as on bare metal" :
	     "no SIGTRAP at the int1's address");
}

/* Does the kernel accept attr.sigtrap on a sampling event? */
static void probe_sigtrap(const struct out *o)
{
	struct agent_event clock = { .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK, .period = 1000000 };
	struct perf_event_attr a;
	char detail[160], e[64];
	int fd;

	events_attr(&clock, &a); /* as the agent opens its soft sampling event */
	fd = events_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		emit(o, "sigtrap", "yes", "task-clock sampling with attr.sigtrap opens");
		return;
	}
	snprintf(detail, sizeof(detail), "%s%s", errtext(-fd, e, sizeof(e)),
		 fd == -EINVAL ? "; the kernel predates attr.sigtrap (needs Linux 5.13)" : "");
	emit(o, "sigtrap", "no", detail);
}

/* What a sample costs here beyond cdt's handler (lib/core/clockcal.h). */
static void probe_clock(const struct out *o)
{
	struct clockcal c;
	char v[64], detail[160], path[4096] = "";
	int measured, r = clockcal_get(&c, NULL, &measured);

	if (r) {
		emit(o, "sample_clock", "unknown", strerror(-r));
		return;
	}
	clockcal_path(path, sizeof(path));
	snprintf(v, sizeof(v), "%.1f", c.tick_ns / 1e6);
	snprintf(detail, sizeof(detail), "%s %s", measured ? "measured now, kept in" :
		 "as kept in", path[0] ? path : "(no cache)");
	emit(o, "tick_ms", v, detail);
	snprintf(v, sizeof(v), "%.1f", c.perf_sig_ns / 1e3);
	emit(o, "perf_sample_us", v, "a task-clock sample beyond cdt's handler");
	snprintf(v, sizeof(v), "%.1f", c.posix_sig_ns / 1e3);
	emit(o, "posix_sample_us", v, "a POSIX CPU-timer sample beyond cdt's handler");
	snprintf(v, sizeof(v), "%.1f", c.switch_ns / 1e3);
	emit(o, "perf_switch_us", v, "a thread's context switch while a task-clock event "
	     "is armed");
}

static void probe_topo(const struct out *o)
{
	struct topo t;
	int r = topo_read(&t);

	if (r < 0) {
		emit(o, "cpus", "unknown", strerror(-r));
		return;
	}
	emit_int(o, "cpus", t.ncpus, "online logical CPUs");
	emit_int(o, "cores", t.ncores, NULL);
	emit_int(o, "sockets", t.nsockets, NULL);
	emit_int(o, "numa_nodes", t.nnodes, t.nnodes == 1 ? "no NUMA" : NULL);
	topo_free(&t);
}

/* The sample source each tool of the table would use, at its own default rate. */
static void probe_sources(const struct out *o)
{
	struct agent_cfg cfg;
	char key[64], why[512];
	const char *src;
	int r;

	for (size_t i = 0; tools[i]; i++) {
		struct source_req req = { .source = SRC_NONE, .default_hz = tools[i]->run->soft_hz };

		memset(&cfg, 0, sizeof(cfg));
		r = source_select(&req, &cfg, why, sizeof(why));
		src = r < 0 ? "none" : cfg.source == SRC_PMU ? "pmu" : "soft";
		snprintf(key, sizeof(key), "source.%s", tools[i]->name);
		emit(o, key, src, why);
	}
}

static void usage(FILE *f)
{
	/* Only --help prints this, to stdout; errors get one line. */
	fputs("usage: cdt probe [--csv]\n"
	      "Report what this machine offers cdt: kernel, perf_event_paranoid, CPU and\n"
	      "PMU, precise memory events, debug registers, sigtrap, what a sample costs,\n"
	      "topology, and the sample source each tool would use.\n"
	      "\n"
	      "  --csv       key,value,detail rows (RFC 4180) instead of text\n"
	      "  -h, --help  this help\n", f);
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const cols[] = { "key", "value", "detail", NULL };
	struct out o = { 0 };
	struct events_host h;
	struct table t;
	int c;

	optind = 0; /* glibc: full reset, the dispatcher may have parsed already */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.csv = 1;
			break;
		case 'h':
			usage(stdout);
			return fflush(stdout) ? EXIT_CDT_FAILED : 0;
		default:
			fprintf(stderr, "cdt probe: unknown option '%s'; try 'cdt probe --help'\n",
				argv[optind - 1]);
			return EXIT_CDT_FAILED;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cdt probe: unexpected argument '%s'; try 'cdt probe --help'\n",
			argv[optind]);
		return EXIT_CDT_FAILED;
	}

	table_init(&t, NULL, cols);
	o.t = &t;
	emit(&o, "version", CDT_VERSION, NULL);
	probe_kernel(&o);
	probe_paranoid(&o);
	if (events_init() < 0)
		fprintf(stderr, "cdt probe: libpfm4 failed to initialize; event names will not encode\n");
	events_host_detect(&h);
	probe_cpu(&o, &h);
	probe_mem_events(&o, &h);
	probe_dbregs(&o);
	probe_trap(&o);
	probe_int1(&o);
	probe_sigtrap(&o);
	probe_clock(&o);
	probe_topo(&o);
	probe_sources(&o);
	if (o.csv)
		table_print_csv(&t, stdout);
	table_free(&t);

	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "cdt probe: writing the report failed: %s\n", strerror(errno));
		return EXIT_CDT_FAILED;
	}
	return 0;
}
