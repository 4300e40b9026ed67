// SPDX-License-Identifier: GPL-2.0-only
/*
 * tempshare: two threads share a temporary that lives one round: the
 * pattern of a solver that mallocs its scratch arrays on every call and
 * frees them at the end of it (LULESH).
 *
 *   tempshare [SECONDS]   rounds for SECONDS of wall time (default 1)
 *
 * Each round thread 0 mallocs a 64-byte block (TEMP_LINE below), both
 * threads store into their own 8 bytes of it for about 2 ms of CPU, and
 * thread 0 frees it; the allocator hands the same address back round
 * after round, and the allocation dies young every time.  Ground truth:
 * all the communication is false sharing on that block, whose object is
 * heap@tempshare.c:TEMP_LINE (round).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cputime.h"

static pthread_barrier_t bar;
static volatile uint64_t *volatile temp;
static volatile int done;

static void spin(int me)
{
	double t0 = cputime_now();

	/* The clock is a system call: read it seldom, so the stores into
	 * the block, not the call's stack, are what the thread does. */
	while (cputime_now() - t0 < 0.002)
		for (int i = 0; i < 20000; i++)
			temp[me] += (uint64_t)i;
}

static void *other(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&bar);
		if (done)
			return NULL;
		spin(1);
		pthread_barrier_wait(&bar);
	}
}

static void __attribute__((noinline)) round_once(void)
{
	temp = malloc(64); /* TEMP_LINE */
	if (!temp)
		abort();
	temp[0] = temp[1] = 0;
	pthread_barrier_wait(&bar);
	spin(0);
	pthread_barrier_wait(&bar);
	free((void *)temp);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec a, b;
	pthread_t th;
	long rounds = 0;

	pthread_barrier_init(&bar, NULL, 2);
	if (pthread_create(&th, NULL, other, NULL))
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		round_once();
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	done = 1;
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);
	fprintf(stderr, "tempshare: %ld rounds\n", rounds);
	return 0;
}
