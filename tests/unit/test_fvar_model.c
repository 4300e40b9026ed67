// SPDX-License-Identifier: GPL-2.0-only
/*
 * fvar's model (lib/tools/fvar/model.c) on designed input, a calibration
 * of spread 400 ns (resolution R = 1200 ns):
 *   - a function whose mean is under R is untimed; so is one whose mean
 *     is over R with half its instances at 0 (the traps took all of
 *     them), unless its mean is 3 R or more (its long calls carry it);
 *   - an untimed function is never flagged, not even by the CV of its
 *     threads' samples, which would flag it timed (the same samples and
 *     instances, calibrated finer, flag it);
 *   - its calls are at least its time over R.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/core/profile.h"
#include "lib/tools/fvar/fvar.h"
#include "lib/tools/fvar/model.h"
#include "lib/tools/tool.h"
#include "tests/unit/fixture.h"

#define PID 400

/* A profile of one process with two threads, PID and PID + 1, and a
 * calibration of the given spread. */
static void profile_two(struct profile *p, uint64_t spread)
{
	struct rec_fvar_calib c = { .h = { sizeof(c), REC_FVAR_CALIB, 0 }, .pid = PID,
				    .runs = 31, .time = 2 };

	fixture_profile(p, "fvar", PID, 2);
	assert_int_equal(profile_set_meta(p, "metrics", "cpu,wall"), 0);
	assert_int_equal(profile_set_meta(p, "period", "1000000"), 0);
	c.bias[0] = c.bias[1] = 8000;
	c.spread[0] = c.spread[1] = spread;
	fixture_add(p, &c);
}

/* n instances of the function at entry, of v ns, in thread t. */
static void add_inst(struct profile *p, uint64_t entry, uint32_t t, uint64_t v, int n)
{
	for (int i = 0; i < n; i++) {
		struct rec_fvar_inst r = { .h = { FV_INST_V1, REC_FVAR_INST, 0 }, .pid = PID,
					   .tid = PID + t, .time = 10 + (uint64_t)i,
					   .entry = entry, .ret = 0x9005, .slot = 0x7000,
					   .nmetrics = 2, .v = { v, v } };

		fixture_add(p, &r);
	}
}

/* n samples in the function at entry, in thread t. */
static void add_samples(struct profile *p, uint64_t entry, uint32_t t, int n)
{
	for (int i = 0; i < n; i++) {
		struct rec_fvar_sample s = { .h = { sizeof(s), REC_FVAR_SAMPLE, 0 }, .pid = PID,
					     .tid = PID + t, .time = 10 + (uint64_t)i,
					     .ip = entry + 4, .entry = { entry } };

		fixture_add(p, &s);
	}
}

static const struct fv_func *func_at(const struct fv_model *m, uint64_t entry)
{
	for (size_t i = 0; i < m->nfn; i++)
		if (m->fn[i].entry == entry)
			return &m->fn[i];
	fail_msg("no function at %#llx", (unsigned long long)entry);
	return NULL;
}

/* Functions at 0x1000 (60 at 0, 40 of 4 us: mean 1.6 us), 0x2000 (60 at
 * 0, 40 of 20 us: mean 8 us), 0x3000 (100 of 1 us), each with 90
 * samples in thread 0 and 10 in thread 1 (CV across threads 0.8). */
static void profile_shapes(struct profile *p, uint64_t spread)
{
	profile_two(p, spread);
	add_inst(p, 0x1000, 0, 0, 60);
	add_inst(p, 0x1000, 1, 4000, 40);
	add_inst(p, 0x2000, 0, 0, 60);
	add_inst(p, 0x2000, 1, 20000, 40);
	add_inst(p, 0x3000, 0, 1000, 100);
	for (uint64_t e = 0x1000; e <= 0x3000; e += 0x1000) {
		add_samples(p, e, 0, 90);
		add_samples(p, e, 1, 10);
	}
}

static void test_untimed(void **state)
{
	const struct fv_model *m;
	const struct fv_func *f;
	struct profile p;

	(void)state;
	profile_shapes(&p, 400);
	m = fvar_of(&p);
	assert_non_null(m);
	assert_float_equal(fv_resolution(m), 1200, 1e-9);
	f = func_at(m, 0x1000); /* half at 0, mean under 3 R */
	assert_true(f->untimed);
	assert_false(f->flagged);
	/* 100 samples of 1 ms over R */
	assert_float_equal(fv_calls(m, &f->st), 100 * 1e6 / 1200, 1e-6);
	f = func_at(m, 0x2000); /* half at 0, but its long calls carry it */
	assert_false(f->untimed);
	assert_true(f->flagged);
	f = func_at(m, 0x3000); /* mean under R */
	assert_true(f->untimed);
	assert_false(f->flagged);
	assert_true(f->st.cv_threads > 0.5);
	profile_free(&p);

	/* Calibrated finer (R 300 ns), 0x3000 is timed, and flagged by its
	 * threads; 0x1000 still has half its instances at 0. */
	profile_shapes(&p, 100);
	m = fvar_of(&p);
	assert_non_null(m);
	assert_false(func_at(m, 0x3000)->untimed);
	assert_true(func_at(m, 0x3000)->flagged);
	assert_false(func_at(m, 0x1000)->untimed); /* 1.6 us is over 3 R */
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_untimed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
