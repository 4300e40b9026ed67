// SPDX-License-Identifier: GPL-2.0-only
/*
 * globals: a counter per thread in separate global variables that the
 * linker lays side by side, eight to a cache line, as programs keep
 * per-thread statistics in globals.
 *
 *   globals THREADS MITERS [pad]   MITERS million adds of 1, shared out
 *                                  among the threads, each to its counter
 *
 * Threads beyond 8 share the counters by number modulo 8 (atomic adds).
 * Unpadded, counters of different threads share a line (false sharing);
 * "pad" gives each counter a line of its own: the plain runs' times of
 * the two are the truth of what the sharing costs.  Built with
 * -fno-toplevel-reorder, which keeps the definition order; it checks the
 * layout at start.  Prints the sum.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "real.h"

_Alignas(64) _Atomic long hits0;
_Atomic long hits1, hits2, hits3, hits4, hits5, hits6, hits7;
_Alignas(64) _Atomic long phits0;
_Alignas(64) _Atomic long phits1;
_Alignas(64) _Atomic long phits2;
_Alignas(64) _Atomic long phits3;
_Alignas(64) _Atomic long phits4;
_Alignas(64) _Atomic long phits5;
_Alignas(64) _Atomic long phits6;
_Alignas(64) _Atomic long phits7;

static _Atomic long *const slot[2][8] = {
	{ &hits0, &hits1, &hits2, &hits3, &hits4, &hits5, &hits6, &hits7 },
	{ &phits0, &phits1, &phits2, &phits3, &phits4, &phits5, &phits6, &phits7 },
};
static int pad;
static long iters;

static void *work(void *p)
{
	_Atomic long *c = slot[pad][(long)p % 8];

	for (long i = 0; i < iters; i++)
		atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *use = "globals THREADS MITERS [pad]";
	static pthread_t th[MAX_THREADS];
	long t, sum = 0;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "pad")))
		usage(use);
	t = arg_count(argv[1], MAX_THREADS, use);
	iters = arg_count(argv[2], 1 << 14, use) * 1000000 / t;
	pad = argc == 4;
	for (int k = 1; k < 8; k++)
		if (((uintptr_t)slot[0][k] >> 6) != ((uintptr_t)slot[0][0] >> 6) ||
		    ((uintptr_t)slot[1][k] >> 6) == ((uintptr_t)slot[1][k - 1] >> 6)) {
			fprintf(stderr, "globals: the counters are not laid out as designed\n");
			return 1;
		}
	for (long i = 0; i < t; i++)
		if (pthread_create(&th[i], NULL, work, (void *)i)) {
			fprintf(stderr, "globals: cannot create a thread\n");
			return 1;
		}
	for (long i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	for (int k = 0; k < 8; k++)
		sum += atomic_load(slot[pad][k]);
	printf("globals: %ld threads, %ld adds\n", t, sum);
	return 0;
}
