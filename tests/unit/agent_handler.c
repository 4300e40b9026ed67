// SPDX-License-Identifier: GPL-2.0-only
/*
 * The handler of cdt's signals, in process (the agent's objects linked in
 * and set up by hand, as agent_wpt does):
 *   - a program's int1 is told from a trap of cdt's whose cause the host
 *     lost, whichever way the host leaves the IP (after the int1, or at
 *     it): contexts made up here, so both are tested on any host;
 *   - how deep the handler goes on cdt's own stack, under samples (perf
 *     and POSIX clocks, single steps) and watchpoint traps, for record
 *     and comm, with the kernel's frames there and with them on an
 *     alternate stack of the program's (the handler then moves to cdt's
 *     stack).  The deepest use is printed and must leave half of the
 *     AGENT_ALTSTACK bytes free.
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
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "lib/agent/agent.h"
#include "lib/core/ingest.h"
#include "lib/tools/comm/comm.h"

#define PAINT 0xa5

static volatile int prog_calls;
static volatile uint64_t watched __attribute__((aligned(64)));

static void prog_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	prog_calls++;
}

static int discard(const struct rec_hdr *r, void *arg)
{
	(void)r;
	(void)arg;
	return 0;
}

static void drain(void)
{
	struct ingest in;

	ingest_init(&in, &agent_g.arena, NULL);
	ingest_drain(&in, 1, 0, discard, NULL);
	ingest_free(&in);
}

static void agent_setup(const char *tool, const void *params, size_t len, uint64_t period)
{
	struct agent_cfg cfg = { .source = SRC_SOFT, .nevents = 1, .max_steps = 64 };

	snprintf(cfg.tool, sizeof(cfg.tool), "%s", tool);
	cfg.ev[0].type = PERF_TYPE_SOFTWARE;
	cfg.ev[0].config = PERF_COUNT_SW_TASK_CLOCK;
	cfg.ev[0].period = period;
	cfg.clock.kind = CLOCK_K_PERF;
	memcpy(cfg.params, params, len);
	if (!agent_g.arena.hdr)
		assert_int_equal(arena_create(&agent_g.arena, 8 << 20, &cfg), 0);
	agent_g.cfg = cfg;
	agent_g.pid = getpid();
	agent_g.tool = agent_tool_find(tool);
	assert_non_null(agent_g.tool);
	/* Each thread's tool state, as agent.c makes it at start. */
	agent_g.state_stride = (agent_g.tool->state_size + 63) & ~(size_t)63;
	agent_g.states = NULL;
	if (agent_g.state_stride) {
		agent_g.states = mmap(NULL, agent_g.state_stride * AGENT_MAX_THREADS,
				      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				      -1, 0);
		assert_true(agent_g.states != MAP_FAILED);
	}
	if (agent_g.tool->init)
		assert_int_equal(agent_g.tool->init(cfg.params), 0);
}

static int setup(void **state)
{
	(void)state;
	assert_int_equal(decode_init(), 0);
	agent_setup("record", NULL, 0, 1000000);
	/* Only traps in this test's main thread: no clock. */
	agent_g.cfg.nevents = 0;
	assert_int_equal(sigchain_install(), 0);
	agent_g.active = 1;
	assert_non_null(agent_thread_start(1, 0));
	return 0;
}

/* The handler's decision on a TRAP_BRKPT at ip, a watchpoint armed. */
static int deliver_brkpt(const unsigned char *ip, int at)
{
	struct agent_thread *t = agent_self();
	siginfo_t si = { 0 };
	ucontext_t uc;
	sigset_t m;
	uint64_t stray = t->ext.stray;
	int calls = prog_calls;

	agent_g.cfg.flags = at ? AGENT_F_INT1_AT : 0;
	sigprocmask(SIG_SETMASK, NULL, &m);
	assert_int_equal(getcontext(&uc), 0);
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)ip;
	si.si_signo = SIGTRAP;
	si.si_code = TRAP_BRKPT;
	agent_on_signal(SIGTRAP, &si, &uc);
	/* Passing it on set the mask the program's handler runs with. */
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, _NSIG / 8);
	if (prog_calls == calls + 1 && t->ext.stray == stray)
		return 1; /* the program's */
	assert_int_equal(prog_calls, calls);
	assert_int_equal(t->ext.stray, stray + 1);
	return 0; /* cdt's, its cause lost */
}

