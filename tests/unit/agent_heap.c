// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent allocates nothing from the program's heap (lib/agent/objects.c):
 * not when a thread starts (its stack range comes from pthread_getattr_np,
 * which reads /proc/self/maps with fopen in the first thread and copies the
 * CPU set in every one), not when it looks up the next definition of a
 * symbol (dlsym allocates when a lookup fails), and not when it unwinds a
 * call path, the first time in a thread included.  Heap objects are on, as
 * they are by default.
 *
 * glibc gives a thread its cache of blocks at its first allocation and keeps
 * it while the thread lives; the first allocation of a process sets up its
 * heap: either shows in mallinfo2.  So the process's first thread is checked
 * before anything else in main() allocates, and new threads before they end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#include "lib/agent/agent.h"

static const struct agent_tool test_tool = { 0 };

/* What the agent's calls in a thread took from the heap, in bytes. */
static size_t heap_used(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.arena + m.hblkhd + m.uordblks;
}

static _Unwind_Reason_Code count_frame(struct _Unwind_Context *ctx, void *arg)
{
	(void)ctx;
	++*(int *)arg;
	return _URC_NO_REASON;
}

/* The agent's calls that must allocate nothing: the frames unwound. */
static int agent_calls(void)
{
	int frames = 0;

	if (!agent_next("malloc") || !agent_next("pthread_create") ||
	    agent_next("cdt_no_such_symbol"))
		return -1;
	(void)_Unwind_Backtrace(count_frame, &frames);
	return frames;
}

/* main(): the first thread's start and calls, before anything allocated. */
static size_t first_before, first_after;
static int first_frames;

static int first_thread(void)
{
	struct agent_cfg cfg = { .tool = "test", .source = SRC_SOFT, .flags = AGENT_F_OBJECTS };

	first_before = heap_used();
	if (arena_create(&agent_g.arena, 1 << 22, &cfg))
		return -1;
	agent_g.cfg = cfg;
	agent_g.pid = getpid();
	agent_g.tool = &test_tool;
	if (sigchain_install())
		return -1;
	agent_g.active = 1;
	if (!agent_thread_start(1, 0))
		return -1;
	first_frames = agent_calls();
	first_after = heap_used();
	return 0;
}

static void test_first_thread(void **state)
{
	struct agent_thread *t = agent_self();

	(void)state;
	assert_non_null(t);
	/* The stack range was found (the fopen path), and a call path unwound. */
	assert_true(t->stack_lo < (uint64_t)(uintptr_t)&t && (uint64_t)(uintptr_t)&t < t->stack_hi);
	assert_true(first_frames >= 2);
	assert_int_equal(first_after, first_before);
}

struct probe {
	size_t used;
	int frames;
	uint64_t lo, hi, sp;
};

static void *probe_thread(void *arg)
{
	struct probe *p = arg;
	struct agent_thread *t = agent_self();

	p->frames = agent_calls();
	p->lo = t ? t->stack_lo : 0;
	p->hi = t ? t->stack_hi : 0;
	p->sp = (uint64_t)(uintptr_t)&p;
	p->used = heap_used();
	return NULL;
}

/* A new thread, started through the agent's pthread_create. */
static void test_new_thread(void **state)
{
	struct probe p = { 0 };
	pthread_t th;
	size_t before;

	(void)state;
	/* The first thread's stack, and glibc's vector of its TLS blocks, are
	 * the program's: made once, then cached for the next thread. */
	assert_int_equal(pthread_create(&th, NULL, probe_thread, &p), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	before = heap_used();
	assert_int_equal(pthread_create(&th, NULL, probe_thread, &p), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_true(p.lo < p.sp && p.sp < p.hi);
	assert_true(p.frames >= 2);
	assert_int_equal(p.used, before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_thread),
		cmocka_unit_test(test_new_thread),
	};

	if (first_thread()) {
		fprintf(stderr, "agent_heap: the agent could not start\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
