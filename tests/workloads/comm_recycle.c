// SPDX-License-Identifier: GPL-2.0-only
/*
 * comm_recycle: worker threads made afresh for every round, each with a
 * heap block of its own that malloc hands on from one round's threads to
 * the next's.
 *
 * Every round, main creates N workers.  Worker w allocates a tally of 32
 * counters (256 bytes, at ALLOC_LINE below), counts a private random
 * stream into it for WORK us (its loads and stores all go to its own
 * block; the generator stays in registers), frees it and ends.  glibc
 * gives a new thread the arena an ended thread left, and in it the block
 * that thread freed: the next round's workers get the same addresses,
 * new instances.  No two threads ever use one instance, and the blocks of
 * the workers of one round live in different arenas.
 *
 * Ground truth: the heap blocks allocated at ALLOC_LINE carry no sharing
 * at all; what goes from one thread's block to the next thread's is the
 * memory the allocator recycled.
 *
 * -s: the control.  Main allocates one tally before the rounds (at
 * SHARED_LINE) and every worker of every round adds to its first counter
 * (atomic adds): one instance, the same word shared by every thread.
 *
 * Usage: comm_recycle [-n THREADS] [-r ROUNDS] [-w WORK_US] [-s]
 *   -n THREADS  1..64 workers a round, default 2
 *   -r ROUNDS   1..100000 rounds, default 100
 *   -w WORK_US  each worker's wall time, 1..10^7 us, default 5000
 * Prints "comm_recycle: ... reused=K" (K: blocks a worker got at an
 * address an earlier round's worker had); exit 0, 1 if no block was ever
 * reused without -s (the design's premise), 2 on bad usage.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define NCOUNT 32

struct tally {
	_Atomic uint64_t n[NCOUNT];
};

static int nthreads = 2, rounds = 100, shared;
static double work = 5e-3;
static struct tally *common;

struct worker {
	pthread_t th;
	uint64_t seed, sum;
	uintptr_t addr; /* of its tally */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

static void *worker(void *p)
{
	struct worker *w = p;
	struct tally *t = shared ? common : malloc(sizeof(*t)); /* ALLOC_LINE */
	uint64_t x = w->seed, sum = 0;
	double end = now() + work;

	if (!t)
		abort();
	if (!shared)
		for (int i = 0; i < NCOUNT; i++)
			atomic_store_explicit(&t->n[i], 0, memory_order_relaxed);
	do {
		for (int i = 0; i < 1024; i++) {
			_Atomic uint64_t *c = &t->n[rnd(&x) >> 59];

			/* Private: a plain load and store; shared: an atomic add. */
			if (shared)
				atomic_fetch_add_explicit(&t->n[0], 1, memory_order_relaxed);
			else
				atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
						      memory_order_relaxed);
		}
	} while (now() < end);
	for (int i = 0; i < (shared ? 1 : NCOUNT); i++)
		sum += atomic_load_explicit(&t->n[i], memory_order_relaxed) * (uint64_t)(i + 1);
	w->sum = sum;
	w->addr = (uintptr_t)t;
	if (!shared)
		free(t);
	return NULL;
}

static long arg(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "usage: comm_recycle [-n THREADS] [-r ROUNDS] [-w WORK_US] [-s]\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static struct worker ws[MAX_THREADS];
	static uintptr_t seen[MAX_THREADS * 4];
	unsigned nseen = 0, reused = 0;
	uint64_t sum = 0;
	int c;

	while ((c = getopt(argc, argv, "n:r:w:s")) != -1) {
		switch (c) {
		case 'n': nthreads = (int)arg(optarg, 1, MAX_THREADS); break;
		case 'r': rounds = (int)arg(optarg, 1, 100000); break;
		case 'w': work = (double)arg(optarg, 1, 10000000) * 1e-6; break;
		case 's': shared = 1; break;
		default: arg("", 1, 0);
		}
	}
	if (optind != argc)
		arg("", 1, 0);
	if (shared && !(common = calloc(1, sizeof(*common)))) /* SHARED_LINE */
		abort();
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < nthreads; k++) {
			ws[k].seed = 0x9e3779b97f4a7c15ull * (uint64_t)(r * MAX_THREADS + k + 1);
			if (pthread_create(&ws[k].th, NULL, worker, &ws[k])) {
				perror("comm_recycle: pthread_create");
				return 2;
			}
		}
		for (int k = 0; k < nthreads; k++) {
			unsigned i;

			pthread_join(ws[k].th, NULL);
			sum += ws[k].sum;
			for (i = 0; i < nseen && seen[i] != ws[k].addr; i++)
				;
			if (i < nseen && r > 0)
				reused++;
			else if (i == nseen && nseen < sizeof(seen) / sizeof(seen[0]))
				seen[nseen++] = ws[k].addr;
		}
	}
	printf("comm_recycle: threads=%d rounds=%d work_us=%.0f shared=%d addresses=%u reused=%u "
	       "(sum %llx)\n", nthreads, rounds, work * 1e6, shared, nseen, reused,
	       (unsigned long long)(sum & 0xfff));
	if (!shared && rounds > 1 && !reused) {
		fprintf(stderr, "comm_recycle: self-check failed (no block was reused)\n");
		return 1;
	}
	return 0;
}
