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
 *     budget, and comes back down to the user's;
 *   - the jitter (clock_jitter) keeps every period within half of it
 *     either side, with the mean the governor's, spread evenly; in a loop
 *     whose pass divides the period, or is the period, each sample moves
 *     on from the last to a point spread evenly over the pass, where a
 *     periodic clock would hit one point of it every time.
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

#define DRAWS 100000

static void jitter_range_mean(void **state)
{
	static const uint64_t periods[] = { 1, 2, 3, 5 * MS + 1, 5 * MS, 100 * MS };
	uint64_t rng = 0x1234567u;
	unsigned bin[10] = { 0 };

	(void)state;
	for (unsigned k = 0; k < sizeof(periods) / sizeof(periods[0]); k++) {
		uint64_t p = periods[k], h = p / 2;
		double sum = 0;

		for (int i = 0; i < DRAWS; i++) {
			uint64_t j = clock_jitter(p, &rng);

			assert_in_range(j, p - h, p + h);
			assert_true(rng != 0);
			sum += (double)j;
			if (p == 5 * MS)
				bin[(j - (p - h)) * 10 / (2 * h + 1)]++;
		}
		/* The mean of a uniform draw of width p has a standard error
		 * of p / sqrt(12 DRAWS) = 0.09% of p: 0.5% is over 5 of them. */
		assert_true(sum / DRAWS > (double)p * 0.995 && sum / DRAWS < (double)p * 1.005);
	}
	/* 10000 draws a tenth expected, a standard deviation of 95: 5 of them. */
	for (int b = 0; b < 10; b++)
		assert_in_range(bin[b], 9525, 10475);
}

/* How far each sample moves on from the last in a loop of `pass` ns, in
 * 20 parts of it: evenly spread, the sample's point in the loop is new at
 * each (a jitter of a quarter either side moves one by a period's pass
 * only into half of it, and a run's 20 samples of an interval would cover
 * the pass unevenly). */
static void jitter_phase(uint64_t period, uint64_t pass)
{
	uint64_t rng = 0xfeedu;
	unsigned bin[20] = { 0 };

	for (int i = 0; i < 20000; i++)
		bin[clock_jitter(period, &rng) % pass * 20 / pass]++;
	/* 1000 a part expected, a standard deviation of 31: 5 of them. */
	for (int b = 0; b < 20; b++)
		assert_in_range(bin[b], 845, 1155);
}

static void jitter_breaks_aliasing(void **state)
{
	(void)state;
	jitter_phase(5 * MS, 50 * US);
	jitter_phase(5 * MS, 5 * MS);
	jitter_phase(5 * MS, 2500 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compute_keeps_perf), cmocka_unit_test(handoff_goes_posix),
		cmocka_unit_test(back_to_perf),       cmocka_unit_test(hysteresis),
		cmocka_unit_test(tiny_budget),        cmocka_unit_test(bounds),
		cmocka_unit_test(pmu_scales),         cmocka_unit_test(jitter_range_mean),
		cmocka_unit_test(jitter_breaks_aliasing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
