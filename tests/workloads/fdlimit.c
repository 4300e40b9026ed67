// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdlimit: a program that lowers its own descriptor limit while threads
 * run, then opens files until it cannot, and prints how many it opened.
 * A profiler whose descriptors take low numbers makes that count smaller.
 *
 *   fdlimit before [LIMIT]  8 threads start and run 2 ms of CPU each;
 *                           then RLIMIT_NOFILE drops to LIMIT (16)
 *   fdlimit after [LIMIT]   RLIMIT_NOFILE drops first; then the 8 threads
 *                           start and run 2 ms of CPU each
 * Either way the threads then run 0.3 s more (a profiler opens what it
 * needs lazily), main opens /dev/null until EMFILE, prints "opened N",
 * and the threads stop.  Exit 0, or 2 if something else failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cputime.h"

#define NTHREADS 8

static atomic_int ready, stop;
static volatile unsigned long sink;

/* A short call many times over: what fvar measures instance by instance. */
static __attribute__((noinline)) void step(unsigned long n)
{
	for (unsigned long k = 0; k < n; k++)
		sink += k;
	__asm__ volatile("" ::: "memory");
}

static void *worker(void *arg)
{
	double t0 = cputime_now();

	(void)arg;
	while (cputime_now() - t0 < 0.002)
		step(20000);
	atomic_fetch_add(&ready, 1);
	while (!atomic_load(&stop))
		step(20000);
	return NULL;
}

static int lower(int limit)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	rl.rlim_cur = (rlim_t)limit;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	int after = argc > 1 && !strcmp(argv[1], "after");
	int limit = argc > 2 ? atoi(argv[2]) : 16, n = 0;

	if (argc < 2 || (!after && strcmp(argv[1], "before"))) {
		fprintf(stderr, "usage: fdlimit before|after [LIMIT]\n");
		return 2;
	}
	if (after && lower(limit))
		return 2;
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 2;
	while (atomic_load(&ready) < NTHREADS)
		nap(5);
	if (!after && lower(limit))
		return 2;
	nap(300);
	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	if (errno != EMFILE) {
		perror("fdlimit: open");
		return 2;
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	printf("opened %d\n", n);
	return 0;
}
