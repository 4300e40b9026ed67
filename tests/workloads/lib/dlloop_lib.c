/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libdlloop.so: a library that dlloop loads and unloads again and again,
 * with a function it calls each time, so every load is used.
 */
#include <stdint.h>

__attribute__((visibility("default"), noinline)) uint64_t dlloop_fn(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}
