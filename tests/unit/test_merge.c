// SPDX-License-Identifier: GPL-2.0-only
/*
 * Merged profiles (lib/core/profile_merge.c) and what reports do with them:
 * two comm profiles of the same pid (two hosts) stay two processes, their
 * threads are numbered rank after rank and labelled rank.thread, symbols
 * follow their process, meta that must agree is checked, the run totals
 * add up; comm records folded as they are read give the model that kept
 * records give; and tables sort by a column (output/table.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/core/profile.h"
#include "lib/tools/comm/comm.h"
#include "lib/tools/comm/model.h"
#include "lib/tools/tool.h"
#include "output/table.h"

#define PID 700

static char tdir[256];

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tdir, name);
}

static void add(struct profile *p, const void *r)
{
	assert_int_equal(profile_add(p, r), 0);
}

/* A comm profile: one process PID, threads PID..PID+n-1; thread 0 and 1
 * share a line `weight` times.  source and host as given. */
static void write_comm(const char *name, unsigned n, unsigned weight, const char *source,
		       const char *host, uint64_t code_addr)
{
	union {
		struct rec_proc r;
		char b[sizeof(struct rec_proc) + 16];
	} proc = { 0 };
	union {
		struct rec_sym r;
		char b[sizeof(struct rec_sym) + 64];
	} sym = { 0 };
	struct rec_runstats rs = { .h = { sizeof(rs), REC_RUNSTATS, 0 } };
	char path[512];
	struct profile p;

	profile_init(&p);
	p.ops = tools_prof("comm");
	assert_int_equal(profile_set_meta(&p, "tool", "comm"), 0);
	assert_int_equal(profile_set_meta(&p, "source", source), 0);
	assert_int_equal(profile_set_meta(&p, "period", "1000"), 0);
	assert_int_equal(profile_set_meta(&p, "wp", "4"), 0);
	assert_int_equal(profile_set_meta(&p, "host", host), 0);
	for (int c = 0; c < 2; c++) {
		struct rec_cpu r = { { sizeof(r), REC_CPU, 0 }, c, c, 0, 0 };

		add(&p, &r);
	}
	proc.r.h = (struct rec_hdr){ sizeof(proc), REC_PROC, 0 };
	proc.r.pid = PID;
	proc.r.ppid = 1;
	proc.r.time = 1;
	strcpy(proc.r.exe, "/bin/app");
	add(&p, &proc);
	for (unsigned i = 0; i < n; i++) {
		struct rec_thread r = { { sizeof(r), REC_THREAD, 0 }, PID, PID + i, 10 + i, 0,
					i ? 0 : THREAD_F_MAIN, "app" };

		add(&p, &r);
	}
	/* A code symbol: its name says which file it came from. */
	sym.r.h = (struct rec_hdr){ REC_SIZE(sizeof(struct rec_sym) + 9 + 1 + 2), REC_SYM, 0 };
	sym.r.pid = PID;
	sym.r.kind = SYM_CODE;
	sym.r.name_len = 9;
	sym.r.addr = 0x1000;
	sym.r.sym_start = 0x1000;
	sym.r.sym_size = 16;
	sym.r.file_len = 1;
	sym.r.module_len = 2;
	snprintf(sym.r.str, 9, "fn_%s", host);
	sym.r.str[10] = 'm';
	add(&p, &sym);
	for (unsigned k = 0; k < weight; k++) {
		struct rec_comm c = { .h = { sizeof(c), REC_COMM, 0 } };

		c.pid = PID;
		c.tid = PID + (k & 1);
		c.pub_tid = PID + !(k & 1);
		c.flags = COMM_F_TRUE;
		c.cpu = k & 1;
		c.pub_cpu = !(k & 1);
		c.time = c.pub_time = 100 + k;
		c.addr = c.pub_addr = 0x5000;
		c.ip = c.pub_ip = code_addr;
		c.size = c.pub_size = 8;
		c.kind = c.pub_kind = MEM_STORE;
		add(&p, &c);
	}
	rs.start_ns = 1000;
	rs.end_ns = 2000;
	rs.records = weight;
	rs.procs = 1;
	rs.threads = n;
	add(&p, &rs);
	profile_number_tasks(&p);
	path_of(path, sizeof(path), name);
	assert_int_equal(profile_write(&p, path), 0);
	profile_free(&p);
}

static int merge(struct profile *p, const char *name, uint32_t rank, char *err, size_t len)
{
	char path[512];

	path_of(path, sizeof(path), name);
	return profile_merge_read(p, path, rank, err, len);
}

