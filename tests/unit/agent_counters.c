// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's counting-mode events (lib/agent/counters.c), with software
 * events that count without a PMU: a thread opens its group when it
 * starts; agent_counters_read() gives task-clock and page-faults that grow
 * with the thread's own work and not with a sleeping thread's; the tool's
 * counters hook gets them every counter_interval_ns at the thread's
 * samples, and once more when the thread ends, after which its fds are
 * closed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/agent/agent.h"

#define PAGES 256

static struct agent_counts got[64];
static int ngot;
static pid_t got_tid;

static void on_counters(struct agent_thread *t, const struct agent_counts *c)
{
	if (ngot < (int)(sizeof(got) / sizeof(got[0])))
		got[ngot++] = *c;
	got_tid = t->tid;
}

static const struct agent_tool test_tool = { .counters = on_counters };

static void setup_agent(uint64_t interval_ns)
{
	struct agent_cfg cfg = { .tool = "test", .source = SRC_SOFT, .ncounters = 2 };

	memset(&agent_g, 0, sizeof(agent_g));
	cfg.counter[0].type = PERF_TYPE_SOFTWARE;
	cfg.counter[0].config = PERF_COUNT_SW_TASK_CLOCK;
	cfg.counter[1].type = PERF_TYPE_SOFTWARE;
	cfg.counter[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	cfg.counter_interval_ns = interval_ns;
	assert_int_equal(arena_create(&agent_g.arena, 1 << 20, &cfg), 0);
	agent_g.cfg = cfg;
	agent_g.pid = getpid();
	agent_g.tool = &test_tool;
	assert_int_equal(sigchain_install(), 0);
	agent_g.active = 1;
	ngot = 0;
}

static void teardown_agent(void)
{
	arena_destroy(&agent_g.arena);
	agent_g.active = 0;
}

/* Touch n fresh pages: n page faults, some CPU time. */
static void work(int n)
{
	unsigned char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	for (int i = 0; i < n; i++)
		((volatile unsigned char *)p)[i * 4096] = 1;
	munmap(p, (size_t)n * 4096);
}

static void test_read(void **state)
{
	struct agent_counts a, b, c;
	struct agent_thread *t;

	(void)state;
	setup_agent(0);
	t = agent_thread_start(1, 0);
	assert_non_null(t);
	assert_true(t->count_fd[0] >= 0 && t->count_fd[1] >= 0);
	assert_int_equal(agent_counters_read(t, &a), 0);
	assert_int_equal(a.n, 2);
	work(PAGES);
	assert_int_equal(agent_counters_read(t, &b), 0);
	/* Every fresh page faults once; task-clock counts ns of this thread. */
	assert_true(b.v[1] - a.v[1] >= PAGES);
	assert_true(b.v[0] > a.v[0]);
	assert_true(b.enabled >= b.running && b.running > 0);
	/* A sleep is not the thread's CPU time, nor a fault. */
	usleep(50000);
	assert_int_equal(agent_counters_read(t, &c), 0);
	assert_true(c.v[0] - b.v[0] < 20000000);
	assert_true(c.v[1] - b.v[1] < PAGES / 4);
	agent_thread_stop(t);
	/* The end hands the final values to the tool, and closes the group. */
	assert_int_equal(ngot, 1);
	assert_true(got[0].v[1] >= c.v[1]);
	assert_int_equal(got_tid, gettid());
	assert_int_equal(t->count_fd[0], -1);
	assert_int_equal(agent_counters_read(t, &c), -ENOENT);
	assert_int_equal(c.n, 0);
	teardown_agent();
}

/* Samples hand the counters to the tool no more often than the interval. */
static void test_interval(void **state)
{
	struct agent_thread *t;
	uint64_t start;
	int ticks = 0;

	(void)state;
	setup_agent(20000000);
	t = agent_thread_start(1, 0);
	assert_non_null(t);
	start = agent_now();
	/* A "sample" every ms for 110 ms: about 5 hand-overs, not 110. */
	while (agent_now() - start < 110000000ull) {
		work(4);
		counters_tick(t, agent_now(), 0);
		ticks++;
		usleep(1000);
	}
	assert_true(ticks > 50);
	assert_in_range(ngot, 4, 6);
	for (int i = 1; i < ngot; i++)
		assert_true(got[i].v[1] >= got[i - 1].v[1]);
	agent_thread_stop(t);
	assert_in_range(ngot, 5, 7);
	teardown_agent();
}

/* A tool without counters: the group is never opened. */
static void test_none(void **state)
{
	struct agent_cfg cfg = { .tool = "test", .source = SRC_SOFT };
	struct agent_counts c;
	struct agent_thread *t;

	(void)state;
	setup_agent(0);
	agent_g.cfg = cfg;
	t = agent_thread_start(1, 0);
	assert_non_null(t);
	assert_int_equal(t->count_fd[0], -1);
	assert_int_equal(agent_counters_read(t, &c), -ENOENT);
	agent_thread_stop(t);
	assert_int_equal(ngot, 0);
	teardown_agent();
}

/*
 * A hardware group, read with rdpmc where the kernel allows it: values
 * that grow with the thread's instructions and agree with read(2) of the
 * group.  Skipped without a hardware PMU (a VM or CI runner).
 */
static void test_hardware(void **state)
{
	struct agent_counts a, b;
	struct agent_thread *t;
	uint64_t buf[3 + AGENT_MAX_COUNTERS];
	const volatile struct perf_event_mmap_page *pc;

	(void)state;
	setup_agent(0);
	agent_g.cfg.counter[0].type = PERF_TYPE_HARDWARE;
	agent_g.cfg.counter[0].config = PERF_COUNT_HW_INSTRUCTIONS;
	agent_g.cfg.counter[1].type = PERF_TYPE_HARDWARE;
	agent_g.cfg.counter[1].config = PERF_COUNT_HW_CPU_CYCLES;
	t = agent_thread_start(1, 0);
	assert_non_null(t);
	if (t->count_fd[0] < 0) {
		fprintf(stderr, "agent_counters: no hardware PMU here: the rdpmc read is not "
				"tested (skipped)\n");
		agent_thread_stop(t);
		teardown_agent();
		skip();
	}
	pc = t->count_page[0];
	assert_non_null(pc);
	fprintf(stderr, "agent_counters: cap_user_rdpmc %d, index %u\n", (int)pc->cap_user_rdpmc,
		pc->index);
	assert_int_equal(agent_counters_read(t, &a), 0);
	work(PAGES);
	assert_int_equal(agent_counters_read(t, &b), 0);
	assert_true(b.v[0] - a.v[0] >= PAGES);
	assert_true(b.v[1] > a.v[1]);
	assert_true(read(t->count_fd[t->count_lead], buf, sizeof(buf)) > 0);
	assert_int_equal(buf[0], 2);
	assert_true(buf[3] >= b.v[0] && buf[3] - b.v[0] < 1000000);
	agent_thread_stop(t);
	teardown_agent();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_hardware),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
