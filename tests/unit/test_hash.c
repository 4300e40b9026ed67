// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hash index (lib/core/hash.h): every position filed is found again,
 * through growth, shared hashes and repeated keys; nothing else is; and
 * the hash functions give fixed values (computed by an independent
 * implementation of their definitions).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/core/hash.h"

/* How many times the walk for hv returns pos. */
static unsigned walk_count(const struct hash *h, uint64_t hv, size_t pos)
{
	unsigned n = 0;

	for (size_t c = 0, i; (i = hash_walk(h, hv, &c)) != HASH_NONE;)
		n += i == pos;
	return n;
}

/* The position of key in keys[] through the index, or HASH_NONE. */
static size_t find(const struct hash *h, const uint64_t *keys, uint64_t key)
{
	for (size_t c = 0, i; (i = hash_walk(h, hash_u64(key), &c)) != HASH_NONE;)
		if (keys[i] == key)
			return i;
	return HASH_NONE;
}

static void test_empty(void **state)
{
	struct hash h = { 0 };
	size_t c = 0;

	(void)state;
	assert_true(hash_walk(&h, hash_u64(1), &c) == HASH_NONE);
	hash_clear(&h);
	c = 0;
	assert_true(hash_walk(&h, 0, &c) == HASH_NONE);
	hash_free(&h);
	assert_null(h.slot);
	assert_int_equal(h.n, 0);
}

/* Many keys, looked up after every doubling and at the end. */
static void test_many(void **state)
{
	enum { N = 200000 };
	uint64_t *keys = malloc(N * sizeof(*keys));
	struct hash h = { 0 };
	size_t cap = 0;

	(void)state;
	assert_non_null(keys);
	for (size_t i = 0; i < N; i++) {
		keys[i] = i * 7919 + 3; /* distinct */
		assert_int_equal(hash_add(&h, hash_u64(keys[i]), i), 0);
		if (h.cap != cap) { /* it grew: everything is still there */
			cap = h.cap;
			assert_true((cap & (cap - 1)) == 0 && h.n * 2 <= cap);
			for (size_t k = 0; k <= i; k++)
				assert_int_equal(find(&h, keys, keys[k]), k);
		}
	}
	assert_int_equal(h.n, N);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(find(&h, keys, keys[i]), i);
	for (uint64_t k = 1; k < 100000; k += 7919) /* not of the form i * 7919 + 3 */
		assert_true(find(&h, keys, k) == HASH_NONE);
	hash_free(&h);
	free(keys);
}

/* Positions under one hash are all walked, each once, through growth. */
static void test_collisions(void **state)
{
	struct hash h = { 0 };
	const uint64_t hv = hash_u64(42);

	(void)state;
	for (size_t i = 0; i < 1000; i++) {
		assert_int_equal(hash_add(&h, hv, i), 0);
		/* another hash in the same runs of slots: its tag differs */
		assert_int_equal(hash_add(&h, hv ^ 1ull << 32, 5000 + i), 0);
	}
	for (size_t i = 0; i < 1000; i++) {
		assert_int_equal(walk_count(&h, hv, i), 1);
		assert_int_equal(walk_count(&h, hv, 5000 + i), 0);
	}
	{
		size_t n = 0;

		for (size_t c = 0, i; (i = hash_walk(&h, hv, &c)) != HASH_NONE;)
			n++;
		assert_int_equal(n, 1000);
	}
	/* Only the high bits are kept: a hash that differs below them is a
	 * candidate too, which the caller's key comparison rejects. */
	assert_int_equal(hash_add(&h, hv ^ 1, 9999), 0);
	assert_int_equal(walk_count(&h, hv, 9999), 1);
	hash_free(&h);
}

/* A multimap: threads by (pid, tid), where a tid is reused. */
static void test_multimap(void **state)
{
	struct task {
		uint32_t pid, tid;
	} t[300];
	struct hash h = { 0 };

	(void)state;
	for (size_t i = 0; i < 300; i++) {
		t[i] = (struct task){ 100 + (uint32_t)(i % 3), 1000 + (uint32_t)(i % 50) };
		assert_int_equal(hash_add(&h, hash_mix(t[i].pid, t[i].tid), i), 0);
	}
	for (uint32_t pid = 100; pid < 103; pid++) {
		for (uint32_t tid = 1000; tid < 1050; tid++) {
			size_t n = 0;

			for (size_t c = 0, i; (i = hash_walk(&h, hash_mix(pid, tid), &c)) !=
					      HASH_NONE;) {
				if (t[i].pid != pid || t[i].tid != tid)
					continue;
				assert_int_equal(i % 3, pid - 100);
				assert_int_equal(i % 50, tid - 1000);
				n++;
			}
			assert_int_equal(n, 2); /* 300 tasks over 150 (pid, tid) */
		}
	}
	hash_free(&h);
}

/* Cleared, the table is empty but keeps its memory; it fills again. */
static void test_clear(void **state)
{
	uint64_t keys[500];
	struct hash h = { 0 };
	size_t cap;

	(void)state;
	for (size_t i = 0; i < 500; i++) {
		keys[i] = i;
		assert_int_equal(hash_add(&h, hash_u64(i), i), 0);
	}
	cap = h.cap;
	hash_clear(&h);
	assert_int_equal(h.n, 0);
	assert_int_equal(h.cap, cap);
	for (size_t i = 0; i < 500; i++)
		assert_true(find(&h, keys, i) == HASH_NONE);
	/* renumbered: key i now at 499 - i */
	for (size_t i = 0; i < 500; i++) {
		keys[i] = 499 - i;
		assert_int_equal(hash_add(&h, hash_u64(keys[i]), i), 0);
	}
	for (size_t i = 0; i < 500; i++)
		assert_int_equal(find(&h, keys, i), 499 - i);
	hash_free(&h);
}

/* Positions the slots cannot hold are refused, and the table stays as it was. */
static void test_overflow(void **state)
{
	struct hash h = { 0 };

	(void)state;
	assert_int_equal(hash_add(&h, hash_u64(1), 7), 0);
	assert_int_equal(hash_add(&h, hash_u64(2), UINT32_MAX), -EOVERFLOW);
	assert_int_equal(hash_add(&h, hash_u64(2), SIZE_MAX - 1), -EOVERFLOW);
	assert_int_equal(h.n, 1);
	assert_int_equal(walk_count(&h, hash_u64(1), 7), 1);
	assert_int_equal(hash_add(&h, hash_u64(2), UINT32_MAX - 1), 0);
	assert_int_equal(walk_count(&h, hash_u64(2), UINT32_MAX - 1), 1);
	hash_free(&h);
}

static void test_functions(void **state)
{
	static const char path[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	char buf[64];

	(void)state;
	assert_true(hash_u64(0) == 0);
	assert_true(hash_u64(1) == 0x9e3779b97f4a7c15ull);
	assert_true(hash_u64(0x123456789abcdef0ull) == 0x1b2b9f8044a51328ull);
	assert_true(hash_bytes("", 0) == 0);
	assert_true(hash_bytes("hello, world", 12) == 0x737881a7611958a6ull);
	assert_true(hash_bytes(path, strlen(path)) == 0x0fde27f63880c984ull);
	/* the bytes decide, not where they are */
	memcpy(buf + 3, path, sizeof(path));
	assert_true(hash_bytes(buf + 3, strlen(path)) == hash_bytes(path, strlen(path)));
	/* a trailing NUL is a byte */
	assert_true(hash_bytes("a", 1) != hash_bytes("a", 2));
	/* the order of mixed keys counts */
	assert_true(hash_mix(1, 2) != hash_mix(2, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_multimap),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_functions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