static void test_two_hosts(void **state)
{
	const struct comm_model *m;
	struct profile p;
	char err[256], lab[32];

	(void)state;
	write_comm("a.data", 2, 3, "soft", "hostA", 0x1000);
	write_comm("b.data", 3, 5, "soft", "hostB", 0x1000);
	profile_init(&p);
	p.ops_of = tools_prof;
	p.folding = 1;
	assert_int_equal(merge(&p, "a.data", 0, err, sizeof(err)), 0);
	assert_int_equal(merge(&p, "b.data", 1, err, sizeof(err)), 0);
	/* Two processes of one pid: two keys, both showing the real pid. */
	assert_int_equal(p.nprocs, 2);
	assert_int_not_equal(p.procs[0].pid, p.procs[1].pid);
	assert_int_equal(profile_os_pid(&p, p.procs[0].pid), PID);
	assert_int_equal(profile_os_pid(&p, p.procs[1].pid), PID);
	assert_int_equal(p.ntasks, 5);
	for (size_t i = 0; i < p.ntasks; i++)
		assert_int_equal(p.tasks[i].index, i);
	assert_string_equal(profile_thread_label(&p, 0, lab, sizeof(lab)), "0.0");
	assert_string_equal(profile_thread_label(&p, 1, lab, sizeof(lab)), "0.1");
	assert_string_equal(profile_thread_label(&p, 2, lab, sizeof(lab)), "1.0");
	assert_string_equal(profile_thread_label(&p, 4, lab, sizeof(lab)), "1.2");
	/* Symbols follow their process. */
	assert_string_equal(profile_sym(&p, p.procs[0].pid, 5, SYM_CODE, 0x1000)->name, "fn_hostA");
	assert_string_equal(profile_sym(&p, p.procs[1].pid, 5, SYM_CODE, 0x1000)->name, "fn_hostB");
	/* Comm records were folded, not kept, and never mix ranks. */
	assert_int_equal(p.ntool_recs, 0);
	m = comm_of(&p);
	assert_non_null(m);
	assert_int_equal(m->events, 8);
	assert_int_equal(m->n[CL_THREAD], 5);
	assert_true(comm_cell(m, CL_THREAD, CM_ALL, 0, 1) == 3);
	assert_true(comm_cell(m, CL_THREAD, CM_ALL, 2, 3) == 5);
	assert_true(comm_cell(m, CL_THREAD, CM_ALL, 1, 2) == 0);
	/* Two lines at the same address, one per process. */
	assert_int_equal(m->nlines, 2);
	/* Another host: no core or node level. */
	assert_int_equal(p.topo.ncpus, 0);
	assert_string_equal(profile_meta(&p, "host"), "hostA, hostB");
	assert_string_equal(profile_meta(&p, "merged"), "2 files (ranks 0 to 1)");
	assert_int_equal(p.run.records, 8);
	assert_int_equal(p.run.threads, 5);
	profile_free(&p);
}

static void test_same_host_keeps_topology(void **state)
{
	const struct comm_model *m;
	struct profile p;
	char err[256];

	(void)state;
	write_comm("a.data", 2, 3, "soft", "hostA", 0x1000);
	write_comm("c.data", 2, 4, "soft", "hostA", 0x1000);
	profile_init(&p);
	p.ops_of = tools_prof;
	p.folding = 1;
	assert_int_equal(merge(&p, "a.data", 3, err, sizeof(err)), 0);
	assert_int_equal(merge(&p, "c.data", 7, err, sizeof(err)), 0);
	assert_int_equal(p.topo.ncpus, 2);
	m = comm_of(&p);
	assert_non_null(m);
	assert_int_equal(m->n[CL_CORE], 2);
	assert_true(comm_cell(m, CL_CORE, CM_ALL, 0, 1) == 7);
	profile_free(&p);
}

static void test_refused(void **state)
{
	struct profile p;
	char err[256];

	(void)state;
	write_comm("a.data", 2, 3, "soft", "hostA", 0x1000);
	write_comm("pmu.data", 2, 3, "pmu", "hostA", 0x1000);
	profile_init(&p);
	assert_int_equal(merge(&p, "a.data", 0, err, sizeof(err)), 0);
	assert_int_equal(merge(&p, "pmu.data", 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "source pmu"));
	profile_free(&p);
	/* Ranks go up. */
	profile_init(&p);
	assert_int_equal(merge(&p, "a.data", 2, err, sizeof(err)), 0);
	assert_int_equal(merge(&p, "a.data", 2, err, sizeof(err)), -EINVAL);
	profile_free(&p);
}

/* The fold gives the model that the kept records give. */
static void test_fold_equals_build(void **state)
{
	struct comm_model a;
	const struct comm_model *b;
	struct profile kept, folded;
	char path[512], err[256];

	(void)state;
	write_comm("a.data", 3, 9, "pmu", "hostA", 0x1000);
	path_of(path, sizeof(path), "a.data");
	profile_init(&kept);
	profile_init(&folded);
	kept.ops_of = tools_prof;
	folded.ops_of = tools_prof;
	folded.folding = 1;
	assert_int_equal(profile_read(&kept, path, err, sizeof(err)), 0);
	assert_int_equal(profile_read(&folded, path, err, sizeof(err)), 0);
	assert_int_equal(kept.ntool_recs, 9);
	assert_int_equal(folded.ntool_recs, 0);
	assert_int_equal(comm_build(&kept, &a), 0);
	b = comm_of(&folded);
	assert_non_null(b);
	assert_int_equal(a.events, b->events);
	assert_true(a.total[CM_ALL] == b->total[CM_ALL] && a.total[CM_ALL] == 9000);
	assert_int_equal(a.nlines, b->nlines);
	assert_int_equal(a.ncodes, b->ncodes);
	assert_string_equal(a.codes[0].loc, b->codes[0].loc);
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 3; j++)
			assert_true(comm_cell(&a, CL_THREAD, CM_ALL, i, j) ==
				    comm_cell(b, CL_THREAD, CM_ALL, i, j));
	comm_free(&a);
	profile_free(&kept);
	profile_free(&folded);
}

