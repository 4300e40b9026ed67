// SPDX-License-Identifier: GPL-2.0-only
/*
 * Blocks of a heatmap (output/heatmap.c): in a symmetric matrix, where a
 * pair sits in (i, j) and (j, i), blocks count each pair once, so the
 * blocks of any size add up to the total of the pairs: a 4 x 4 block of a
 * 4 x 4 matrix is 100% of it (the TUI once showed 200%).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "output/heatmap.h"

/* Pairs (0,1)=1 (0,2)=2 (0,3)=3 (1,2)=4 (1,3)=5 (2,3)=6: total 21. */
static const double sym[16] = {
	0, 1, 2, 3,
	1, 0, 4, 5,
	2, 4, 0, 6,
	3, 5, 6, 0,
};

static void test_symmetric_blocks(void **state)
{
	(void)state;
	assert_float_equal(heatmap_block_sum(sym, 4, 4, 1, 0, 0, 4), 21, 1e-9);
	/* Every block size and position sums to the total, once each pair. */
	for (size_t k = 1; k <= 4; k++) {
		double s = 0;

		for (size_t r = 0; r < 4; r += k)
			for (size_t c = r; c < 4; c += k)
				s += heatmap_block_sum(sym, 4, 4, 1, r, c, k);
		assert_float_equal(s, 21, 1e-9);
	}
	/* A 2 x 2 block on the diagonal: pair (0,1) once; off it: 2+3+4+5. */
	assert_float_equal(heatmap_block_sum(sym, 4, 4, 1, 0, 0, 2), 1, 1e-9);
	assert_float_equal(heatmap_block_sum(sym, 4, 4, 1, 0, 2, 2), 14, 1e-9);
	/* Blocks past the edge take what is there. */
	assert_float_equal(heatmap_block_sum(sym, 4, 4, 1, 3, 0, 3), 14, 1e-9);
	/* Not symmetric: every cell as it is. */
	assert_float_equal(heatmap_block_sum(sym, 4, 4, 0, 0, 0, 4), 42, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symmetric_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
