// SPDX-License-Identifier: GPL-2.0-only
/*
 * rounds: worker threads made afresh for every round, each with a heap
 * block of its own, as programs that spawn their workers per iteration
 * do (Phoenix's map-reduce rounds, a thread per request).
 *
 *   rounds THREADS ROUNDS [pad]   ROUNDS rounds of THREADS workers
 *
 * A worker allocates a histogram of 64 counters (512 bytes), counts its
 * share of the round's 2^17 generated values into it, adds it to its
 * result and frees
 * it; glibc gives the next round's threads the blocks the ended ones
 * freed (the same addresses, new instances).  No two live threads share
 * a block: the truth is that nothing is shared, and padding the blocks to
 * whole lines ("pad": aligned_alloc of 576 bytes at a line's start)
 * changes nothing in a plain run's time.  Prints the total, which does not
 * depend on the scheduling.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "real.h"

#define BINS 64
#define VALUES (1 << 17) /* a round's */

struct job {
	uint64_t seed, sum;
};

static int pad;
static long per; /* values a worker counts */

static void *work(void *p)
{
	struct job *j = p;
	uint64_t *h = pad ? aligned_alloc(64, (BINS + 8) * sizeof(*h)) : malloc(BINS * sizeof(*h));
	uint64_t s = j->seed, sum = 0;

	if (!h) {
		perror("rounds: malloc");
		exit(1);
	}
	memset(h, 0, BINS * sizeof(*h));
	for (long i = 0; i < per; i++)
		h[rnd(&s) >> 58]++;
	for (int b = 0; b < BINS; b++)
		sum += h[b] * (uint64_t)(b + 1);
	j->sum = sum;
	free(h);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *use = "rounds THREADS ROUNDS [pad]";
	static pthread_t th[MAX_THREADS];
	static struct job jobs[MAX_THREADS];
	uint64_t total = 0;
	long t, r;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "pad")))
		usage(use);
	t = arg_count(argv[1], MAX_THREADS, use);
	r = arg_count(argv[2], 1 << 20, use);
	pad = argc == 4;
	per = VALUES / t + 1;
	for (long k = 0; k < r; k++) {
		for (long i = 0; i < t; i++) {
			jobs[i].seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(k * MAX_THREADS + i + 1);
			if (pthread_create(&th[i], NULL, work, &jobs[i])) {
				fprintf(stderr, "rounds: cannot create a thread\n");
				return 1;
			}
		}
		for (long i = 0; i < t; i++) {
			pthread_join(th[i], NULL);
			total += jobs[i].sum;
		}
	}
	printf("rounds: %ld rounds of %ld threads: total %llu\n", r, t, (unsigned long long)total);
	return 0;
}