/* Many processes and threads: the hashed lookups answer as the scans do,
 * a tid reused by an exec'd image included. */
static void test_lookups(void **state)
{
	struct profile p;

	(void)state;
	profile_init(&p);
	for (uint32_t pid = 100; pid < 140; pid++) {
		union {
			struct rec_proc r;
			char b[sizeof(struct rec_proc) + 16];
		} u = { 0 };

		u.r.h = (struct rec_hdr){ sizeof(u), REC_PROC, 0 };
		u.r.pid = pid;
		u.r.time = pid;
		strcpy(u.r.exe, "/bin/a");
		add(&p, &u);
		for (uint32_t k = 0; k < 2; k++) {
			struct rec_thread r = { { sizeof(r), REC_THREAD, 0 }, pid, pid * 10 + k,
						pid + k, 0, k ? 0 : THREAD_F_MAIN, "t" };

			add(&p, &r);
		}
	}
	/* Process 120 execs at 1000: its threads end, the same tid starts again. */
	{
		union {
			struct rec_proc r;
			char b[sizeof(struct rec_proc) + 16];
		} u = { 0 };
		struct rec_thread r = { { sizeof(r), REC_THREAD, 0 }, 120, 1200, 1000, 0,
					THREAD_F_MAIN, "t" };

		u.r.h = (struct rec_hdr){ sizeof(u), REC_PROC, 0 };
		u.r.pid = 120;
		u.r.time = 1000;
		strcpy(u.r.exe, "/bin/b");
		add(&p, &u);
		add(&p, &r);
	}
	profile_number_tasks(&p);
	assert_int_equal(p.ntasks, 81);
	assert_int_equal(profile_task_by_tid(&p, 131, 1311, 500)->start, 132);
	assert_null(profile_task_by_tid(&p, 131, 1312, 500));
	assert_null(profile_task_by_tid(&p, 99, 990, 500));
	/* Before the exec the first task, after it the second. */
	assert_int_equal(profile_task_by_tid(&p, 120, 1200, 500)->start, 120);
	assert_int_equal(profile_task_by_tid(&p, 120, 1200, 2000)->start, 1000);
	/* Before either started: the first. */
	assert_int_equal(profile_task_by_tid(&p, 120, 1200, 5)->start, 120);
	assert_int_equal(profile_image(&p, 120, 500), 120);
	assert_int_equal(profile_image(&p, 120, 2000), 120 | 1u << 22);
	assert_int_equal(profile_image(&p, 139, 2000), 139);
	profile_free(&p);
}

static void test_table_sort(void **state)
{
	static const char *const cols[] = { "name", "n:r", NULL };
	static const char *const rows[][2] = {
		{ "t10", "1.5" }, { "t2", "1.25" }, { "t1", "1e+06" }, { "t3", "1.5" }, { "t0", "" },
	};
	struct table t;

	(void)state;
	table_init(&t, NULL, cols);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_false(table_row(&t) || table_cell(&t, "%s", rows[i][0]) ||
			     table_cell(&t, "%s", rows[i][1]));
	assert_int_equal(table_col(&t, "n"), 1);
	assert_int_equal(table_col(&t, "n:r"), -1);
	assert_int_equal(table_col(&t, "x"), -1);
	/* Numbers from the largest, ties in the view's order, blanks last. */
	assert_int_equal(table_sort(&t, 1), 0);
	assert_string_equal(t.cells[0], "t1");
	assert_string_equal(t.cells[2], "t10");
	assert_string_equal(t.cells[4], "t3");
	assert_string_equal(t.cells[6], "t2");
	assert_string_equal(t.cells[8], "t0");
	/* Text from A, numbers in it by value. */
	assert_int_equal(table_sort(&t, 0), 0);
	assert_string_equal(t.cells[0], "t0");
	assert_string_equal(t.cells[4], "t2");
	assert_string_equal(t.cells[8], "t10");
	table_top(&t, 2);
	assert_int_equal(t.nrows, 2);
	assert_int_equal(t.hidden, 3);
	table_free(&t);
}

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tdir, sizeof(tdir), "%s/cdt-merge-XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(tdir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const names[] = { "a.data", "b.data", "c.data", "pmu.data" };
	char path[512];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_of(path, sizeof(path), names[i]);
		unlink(path);
	}
	return rmdir(tdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_hosts),
		cmocka_unit_test(test_same_host_keeps_topology),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_fold_equals_build),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_table_sort),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
