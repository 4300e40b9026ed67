// SPDX-License-Identifier: GPL-2.0-only
/*
 * heapsteady: where the program's own heap blocks fall, around thread
 * starts.  The main thread starts and joins N threads (default 200), one
 * at a time, and after each allocates a 24-byte block; it prints one line,
 * the blocks' offsets from the first one's, summed and hashed.  A
 * profiler that allocates from the program's heap when a thread starts
 * (a block freed by the new thread, into that thread's cache) moves every
 * later block, and with them which fields share a cache line: the line
 * differs from the plain program's.
 *
 *   heapsteady [N]
 *
 * Exit status 0, or 2 on bad usage or a failed call.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_N 10000

static void *idle(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200;
	static char *block[MAX_N];
	uint64_t sum = 0, hash = 1469598103934665603ull;

	if (argc > 2 || n <= 0 || n > MAX_N) {
		fprintf(stderr, "usage: heapsteady [N (1..%d)]\n", MAX_N);
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, idle, NULL) || pthread_join(th, NULL))
			return 2;
		block[i] = malloc(24);
		if (!block[i])
			return 2;
	}
	for (long i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(block[i] - block[0]);

		sum += d;
		hash = (hash ^ d) * 1099511628211ull;
	}
	printf("heapsteady: %ld blocks, offsets sum %llu hash %016llx\n", n, (unsigned long long)sum,
	       (unsigned long long)hash);
	return 0;
}
