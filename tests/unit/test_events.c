// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event encoding, the memory-event table and sample-source selection.
 *
 * LIBPFM_FORCE_PMU only takes effect at pfm_initialize(), once per
 * process, so each forced-PMU case re-executes this binary in helper mode
 * with the variable set and reads the results from a pipe.  Expected
 * encodings were checked against libpfm4 4.13 on the development machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/wire/agentcfg.h"
#include "lib/core/pmu_events.h"
#include "lib/wire/record.h"
#include "lib/core/source.h"
#include "lib/tools/fvar/fvar.h"
#include "lib/tools/fvar/parts.h"

/* ---- helper mode: runs in a fresh process under LIBPFM_FORCE_PMU ---- */

static void print_ev(const char *tag, int rc, const struct agent_event *e, const char *err)
{
	printf("%s %d %u %#llx %#llx %u %u %llu |%s\n", tag, rc, e->type,
	       (unsigned long long)e->config, (unsigned long long)e->config1,
	       e->precise_ip, e->kind, (unsigned long long)e->period, err);
}

/* argv: --helper name...  Prints host, mem and one enc line per name. */
static int helper_main(int argc, char **argv)
{
	struct events_host h;
	struct agent_event ev[2];
	char err[512] = "";
	uint32_t nev = 0;
	int rc;

	events_host_detect(&h);
	printf("host %s %d %s |%s\n", h.pmu[0] ? h.pmu : "-", h.row ? h.row->route : 0,
	       h.row && h.row->sysfs ? h.row->sysfs : "-", h.row && h.row->load ? h.row->load : "");
	memset(ev, 0, sizeof(ev));
	rc = events_mem_encode(&h, 1000, ev, &nev, err, sizeof(err));
	printf("nev %d %u |%s\n", rc, nev, err);
	for (uint32_t i = 0; i < nev; i++)
		print_ev("mem", rc, &ev[i], "");
	for (int i = 2; i < argc; i++) {
		err[0] = '\0';
		rc = events_encode(argv[i], 0, &ev[0], err, sizeof(err));
		print_ev("enc", rc, &ev[0], err);
	}
	/* cdt fvar's choice of sampling event for this PMU. */
	{
		char names[128] = "";

		memset(ev, 0, sizeof(ev));
		err[0] = '\0';
		rc = fvar_pmu_sample(&h, 0, ev, &nev, names, sizeof(names), err, sizeof(err));
		printf("fvarname %s\n", names[0] ? names : "-");
		print_ev("fvar", rc, &ev[0], err);
	}
	return fflush(stdout) ? 1 : 0;
}

static char self_exe[4096];

