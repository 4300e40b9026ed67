// SPDX-License-Identifier: GPL-2.0-only
/*
 * The overhead governor's decision (clock_choose, lib/agent/clock.c), on
 * windows shaped like the programs it meets, with this bhyve guest's
 * calibration: a tick of 4 ms, a perf sample 50 us beyond its handler, a
 * POSIX one 4 us, a switch under the perf clock 16 us; a 10 us handler
 * and a 5% budget.
 *   - a thread that computes keeps the perf clock at the period the
 *     budget buys: (10 + 50) us / 5% of its own CPU time;
 *   - a thread that hands work on (5000 switches in 100 ms) goes to the
 *     POSIX clock, at every tick;
 *   - it comes back when the switches stop, and only for clearly more
 *     samples; a small change of period is not made;
 *   - a tiny budget takes the POSIX clock above the tick;
 *   - never faster than the rate asked for, never slower than 10 Hz on a
 *     forced perf clock; a forced clock is kept;
 *   - a PMU's period (events) grows by what its samples cost over the
 *     budget, and comes back down to the user's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/agent/agent.h"

#define US 1000ull
#define MS 1000000ull

static const struct agent_clock calib = {
	.kind = CLOCK_K_AUTO, .budget_ppm = 50000, .tick_ns = 4 * MS,
	.perf_sig_ns = 50 * US, .posix_sig_ns = 4 * US, .switch_ns = 16 * US,
	.handler_ns = 10 * US,
};

/* A window of 100 ms of CPU sampled every `period` on `kind`. */
static struct clock_window window(int kind, uint64_t period, uint64_t switches)
{
	uint64_t mean = kind == CLOCK_K_POSIX && period < calib.tick_ns ? calib.tick_ns : period;
	struct clock_window w = { .cpu_ns = 100 * MS, .handler_ns = 10 * US,
				  .switches = switches };

	w.samples = w.cpu_ns / mean;
	return w;
}

/* The period the budget buys for samples costing `each`, from a window
 * at that period: the fixed point of the governor's rule. */
static void compute_keeps_perf(void **state)
{
	struct clock_window w = window(CLOCK_K_PERF, 1200 * US, 0);
	uint64_t p;

	(void)state;
	assert_int_equal(clock_choose(&calib, 1, 500 * US, CLOCK_K_PERF, 500 * US, &w, &p),
			 CLOCK_K_PERF);
	/* 83 samples of 60 us spent 5 ms; 5% of the 95 ms left buys one
	 * sample every 60 us / 5% = 1.2 ms. */
	assert_in_range(p, 1150 * US, 1250 * US);
}

static void handoff_goes_posix(void **state)
{
	struct clock_window w = window(CLOCK_K_PERF, 1200 * US, 5000);
	uint64_t p;

	(void)state;
	assert_int_equal(clock_choose(&calib, 1, 500 * US, CLOCK_K_PERF, 1200 * US, &w, &p),
			 CLOCK_K_POSIX);
	/* Below the tick: it fires at every tick. */
	assert_true(p < calib.tick_ns);
	/* Under the POSIX clock the switches cost nothing: it stays. */
	w = window(CLOCK_K_POSIX, p, 5000);
	assert_int_equal(clock_choose(&calib, 1, 500 * US, CLOCK_K_POSIX, p, &w, &p),
			 CLOCK_K_POSIX);
}

static void back_to_perf(void **state)
{
	struct clock_window w = window(CLOCK_K_POSIX, 2 * MS, 0);
	uint64_t p;

	(void)state;
	/* No switches: 1.2 ms on perf against a sample a tick (4 ms). */
	assert_int_equal(clock_choose(&calib, 1, 500 * US, CLOCK_K_POSIX, 2 * MS, &w, &p),
			 CLOCK_K_PERF);
	assert_in_range(p, 1100 * US, 1300 * US);
	/* A few switches (the perf period then about 3.6 ms): not enough
	 * more samples than the tick's to move. */
	w = window(CLOCK_K_POSIX, 2 * MS, 200);
	assert_int_equal(clock_choose(&calib, 1, 500 * US, CLOCK_K_POSIX, 2 * MS, &w, &p),
			 CLOCK_K_POSIX);
}

