// SPDX-License-Identifier: GPL-2.0-only
/*
 * sleeper: memory work in every thread until a signal ends it, for
 * SIGINT, SIGTERM and SIGKILL tests.
 *
 *   sleeper [THREADS [MAX_SECONDS]]   THREADS workers (default 2) and the
 *                                     main thread loop over arrays of their
 *                                     own; "ready" goes to stdout (flushed)
 *                                     once every thread has run READY_CPU
 *                                     seconds of CPU time, so a test that
 *                                     stops it then has that many samples
 *                                     per thread however busy the machine
 *
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT get their default actions back:
 * a shell starts background jobs with SIGINT ignored, and that must not
 * decide what a test sees.  As a safety net the program gives
 * up after MAX_SECONDS (default 60) of wall time and exits 3, so a failed
 * test never leaves it spinning.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WORDS (1u << 17) /* 1 MiB per thread */
#define MAX_THREADS 64
#define READY_CPU 0.25

static pthread_barrier_t started;
static atomic_int warm; /* threads past READY_CPU s of CPU */
/* Where results go, so the compiler cannot drop the loops as dead. */
static volatile uint64_t sink;

static uint64_t work_once(uint64_t *a, uint64_t x)
{
	uint64_t sum = 0;

	for (uint32_t k = 0; k < 100000; k++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		sum += a[(x >> 20) & (WORDS - 1)];
		a[(x >> 40) & (WORDS - 1)] = sum + k;
	}
	sink = sum;
	return x;
}

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Work until this thread has used READY_CPU s of CPU, then count it. */
static uint64_t warm_up(uint64_t *a, uint64_t x)
{
	while (cpu() < READY_CPU)
		x = work_once(a, x);
	atomic_fetch_add(&warm, 1);
	return x;
}

static void *loop(void *arg)
{
	uint64_t *a = calloc(WORDS, sizeof(*a)), x = (uintptr_t)arg;

	pthread_barrier_wait(&started);
	if (!a)
		return NULL;
	x = warm_up(a, x);
	for (;;)
		x = work_once(a, x);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2;
	double max = argc > 2 ? strtod(argv[2], NULL) : 60, t0 = now();
	uint64_t *a = calloc(WORDS, sizeof(*a)), x = 1;
	pthread_t th;
	int err;

	if (n < 0 || n > MAX_THREADS || max <= 0 || !a) {
		fprintf(stderr, "usage: sleeper [THREADS (0..%d) [MAX_SECONDS]]\n", MAX_THREADS);
		return 2;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	pthread_barrier_init(&started, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++) {
		err = pthread_create(&th, NULL, loop, (void *)(uintptr_t)(i + 2));
		if (err) {
			fprintf(stderr, "sleeper: pthread_create: %s\n", strerror(err));
			return 2;
		}
	}
	pthread_barrier_wait(&started);
	x = warm_up(a, x);
	while (atomic_load(&warm) < n + 1 && now() - t0 < max)
		x = work_once(a, x);
	printf("ready\n");
	fflush(stdout);
	while (now() - t0 < max)
		x = work_once(a, x);
	fprintf(stderr, "sleeper: no signal came within %.0f s\n", max);
	return 3;
}