/* Run helper mode under LIBPFM_FORCE_PMU=pmu; NULL-terminated event names. */
static void run_forced(const char *pmu, char *out, size_t len, ...)
{
	const char *args[16] = { "test_events", "--helper" };
	int n = 2, fd[2], status;
	size_t got = 0;
	ssize_t r;
	va_list ap;
	pid_t pid;

	va_start(ap, len);
	while (n < 15 && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		execv(self_exe, (char *const *)args);
		_exit(127);
	}
	close(fd[1]);
	while (got < len - 1 && (r = read(fd[0], out + got, len - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The n-th (0-based) line starting with tag. */
static const char *line_of(const char *out, const char *tag, int n)
{
	size_t tl = strlen(tag);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, tag, tl) && p[tl] == ' ' && n-- == 0)
			return p;
	}
	fail_msg("no line %d tagged '%s' in:\n%s", n, tag, out);
	return NULL;
}

struct evline {
	int rc;
	unsigned type, precise, kind;
	unsigned long long config, config1, period;
	char err[256];
};

static void parse_ev(const char *line, struct evline *e)
{
	const char *bar = strchr(line, '|');
	const char *eol;
	size_t n;

	assert_int_equal(sscanf(line, "%*s %d %u %llx %llx %u %u %llu", &e->rc, &e->type,
				&e->config, &e->config1, &e->precise, &e->kind, &e->period), 7);
	assert_non_null(bar);
	eol = strchr(bar, '\n');
	n = eol ? (size_t)(eol - bar - 1) : strlen(bar + 1);
	if (n >= sizeof(e->err))
		n = sizeof(e->err) - 1;
	memcpy(e->err, bar + 1, n);
	e->err[n] = '\0';
}

/* The forced PMU is detected, has a two-event row, and encodes to these configs. */
static void check_pfm_mem(const char *pmu, const char *evname)
{
	char out[8192], host[64];
	struct evline ld, st;
	int route, rc;
	unsigned nev;

	run_forced(pmu, out, sizeof(out), NULL);
	assert_int_equal(sscanf(line_of(out, "host", 0), "host %63s %d", host, &route), 2);
	assert_string_equal(host, pmu);
	assert_int_equal(route, EV_ROUTE_PFM);
	assert_non_null(strstr(line_of(out, "host", 0), evname));
	assert_int_equal(sscanf(line_of(out, "nev", 0), "nev %d %u", &rc, &nev), 2);
	assert_int_equal(rc, 0);
	assert_int_equal(nev, 2);
	parse_ev(line_of(out, "mem", 0), &ld);
	parse_ev(line_of(out, "mem", 1), &st);
	assert_int_equal(ld.type, PERF_TYPE_RAW);
	assert_int_equal(ld.config, 0x81d0);
	assert_int_equal(ld.precise, 2);
	assert_int_equal(ld.kind, MEM_LOAD);
	assert_int_equal(ld.period, 1000);
	assert_int_equal(st.type, PERF_TYPE_RAW);
	assert_int_equal(st.config, 0x82d0);
	assert_int_equal(st.precise, 2);
	assert_int_equal(st.kind, MEM_STORE);
}

static void test_mem_hsw(void **s) { (void)s; check_pfm_mem("hsw", "MEM_UOPS_RETIRED:ALL_LOADS"); }
static void test_mem_bdw(void **s) { (void)s; check_pfm_mem("bdw", "MEM_UOPS_RETIRED:ALL_LOADS"); }
static void test_mem_skl(void **s) { (void)s; check_pfm_mem("skl", "MEM_INST_RETIRED:ALL_LOADS"); }
static void test_mem_skx(void **s) { (void)s; check_pfm_mem("skx", "MEM_INST_RETIRED:ALL_LOADS"); }
static void test_mem_icl(void **s) { (void)s; check_pfm_mem("icl", "MEM_INST_RETIRED:ALL_LOADS"); }
static void test_mem_spr(void **s) { (void)s; check_pfm_mem("spr", "MEM_INST_RETIRED:ALL_LOADS"); }

/*
 * cdt fvar's pmu sampling: Intel PMUs encode retired near calls, precise
 * (BR_INST_RETIRED:NEAR_CALL, 0x2c4 on Nehalem to Sapphire Rapids); AMD
 * Zen and Arm have no such event.  No PMU opens here, so fvar falls back
 * to cycles sampling (kind 0: samples stand for time) in every case.
 */
static void check_fvar(const char *pmu, int intel)
{
	char out[8192], name[64];
	struct evline e;

	run_forced(pmu, out, sizeof(out), "BR_INST_RETIRED:NEAR_CALL:precise=2", NULL);
	parse_ev(line_of(out, "enc", 0), &e);
	if (intel) {
		assert_int_equal(e.rc, 0);
		assert_int_equal(e.type, PERF_TYPE_RAW);
		assert_int_equal(e.config, 0x2c4);
		assert_int_equal(e.precise, 2);
	} else {
		assert_int_not_equal(e.rc, 0);
	}
	assert_int_equal(sscanf(line_of(out, "fvarname", 0), "fvarname %63s", name), 1);
	assert_string_equal(name, "cycles");
	parse_ev(line_of(out, "fvar", 0), &e);
	assert_int_equal(e.rc, 0);
	assert_int_equal(e.kind, 0);
	assert_int_equal(e.period, 20000003);
}

static void test_fvar_hsw(void **s) { (void)s; check_fvar("hsw", 1); }
static void test_fvar_skl(void **s) { (void)s; check_fvar("skl", 1); }
static void test_fvar_icl(void **s) { (void)s; check_fvar("icl", 1); }
static void test_fvar_spr(void **s) { (void)s; check_fvar("spr", 1); }
static void test_fvar_zen(void **s) { (void)s; check_fvar("amd64_fam17h", 0); }
static void test_fvar_arm(void **s) { (void)s; check_fvar("arm_n1", 0); }

/* The facts DESIGN.md records, plus modifiers and errors. */
static void test_encode_forced(void **state)
{
	char out[8192];
	struct evline e;

	(void)state;
	run_forced("skx", out, sizeof(out), "MEM_INST_RETIRED:ALL_LOADS:precise=2",
		   "MEM_INST_RETIRED:ALL_LOADS:period=1000", "MEM_UOPS_RETIRED:ALL_LOADS",
		   "MEM_INST_RETIRED:NO_SUCH_UMASK", NULL);
	parse_ev(line_of(out, "enc", 0), &e);
	assert_int_equal(e.rc, 0);
	assert_int_equal(e.type, 4);
	assert_int_equal(e.config, 0x81d0);
	assert_int_equal(e.precise, 2);
	assert_int_equal(e.period, 0); /* counting mode unless asked */

	parse_ev(line_of(out, "enc", 1), &e);
	assert_int_equal(e.rc, 0);
	assert_int_equal(e.config, 0x81d0);
	assert_int_equal(e.precise, 0);
	assert_int_equal(e.period, 1000);

	/* Skylake renamed MEM_UOPS_RETIRED; libpfm4 4.13 maps the old name. */
	parse_ev(line_of(out, "enc", 2), &e);
	assert_int_equal(e.rc, 0);
	assert_int_equal(e.config, 0x81d0);

	parse_ev(line_of(out, "enc", 3), &e);
	assert_int_equal(e.rc, -EINVAL);
	assert_non_null(strstr(e.err, "MEM_INST_RETIRED:NO_SUCH_UMASK"));
	assert_non_null(strstr(e.err, "libpfm4 PMU 'skx'"));

	run_forced("hsw", out, sizeof(out), "BR_INST_RETIRED:NEAR_CALL", NULL);
	parse_ev(line_of(out, "enc", 0), &e);
	assert_int_equal(e.rc, 0);
	assert_int_equal(e.type, 4);
	assert_int_equal(e.config, 0x2c4);
	assert_int_equal(e.precise, 0);

	/* Ice Lake has no MEM_UOPS_RETIRED at all: the message names event and PMU. */
	run_forced("icl", out, sizeof(out), "MEM_UOPS_RETIRED:ALL_LOADS", NULL);
	parse_ev(line_of(out, "enc", 0), &e);
	assert_int_equal(e.rc, -ENOENT);
	assert_string_equal(e.err, "event 'MEM_UOPS_RETIRED:ALL_LOADS' is unknown to this CPU "
			    "(libpfm4 PMU 'icl')");
}

/* Silvermont is known to libpfm4 but has no row: a clear error, no guess. */
static void test_mem_no_row(void **state)
{
	char out[8192], host[64];
	int route, rc;
	unsigned nev;

	(void)state;
	run_forced("slm", out, sizeof(out), NULL);
	assert_int_equal(sscanf(line_of(out, "host", 0), "host %63s %d", host, &route), 2);
	assert_string_equal(host, "slm");
	assert_int_equal(route, 0);
	assert_int_equal(sscanf(line_of(out, "nev", 0), "nev %d %u", &rc, &nev), 2);
	assert_int_equal(rc, -ENOENT);
	assert_int_equal(nev, 0);
	assert_non_null(strstr(line_of(out, "nev", 0), "libpfm4 PMU 'slm'"));
}

/*
 * Zen: libpfm4 4.13 has no IBS PMU, so the row routes to the kernel's
 * ibs_op PMU.  Without it (any VM) the error says which file is missing.
 */
static void test_mem_zen(void **state)
{
	char out[8192], host[64], sysfs[64];
	int route, rc, ibs_type = events_sysfs_type(NULL, "ibs_op");
	unsigned nev;
	struct evline e;

	(void)state;
	run_forced("amd64_fam17h_zen2", out, sizeof(out), NULL);
	assert_int_equal(sscanf(line_of(out, "host", 0), "host %63s %d %63s", host, &route,
				sysfs), 3);
	assert_string_equal(host, "amd64_fam17h_zen2");
	assert_int_equal(route, EV_ROUTE_IBS);
	assert_string_equal(sysfs, "ibs_op");
	assert_int_equal(sscanf(line_of(out, "nev", 0), "nev %d %u", &rc, &nev), 2);
	if (ibs_type < 0) {
		assert_int_equal(rc, -ENOENT);
		assert_non_null(strstr(line_of(out, "nev", 0), "no 'ibs_op' PMU"));
		assert_non_null(strstr(line_of(out, "nev", 0),
				       "/sys/bus/event_source/devices/ibs_op/type"));
	} else {
		assert_int_equal(rc, 0);
		assert_int_equal(nev, 1);
		parse_ev(line_of(out, "mem", 0), &e);
		assert_int_equal(e.type, (unsigned)ibs_type);
		assert_int_equal(e.kind, 0);
	}

	run_forced("amd64_fam19h_zen4", out, sizeof(out), NULL);
	assert_int_equal(sscanf(line_of(out, "host", 0), "host %63s %d", host, &route), 2);
	assert_string_equal(host, "amd64_fam19h_zen4");
	assert_int_equal(route, EV_ROUTE_IBS);
}

/* ---- in-process: sysfs routes against a fake event_source directory ---- */

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void make_dir(const char *dir, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(mkdir(path, 0700), 0);
}

static void rm_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_sysfs_routes(void **state)
{
	char dir[] = "/tmp/cdt-test-events-XXXXXX", err[512];
	struct events_host h;
	struct agent_event ev[2];
	uint32_t nev;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_dir(dir, "ibs_op");
	make_dir(dir, "ibs_op/format");
	write_file(dir, "ibs_op/type", "11\n");
	write_file(dir, "ibs_op/format/cnt_ctl", "config:19\n");
	write_file(dir, "ibs_op/format/swfilt", "config2:0\n");
	make_dir(dir, "arm_spe_0");
	make_dir(dir, "arm_spe_0/format");
	write_file(dir, "arm_spe_0/type", "8\n");
	write_file(dir, "arm_spe_0/format/ts_enable", "config:0\n");
	write_file(dir, "arm_spe_0/format/load_filter", "config:33\n");
	write_file(dir, "arm_spe_0/format/store_filter", "config:34\n");

	memset(&h, 0, sizeof(h));
	snprintf(h.sysfs_dir, sizeof(h.sysfs_dir), "%s", dir);
	h.row = events_table_lookup("amd64_fam19h_zen3");
	assert_non_null(h.row);
	assert_int_equal(events_mem_encode(&h, 4096, ev, &nev, err, sizeof(err)), 0);
	assert_int_equal(nev, 1);
	assert_int_equal(ev[0].type, 11);
	assert_int_equal(ev[0].config, 1ull << 19);
	assert_int_equal(ev[0].config2, 1);
	assert_int_equal(ev[0].period, 4096);
	assert_int_equal(ev[0].kind, 0);

	h.row = events_table_lookup("arm_n1");
	assert_non_null(h.row);
	assert_int_equal(h.row->route, EV_ROUTE_SPE);
	assert_int_equal(events_mem_encode(&h, 4096, ev, &nev, err, sizeof(err)), 0);
	assert_int_equal(ev[0].type, 8);
	assert_int_equal(ev[0].config, 1ull | 1ull << 33 | 1ull << 34);

	/* A malformed format file is an error, not a silently wrong config. */
	write_file(dir, "ibs_op/format/cnt_ctl", "bogus\n");
	h.row = events_table_lookup("amd64_fam17h_zen1");
	assert_int_equal(events_mem_encode(&h, 4096, ev, &nev, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ibs_op"));

	/* PMU gone: -ENOENT naming the file. */
	rm_tree(dir);
	assert_int_equal(events_mem_encode(&h, 4096, ev, &nev, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "ibs_op/type"));
	assert_int_equal(nev, 0);
}

static void test_table(void **state)
{
	char name[128];
	const struct ev_row *r;

	(void)state;
	assert_null(events_table_lookup("nosuch"));
	assert_null(events_table_lookup(""));
	assert_null(events_table_lookup(NULL));
	/* Prefix rows must not swallow a different family. */
	assert_null(events_table_lookup("amd64_fam15h_interlagos"));
	r = events_table_lookup("skx");
	assert_non_null(r);
	events_mem_name(r, name, sizeof(name));
	assert_string_equal(name, "MEM_INST_RETIRED:ALL_LOADS+ALL_STORES");
	r = events_table_lookup("hsw");
	events_mem_name(r, name, sizeof(name));
	assert_string_equal(name, "MEM_UOPS_RETIRED:ALL_LOADS+ALL_STORES");
	events_mem_name(events_table_lookup("amd64_fam19h_zen4"), name, sizeof(name));
	assert_string_equal(name, "ibs_op (AMD IBS op)");
	events_mem_name(NULL, name, sizeof(name));
	assert_string_equal(name, "none");
	/* Every libpfm4-routed row names both events. */
	for (r = events_table(); r->pmu; r++)
		if (r->route == EV_ROUTE_PFM)
			assert_true(r->load && r->store);
}

/* Host encoding (no forcing): generic perf names and unknown names. */
static void test_encode_host(void **state)
{
	struct agent_event ev;
	char err[512];

	(void)state;
	assert_int_equal(events_init(), 0);
	assert_int_equal(events_encode("task-clock", 0, &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(events_encode("cycles", 5000, &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.type, PERF_TYPE_HARDWARE);
	assert_int_equal(ev.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(ev.period, 5000);
	assert_int_equal(events_encode("NO_SUCH_EVENT_XYZ", 0, &ev, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "event 'NO_SUCH_EVENT_XYZ' is unknown to this CPU ("));
	assert_non_null(strstr(err, "libpfm4"));
	assert_int_equal(events_encode("", 0, &ev, err, sizeof(err)), -EINVAL);
}

/* ---- sample-source selection on this host ---- */

static int host_has_pmu(void)
{
	struct events_host h;

	events_host_detect(&h);
	return h.hw_pmu;
}

static uint64_t max_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long v = 0;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

static void test_source_auto(void **state)
{
	struct source_req req = { .source = SRC_NONE };
	struct agent_cfg cfg;
	char why[512];

	(void)state;
	if (host_has_pmu())
		skip();
	memset(&cfg, 0xff, sizeof(cfg));
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.source, SRC_SOFT);
	assert_int_equal(cfg.nevents, 1);
	assert_int_equal(cfg.ev[0].type, PERF_TYPE_SOFTWARE);
	assert_int_equal(cfg.ev[0].config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(cfg.ev[0].period, 1000000000ull / SOFT_DEFAULT_HZ);
	assert_int_equal(cfg.ev[0].period, 1000000);
	assert_int_equal(cfg.ev[0].kind, 0);
	assert_int_equal(cfg.max_steps, 16);
	assert_int_equal(cfg.ring_pages, 8);
	assert_non_null(strstr(why, "no hardware PMU"));
	assert_non_null(strstr(why, "using soft sampling at 1 kHz"));

	/* A --period without --source counts pmu events: not reused as ns. */
	req.period = 777;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.ev[0].period, 1000000);
	assert_non_null(strstr(why, "--period ignored"));
	/* A tool's own default rate. */
	req.period = 0;
	req.default_hz = 2000;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.ev[0].period, 500000);
	assert_non_null(strstr(why, "using soft sampling at 2 kHz"));
}

static void test_source_pmu_absent(void **state)
{
	struct source_req req = { .source = SRC_PMU };
	struct agent_cfg cfg;
	char why[512];

	(void)state;
	if (host_has_pmu())
		skip();
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "--source pmu: the kernel exposes no hardware PMU"));
	assert_non_null(strstr(why, "use --source soft"));
	assert_int_equal(cfg.nevents, 0);
}

static void test_source_soft_rates(void **state)
{
	struct source_req req = { .source = SRC_SOFT, .freq = 1000 };
	struct agent_cfg cfg;
	uint64_t max = max_rate();
	char why[512];

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.source, SRC_SOFT);
	assert_int_equal(cfg.ev[0].period, 1000000);
	assert_string_equal(why, "using soft sampling at 1 kHz");

	req.freq = 0;
	req.period = 123456;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.ev[0].period, 123456);
	assert_non_null(strstr(why, "every 123456 ns"));

	/* The kernel's cap is allowed; one above is refused, naming the file. */
	req.period = 0;
	req.freq = max;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.ev[0].period, 1000000000ull / max);
	req.freq = max + 1;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "/proc/sys/kernel/perf_event_max_sample_rate"));
	req.freq = 0;
	req.period = 1000000000ull / max - 1;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "perf_event_max_sample_rate"));

	req.period = 1000;
	req.freq = 1000;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not both"));

	req.source = SRC_PMU;
	req.period = 0;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "--freq"));

	req.source = 99;
	assert_int_equal(source_select(&req, &cfg, why, sizeof(why)), -EINVAL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_hsw),
		cmocka_unit_test(test_mem_bdw),
		cmocka_unit_test(test_mem_skl),
		cmocka_unit_test(test_mem_skx),
		cmocka_unit_test(test_mem_icl),
		cmocka_unit_test(test_mem_spr),
		cmocka_unit_test(test_encode_forced),
		cmocka_unit_test(test_fvar_hsw),
		cmocka_unit_test(test_fvar_skl),
		cmocka_unit_test(test_fvar_icl),
		cmocka_unit_test(test_fvar_spr),
		cmocka_unit_test(test_fvar_zen),
		cmocka_unit_test(test_fvar_arm),
		cmocka_unit_test(test_mem_no_row),
		cmocka_unit_test(test_mem_zen),
		cmocka_unit_test(test_sysfs_routes),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_encode_host),
		cmocka_unit_test(test_source_auto),
		cmocka_unit_test(test_source_pmu_absent),
		cmocka_unit_test(test_source_soft_rates),
	};
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--helper"))
		return helper_main(argc, argv);
	/* LIBPFM_FORCE_PMU in our own environment would skew host checks. */
	unsetenv("LIBPFM_FORCE_PMU");
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		printf("skip: /proc/self/exe unreadable\n");
		return 77;
	}
	self_exe[n] = '\0';
	return cmocka_run_group_tests(tests, NULL, NULL);
}