static void hysteresis(void **state)
{
	struct clock_window w = window(CLOCK_K_PERF, 1300 * US, 0);
	uint64_t p;

	(void)state;
	assert_int_equal(clock_choose(&calib, 1, 500 * US, CLOCK_K_PERF, 1300 * US, &w, &p),
			 CLOCK_K_PERF);
	assert_int_equal(p, 1300 * US);
	/* Twice the handler's cost: twice the period. */
	w.handler_ns = 70 * US;
	assert_int_equal(clock_choose(&calib, 1, 500 * US, CLOCK_K_PERF, 1300 * US, &w, &p),
			 CLOCK_K_PERF);
	assert_in_range(p, 2300 * US, 2700 * US);
}

static void tiny_budget(void **state)
{
	struct agent_clock c = calib;
	struct clock_window w = window(CLOCK_K_PERF, 1200 * US, 0);
	uint64_t p;

	(void)state;
	c.budget_ppm = 1000; /* 0.1%: 14 us a sample buys one every 14 ms */
	assert_int_equal(clock_choose(&c, 1, 500 * US, CLOCK_K_PERF, 1200 * US, &w, &p),
			 CLOCK_K_POSIX);
	assert_in_range(p, 13 * MS, 15 * MS);
}

static void bounds(void **state)
{
	struct agent_clock c = calib;
	struct clock_window w = window(CLOCK_K_PERF, 500 * US, 0);
	uint64_t p;

	(void)state;
	/* A large budget: the rate asked for, no more. */
	c.budget_ppm = 500000;
	assert_int_equal(clock_choose(&c, 1, 500 * US, CLOCK_K_PERF, 500 * US, &w, &p),
			 CLOCK_K_PERF);
	assert_int_equal(p, 500 * US);
	/* A forced perf clock that switches alone put over the budget. */
	c = calib;
	c.kind = CLOCK_K_PERF;
	w = window(CLOCK_K_PERF, 1200 * US, 100000);
	assert_int_equal(clock_choose(&c, 1, 500 * US, CLOCK_K_PERF, 1200 * US, &w, &p),
			 CLOCK_K_PERF);
	assert_int_equal(p, 100 * MS);
	/* A forced POSIX clock at a rate below the tick's keeps its rate. */
	c.kind = CLOCK_K_POSIX;
	w = window(CLOCK_K_POSIX, 10 * MS, 0);
	assert_int_equal(clock_choose(&c, 1, 10 * MS, CLOCK_K_POSIX, 10 * MS, &w, &p),
			 CLOCK_K_POSIX);
	assert_int_equal(p, 10 * MS);
}

static void pmu_scales(void **state)
{
	struct clock_window w = { .samples = 1000, .cpu_ns = 100 * MS, .handler_ns = 5 * US };
	uint64_t p;

	(void)state;
	/* 1000 samples of 55 us: 55 ms against 2.5 ms of budget (5% of
	 * the program's CPU time, taken as half the window at least). */
	assert_int_equal(clock_choose(&calib, 0, 100000, CLOCK_K_PERF, 100000, &w, &p),
			 CLOCK_K_PERF);
	assert_in_range(p, 2100000, 2300000);
	/* Few samples (0.55 ms against 5 ms): down by as much, */
	w.samples = 10;
	assert_int_equal(clock_choose(&calib, 0, 100000, CLOCK_K_PERF, 2400000, &w, &p),
			 CLOCK_K_PERF);
	assert_in_range(p, 250000, 280000);
	/* and never below the user's period. */
	assert_int_equal(clock_choose(&calib, 0, 100000, CLOCK_K_PERF, 200000, &w, &p),
			 CLOCK_K_PERF);
	assert_int_equal(p, 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compute_keeps_perf), cmocka_unit_test(handoff_goes_posix),
		cmocka_unit_test(back_to_perf),       cmocka_unit_test(hysteresis),
		cmocka_unit_test(tiny_budget),        cmocka_unit_test(bounds),
		cmocka_unit_test(pmu_scales),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
