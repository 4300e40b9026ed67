// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile as records from the arena build it: the stats a thread
 * sends while it runs and when it ends (the latest snapshot wins, whatever
 * order the arena holds them in), and thread numbering by creation time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/core/profile.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_snapshots),
		cmocka_unit_test(test_number_by_creation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
