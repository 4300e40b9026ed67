/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libfvarlib.so: a function in a shared library of the workload's own,
 * for cdt fvar (fvar_shapes -m lib): lib_work() costs 1 or 10 units of
 * dependent arithmetic, as its caller chooses.
 */
#include <stdint.h>

__attribute__((visibility("default"), noinline)) uint64_t lib_work(uint64_t units,
								     uint64_t iters,
								     uint64_t x)
{
	for (uint64_t i = 0; i < units * iters; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}
