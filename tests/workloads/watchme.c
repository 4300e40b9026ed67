// SPDX-License-Identifier: GPL-2.0-only
/*
 * watchme: a global written a known number of times by every thread, for
 * watchpoint and breakpoint tests (cdt record --watch).
 *
 *   watchme [THREADS [K]]   THREADS workers (1..4, default 3) each call
 *                           bump() exactly K times (default 20000), with
 *                           memory work on a private array in between.
 *
 * bump() is the only code that touches watched_counter: one atomic 8-byte
 * add (a read-modify-write).  So under `--watch watched_counter:w` each
 * worker traps exactly K times, each trap an rmw of size 8 in bump(), and
 * the main thread, which only reads the counter at the end, never; under
 * `--watch bump:x` each worker traps exactly K times at bump's entry.
 * If WATCHME_TIDFILE is set, "index tid" lines go there as in threads.c
 * (0 is the main thread).  Prints the final count; exits 0 if it is
 * THREADS*K, else 1.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 4
#define WORDS 4096u

/* Aligned for an 8-byte debug register; its own cache line. */
uint64_t watched_counter __attribute__((aligned(64)));

struct worker {
	pthread_t th;
	pid_t tid;
	long k;
	uint64_t sum;
};

/* noipa: no inlining and no clones, so every call lands on this symbol. */
__attribute__((noipa)) void bump(void)
{
	__atomic_fetch_add(&watched_counter, 1, __ATOMIC_RELAXED);
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	uint64_t a[WORDS] = { 0 }, x = (uint64_t)w->k, sum = 0;

	w->tid = gettid();
	for (long i = 0; i < w->k; i++) {
		bump();
		for (int s = 0; s < 64; s++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			sum += a[(x >> 40) & (WORDS - 1)];
			a[(x >> 20) & (WORDS - 1)] = sum;
		}
	}
	w->sum = sum;
	return NULL;
}

static int write_tids(const struct worker *w, int n)
{
	const char *path = getenv("WATCHME_TIDFILE");
	FILE *f;

	if (!path)
		return 0;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "0 %d\n", (int)gettid());
	for (int i = 0; i < n; i++)
		fprintf(f, "%d %d\n", i + 1, (int)w[i].tid);
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS] = { 0 };
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 3;
	long k = argc > 2 ? strtol(argv[2], NULL, 10) : 20000;
	uint64_t want;
	int err;

	if (argc > 3 || n < 1 || n > MAX_THREADS || k < 1 || k > 100000000) {
		fprintf(stderr, "usage: watchme [THREADS (1..%d) [K]]\n", MAX_THREADS);
		return 2;
	}
	for (long i = 0; i < n; i++) {
		w[i].k = k;
		err = pthread_create(&w[i].th, NULL, worker_main, &w[i]);
		if (err) {
			fprintf(stderr, "watchme: pthread_create: %s\n", strerror(err));
			return 2;
		}
	}
	for (long i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
	want = (uint64_t)(n * k);
	printf("watchme: watched_counter = %llu, expected %llu\n",
	       (unsigned long long)__atomic_load_n(&watched_counter, __ATOMIC_RELAXED),
	       (unsigned long long)want);
	if (write_tids(w, (int)n)) {
		perror("watchme: WATCHME_TIDFILE");
		return 2;
	}
	return watched_counter == want ? 0 : 1;
}
