// SPDX-License-Identifier: GPL-2.0-only
/*
 * The front end's one growable array (lib/core/array.c): room for element
 * n whether it comes next or far past the end (a buffer sized to a
 * record), new room zeroed, nothing moved when n already fits, and a
 * size that cannot be had refused with the array left as it was.
 */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "lib/core/array.h"

static void test_append(void **state)
{
	uint32_t *a = NULL;
	size_t cap = 0;

	(void)state;
	for (size_t i = 0; i < 1000; i++) {
		assert_int_equal(array_grow(&a, &cap, i, sizeof(*a)), 0);
		assert_true(cap > i);
		assert_int_equal(a[i], 0);
		a[i] = (uint32_t)i;
	}
	for (size_t i = 0; i < 1000; i++)
		assert_int_equal(a[i], i);
	free(a);
}

static void test_jump(void **state)
{
	unsigned char *b = NULL, *before;
	size_t cap = 0;

	(void)state;
	assert_int_equal(array_grow(&b, &cap, 4159, 1), 0);
	assert_true(cap >= 4160);
	for (size_t i = 0; i < cap; i++)
		assert_int_equal(b[i], 0);
	b[4159] = 7;
	before = b;
	assert_int_equal(array_grow(&b, &cap, 100, 1), 0);
	assert_ptr_equal(b, before);
	assert_int_equal(array_grow(&b, &cap, 1u << 20, 1), 0);
	assert_true(cap > 1u << 20);
	assert_int_equal(b[4159], 7);
	assert_int_equal(b[1u << 20], 0);
	/* More than memory can hold: refused, the array kept. */
	before = b;
	assert_int_equal(array_grow(&b, &cap, SIZE_MAX / 4, 8), -ENOMEM);
	assert_ptr_equal(b, before);
	assert_int_equal(b[4159], 7);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_jump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