static void test_int1_either_way(void **state)
{
	static const unsigned char code[] = { 0x90, 0xf1, 0x90, 0x90 };
	struct sigaction sa = { 0 };

	(void)state;
	sa.sa_sigaction = prog_handler;
	sa.sa_flags = SA_SIGINFO;
	assert_int_equal(sigaction(SIGTRAP, &sa, NULL), 0);
	assert_int_equal(wpt_arm(&agent_self()->wp, 0, (uint64_t)&watched, 8, WPT_W, 0), 0);

	/* The byte before the IP and the byte at it: after, then at the int1. */
	assert_int_equal(handler_int1(code + 1, 0), 1);
	assert_int_equal(handler_int1(code + 1, 1), 0);
	assert_int_equal(handler_int1(code, 1), 1);
	assert_int_equal(handler_int1(code, 0), 0);

	/* After the int1 (Intel KVM): the program's; after a nop: cdt's. */
	assert_int_equal(deliver_brkpt(code + 2, 0), 1);
	assert_int_equal(deliver_brkpt(code + 3, 0), 0);
	/* At the int1 (AMD KVM): the program's; at a nop: cdt's.  Read the
	 * other way, each would be misjudged: a program looping forever, or
	 * killed by a trap of cdt's. */
	assert_int_equal(deliver_brkpt(code + 1, 1), 1);
	assert_int_equal(deliver_brkpt(code + 3, 1), 0);
	assert_int_equal(deliver_brkpt(code + 2, 1), 0);

	agent_g.cfg.flags = 0;
	assert_int_equal(wpt_disarm(&agent_self()->wp, 0), 0);
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	assert_int_equal(sigaction(SIGTRAP, &sa, NULL), 0);
	drain();
}

struct worker {
	int own_altstack; /* the kernel's frames go to an alternate stack of the program's */
	size_t deepest;
	uint64_t samples, steps, traps;
	volatile int *stop;
};

static uint64_t work_area[1 << 14];

/* The lowest byte of t's stack the handler wrote, as a depth from its top. */
static size_t stack_depth(const struct agent_thread *t)
{
	const unsigned char *p = t->altstack;
	size_t i = 0;

	while (i < AGENT_ALTSTACK && p[i] == PAINT)
		i++;
	return AGENT_ALTSTACK - i;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct agent_thread *t = agent_self();
	stack_t ss = { 0 };
	uint64_t x = (uint64_t)(uintptr_t)w, sum = 0;
	void *mine = NULL;

	assert_non_null(t);
	if (w->own_altstack) {
		mine = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(mine != MAP_FAILED);
		ss.ss_sp = mine;
		ss.ss_size = 1 << 16;
		assert_int_equal(sigaltstack(&ss, NULL), 0);
	}
	memset(t->altstack, PAINT, AGENT_ALTSTACK);
	while (!*w->stop) {
		for (int i = 0; i < 4096; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			sum += work_area[(x >> 40) & ((1 << 14) - 1)];
			work_area[(x >> 20) & ((1 << 14) - 1)] = sum;
			if ((x >> 60) == 0)
				watched = sum;
		}
	}
	w->deepest = stack_depth(t);
	w->samples = t->st.samples;
	w->steps = t->st.steps;
	w->traps = t->st.traps;
	if (mine) {
		ss.ss_flags = SS_DISABLE;
		sigaltstack(&ss, NULL);
	}
	return NULL;
}

/* Two threads of tool for 0.3 s; the deepest use of their stacks. */
static size_t run_tool(const char *tool, const void *params, size_t len, int own_altstack,
		       int posix)
{
	struct worker w[2] = { 0 };
	volatile int stop = 0;
	struct timespec d = { 0, 300000000 };
	pthread_t th[2];
	size_t deepest = 0;

	agent_setup(tool, params, len, 100000);
	agent_g.cfg.clock.kind = posix ? CLOCK_K_POSIX : CLOCK_K_PERF;
	for (int i = 0; i < 2; i++) {
		w[i].own_altstack = own_altstack;
		w[i].stop = &stop;
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	/* record: every thread traps on the variable, as --watch does. */
	if (!strcmp(tool, "record")) {
		usleep(20000);
		for (int i = 0; i < AGENT_MAX_THREADS && i < atomic_load(&agent_g.nthr); i++)
			if (atomic_load(&agent_g.thr[i].used) && &agent_g.thr[i] != agent_self())
				wpt_arm(&agent_g.thr[i].wp, 0, (uint64_t)&watched, 8, WPT_W, 0);
	}
	nanosleep(&d, NULL);
	stop = 1;
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		if (w[i].deepest > deepest)
			deepest = w[i].deepest;
		printf("agent_handler: %s, %s clock, kernel frames on %s: %llu samples, %llu steps, "
		       "%llu traps; deepest %zu bytes\n", tool, posix ? "POSIX" : "perf",
		       own_altstack ? "the program's stack" : "cdt's", (unsigned long long)w[i].samples,
		       (unsigned long long)w[i].steps, (unsigned long long)w[i].traps, w[i].deepest);
		assert_true(w[i].samples > 10);
	}
	drain();
	return deepest;
}

static void test_stack_depth(void **state)
{
	struct comm_params cp = { .bb_slots = 127, .wp = 4 };
	size_t deepest = 0, d;

	(void)state;
	for (int own = 0; own < 2; own++)
		for (int posix = 0; posix < 2; posix++) {
			d = run_tool("record", NULL, 0, own, posix);
			deepest = d > deepest ? d : deepest;
			d = run_tool("comm", &cp, sizeof(cp), own, posix);
			deepest = d > deepest ? d : deepest;
		}
	printf("agent_handler: deepest use of cdt's signal stack: %zu of %d bytes\n", deepest,
	       AGENT_ALTSTACK);
	assert_true(deepest > 0);
	assert_true(deepest <= AGENT_ALTSTACK / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int1_either_way),
		cmocka_unit_test(test_stack_depth),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
