// SPDX-License-Identifier: GPL-2.0-only
/*
 * Welford's running mean and variance and the parallel merge
 * (lib/tools/fvar/welford.h): states built value by value and merged in
 * any grouping give what a two-pass computation over all the values
 * gives, including with far-apart means, a large offset (where the naive
 * sum of squares loses every digit), and empty or single-value parts.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "lib/tools/fvar/welford.h"

#define N 4000

/* Two passes: the mean, then the sum of squared deviations from it. */
static void two_pass(const double *v, size_t n, double *mean, double *sd, double *lo, double *hi)
{
	double s = 0, q = 0;

	*lo = *hi = v[0];
	for (size_t i = 0; i < n; i++) {
		s += v[i];
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(q / (double)(n - 1)) : 0;
}

static void close_to(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want) + 1e-12))
		fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, rel);
}

/* sd_rel: what the values' own rounding allows (see test_merge_offset). */
static double sd_rel = 1e-9;

static void check(const struct welford *w, const double *v, size_t n)
{
	double mean, sd, lo, hi;

	two_pass(v, n, &mean, &sd, &lo, &hi);
	assert_int_equal(w->n, n);
	close_to(w->mean, mean, 1e-12);
	close_to(welford_sd(w), sd, sd_rel);
	assert_true(w->min == lo && w->max == hi);
}

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* Values in groups of the given sizes, merged left to right and as a
 * tree, against two passes over them all. */
static void merge_groups(const double *v, const size_t *sizes, size_t ngroups)
{
	struct welford g[64] = { { 0 } }, left = { 0 };
	size_t off = 0;

	assert_true(ngroups <= 64);
	for (size_t k = 0; k < ngroups; k++) {
		for (size_t i = 0; i < sizes[k]; i++)
			welford_add(&g[k], v[off + i]);
		if (sizes[k])
			check(&g[k], v + off, sizes[k]);
		off += sizes[k];
		welford_merge(&left, &g[k]);
	}
	check(&left, v, off);
	/* Pairwise, as a reduction tree over threads and ranks would. */
	for (size_t step = 1; step < ngroups; step *= 2)
		for (size_t k = 0; k + step < ngroups; k += 2 * step)
			welford_merge(&g[k], &g[k + step]);
	check(&g[0], v, off);
}

static void test_one_pass(void **state)
{
	double v[N];
	struct welford w = { 0 };

	(void)state;
	for (size_t i = 0; i < N; i++) {
		v[i] = 100 + 50 * uniform();
		welford_add(&w, v[i]);
	}
	check(&w, v, N);
	close_to(welford_cv(&w), welford_sd(&w) / w.mean, 1e-15);
}

static void test_merge_bimodal(void **state)
{
	static const size_t sizes[] = { 1, 999, 0, 1000, 500, 500, 1, 999 };
	double v[N];

	(void)state;
	/* Groups of 1x and 10x costs: the merge must add the spread between
	 * the groups' means, which per-group variances do not hold. */
	for (size_t i = 0; i < N; i++)
		v[i] = (i / 1000) % 2 ? 10e3 + uniform() : 1e3 + uniform();
	merge_groups(v, sizes, sizeof(sizes) / sizeof(sizes[0]));
}

static void test_merge_offset(void **state)
{
	static const size_t sizes[] = { 7, 1993, 1000, 1000 };
	double v[N];

	(void)state;
	/* A large common offset: sum-of-squares formulas cancel every digit.
	 * Each value is rounded to 1.2e-7 at 1e9, about 4e-7 of the spread
	 * (0.29), so two correct methods agree to ~1e-6, not 1e-9. */
	for (size_t i = 0; i < N; i++)
		v[i] = 1e9 + uniform();
	sd_rel = 1e-6;
	merge_groups(v, sizes, sizeof(sizes) / sizeof(sizes[0]));
	sd_rel = 1e-9;
}

static void test_empty_and_single(void **state)
{
	struct welford a = { 0 }, b = { 0 };

	(void)state;
	welford_merge(&a, &b);
	assert_int_equal(a.n, 0);
	assert_true(welford_sd(&a) == 0 && welford_cv(&a) == 0);
	welford_add(&b, 42);
	welford_merge(&a, &b);
	assert_int_equal(a.n, 1);
	assert_true(a.mean == 42 && a.min == 42 && a.max == 42 && welford_sd(&a) == 0);
	welford_merge(&a, &(struct welford){ 0 });
	assert_int_equal(a.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_pass),
		cmocka_unit_test(test_merge_bimodal),
		cmocka_unit_test(test_merge_offset),
		cmocka_unit_test(test_empty_and_single),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
