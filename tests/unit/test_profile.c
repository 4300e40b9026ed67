// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile as records from the arena build it: the stats a thread
 * sends while it runs and when it ends (the latest snapshot wins, whatever
 * order the arena holds them in), and thread numbering by creation time.
 * Records that evolve: shorter ones from an older writer read with the
 * missing fields zero, longer ones from a newer writer without their
 * tail; the tool's own types are checked against the tool's table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/core/profile.h"
#include "lib/tools/comm/comm.h"
#include "lib/tools/tool.h"

static void add_proc(struct profile *p, uint32_t pid, uint64_t time)
{
	union {
		struct rec_proc r;
		char b[sizeof(struct rec_proc) + 16];
	} u = { 0 };

	u.r.h.size = sizeof(u);
	u.r.h.type = REC_PROC;
	u.r.pid = pid;
	u.r.ppid = 1;
	u.r.time = time;
	strcpy(u.r.exe, "/bin/app");
	assert_int_equal(profile_add(p, &u.r.h), 0);
}

/* time: when the thread was created (rec_thread.time). */
static void add_thread(struct profile *p, uint32_t pid, uint32_t tid, uint64_t time,
		       uint32_t flags)
{
	struct rec_thread r = { .h = { sizeof(r), REC_THREAD, 0 } };

	r.pid = pid;
	r.tid = tid;
	r.time = time;
	r.flags = flags;
	strcpy(r.name, "app");
	assert_int_equal(profile_add(p, &r.h), 0);
}

static void add_stats(struct profile *p, uint16_t type, uint32_t tid, uint64_t time,
		      uint64_t samples, const char *name)
{
	struct rec_thread_end r = { .h = { sizeof(r), type, 0 } };

	r.pid = 100;
	r.tid = tid;
	r.time = time;
	r.st.samples = samples;
	r.st.handler_ns = samples * 1000;
	strcpy(r.name, name);
	assert_int_equal(profile_add(p, &r.h), 0);
}

static void test_stats_snapshots(void **state)
{
	struct profile p;
	const struct rec_task *t;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1);
	add_thread(&p, 100, 100, 1, THREAD_F_MAIN);
	add_thread(&p, 100, 101, 2, 0);
	/* Snapshots of a live thread: the task takes each, and stays live. */
	add_stats(&p, REC_THREAD_STATS, 101, 10, 5, "");
	add_stats(&p, REC_THREAD_STATS, 101, 20, 9, "late-name");
	assert_int_equal(p.ntasks, 2);
	t = &p.tasks[1];
	assert_int_equal(t->tid, 101);
	assert_int_equal(t->st.samples, 9);
	assert_int_equal(t->st.handler_ns, 9000);
	assert_int_equal(t->end, 0);
	assert_string_equal(t->name, "late-name");
	/* The exit flush read the counters before the last snapshot: it ends
	 * the thread but does not roll its stats or name back. */
	add_stats(&p, REC_THREAD_END, 101, 30, 7, "");
	assert_int_equal(t->end, 30);
	assert_int_equal(t->st.samples, 9);
	assert_string_equal(t->name, "late-name");
	/* Only the main thread's snapshot survived a kill: it still counts. */
	add_stats(&p, REC_THREAD_STATS, 100, 40, 3, "app");
	assert_int_equal(p.tasks[0].st.samples, 3);
	assert_int_equal(p.tasks[0].end, 0);
	/* A thread the profile never saw start: ignored. */
	add_stats(&p, REC_THREAD_STATS, 999, 50, 1, "x");
	assert_int_equal(p.ntasks, 2);
	profile_free(&p);
}

static void test_number_by_creation(void **state)
{
	struct profile p;
	static const uint32_t want[] = { 100, 200, 102, 103, 201 };

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1);
	add_thread(&p, 100, 100, 10, THREAD_F_MAIN);
	/* 103 was created after 102 but started running first. */
	add_thread(&p, 100, 103, 30, 0);
	add_thread(&p, 100, 102, 20, 0);
	/* A forked child's first thread, created with 102's time: a main
	 * thread goes first at the same instant. */
	add_proc(&p, 200, 20);
	add_thread(&p, 200, 201, 40, 0);
	add_thread(&p, 200, 200, 20, THREAD_F_MAIN);
	profile_number_tasks(&p);
	assert_int_equal(p.ntasks, 5);
	for (size_t i = 0; i < p.ntasks; i++) {
		assert_int_equal(p.tasks[i].index, i);
		assert_int_equal(p.tasks[i].tid, want[i]);
	}
	assert_int_equal(profile_task_by_tid(&p, 100, 103, 35)->index, 3);
	profile_free(&p);
}

static void test_records_evolve(void **state)
{
	union {
		struct rec_runstats r;
		struct rec_sample s;
		struct rec_comm c;
		unsigned char b[256];
	} u;
	struct profile p;

	(void)state;
	profile_init(&p);
	/* A 1.0 run total: it ended before the rejection counts. */
	memset(&u, 0xee, sizeof(u));
	u.r.h = (struct rec_hdr){ offsetof(struct rec_runstats, rejected), REC_RUNSTATS, 0 };
	u.r.exit_status = 3;
	assert_int_equal(profile_add(&p, &u.r.h), 0);
	assert_int_equal(p.run.exit_status, 3);
	assert_int_equal(p.run.rejected[REJ_TYPE] | p.run.rejected[REJ_FRAME], 0);
	assert_int_equal(p.run.skipped_bytes, 0);
	assert_int_equal(p.run.h.size, sizeof(p.run));
	/* Shorter than the type was ever written: refused, saying why. */
	u.r.h.size = 64;
	assert_int_equal(profile_add(&p, &u.r.h), -EBADMSG);
	assert_non_null(strstr(p.why, "below the minimum 72 of REC_RUNSTATS"));
	/* A sample with a field this cdt does not know: kept without it. */
	memset(&u, 0, sizeof(u));
	u.s.h = (struct rec_hdr){ sizeof(u.s) + 16, REC_SAMPLE, 0 };
	u.s.addr = 0x1234;
	u.s.kind = MEM_STORE;
	assert_int_equal(profile_add(&p, &u.s.h), 0);
	assert_int_equal(p.nsamples, 1);
	assert_int_equal(p.samples[0].addr, 0x1234);
	assert_int_equal(p.samples[0].h.size, sizeof(struct rec_sample));
	/* A kind no table has: refused before any view indexes by it. */
	u.s.kind = 9;
	assert_int_equal(profile_add(&p, &u.s.h), -EBADMSG);
	/* A tool's record, before the profile knows its tool: kept as bytes. */
	memset(&u, 0, sizeof(u));
	u.c.h = (struct rec_hdr){ 8, REC_COMM, 0 };
	assert_int_equal(profile_add(&p, &u.c.h), 0);
	assert_int_equal(p.ntool_recs, 1);
	/* Once it does, the tool's table sizes it: 8 bytes is no rec_comm. */
	p.ops = tools_prof("comm");
	assert_non_null(p.ops);
	assert_int_equal(profile_add(&p, &u.c.h), -EBADMSG);
	u.c.h.size = sizeof(u.c);
	u.c.kind = MEM_LOAD;
	assert_int_equal(profile_add(&p, &u.c.h), 0);
	assert_int_equal(p.ntool_recs, 2);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_snapshots),
		cmocka_unit_test(test_number_by_creation),
		cmocka_unit_test(test_records_evolve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
