// SPDX-License-Identifier: GPL-2.0-only
/*
 * threadchurn: short-lived threads, the cost a profiler pays per thread.
 *
 *   threadchurn [N [K [US]]]
 *
 * Starts N threads (default 2000) in waves of K alive at once (default
 * 64), each doing about US microseconds of arithmetic (default 0: an
 * empty thread), joined before the next wave: a fork-join program that
 * makes fresh threads for every parallel step.  What a profiler does at
 * each thread's start and end (its events, stacks, records) is all the
 * extra time.  Exit status 0, or 2 on bad usage or a failed
 * pthread_create.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_WAVE 1024

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	uint64_t us = (uint64_t)(uintptr_t)arg, x = 1;

	if (us) {
		uint64_t end = now_ns() + us * 1000;

		while (now_ns() < end)
			for (int i = 0; i < 1000; i++)
				x = x * 6364136223846793005ull + 1442695040888963407ull;
	}
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000, k = argc > 2 ? atol(argv[2]) : 64;
	long us = argc > 3 ? atol(argv[3]) : 0;
	pthread_t th[MAX_WAVE];

	if (argc > 4 || n <= 0 || k <= 0 || k > MAX_WAVE || us < 0) {
		fprintf(stderr, "usage: threadchurn [N [K (1..%d) [US]]]\n", MAX_WAVE);
		return 2;
	}
	for (long done = 0; done < n;) {
		long w = n - done < k ? n - done : k;

		for (long i = 0; i < w; i++)
			if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)us))
				return 2;
		for (long i = 0; i < w; i++)
			pthread_join(th[i], NULL);
		done += w;
	}
	return 0;
}
