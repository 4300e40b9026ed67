// SPDX-License-Identifier: GPL-2.0-only
/*
 * membound_stream: four streaming kernels over three arrays of doubles,
 * the shape of the STREAM benchmark, written here with a known answer for
 * cdt membound: bandwidth bound at DRAM when the arrays are far beyond L3,
 * at the rate the program itself prints.
 *
 *   membound_stream [-n ELEMENTS] [-t THREADS] [-r REPS] [-S]
 *                   [-k copy|scale|add|triad -d SECONDS]
 *
 *   copy   c = a          16 bytes an element (one load, one store)
 *   scale  b = s * c      16
 *   add    c = a + b      24
 *   triad  a = b + s * c  24
 *
 * Each of -t threads owns a contiguous slice of each array and writes it
 * first, so its pages are its own before anything is timed. A repetition
 * runs the four kernels in that order; every kernel starts on all threads
 * at once (a barrier) and ends at the last thread's end (a barrier). The
 * first of -r repetitions (default 10) warms up and is not counted, as
 * STREAM does.
 *
 * -k runs one kernel again and again for -d seconds (default 1.5) of the
 * first thread's CPU time (so a busy machine gives as many samples as an
 * idle one).
 *
 * The loops work in blocks of 8 elements so that gcc's -O2 vectorizes them
 * (its cheap cost model refuses a loop that needs a scalar remainder); -S
 * runs plain loops of one element instead, which is what gcc 12 at -O2 makes
 * of stream.c's (scalar, the copy a call of memcpy).
 *
 * Standard output, with rates in MB/s (10^6 bytes a second) counted as
 * STREAM counts them (no write-allocate traffic):
 *   rate KERNEL MBS    the best repetition, per kernel run
 *   mean KERNEL MBS    bytes over the time of all counted repetitions
 *   total_s SECONDS    the timed run (counted or not), wall clock
 *   timed_ns START END the same, CLOCK_MONOTONIC as cdt's sample times
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cputime.h"

enum { COPY, SCALE, ADD, TRIAD, NKERNEL };
static const char *const kernel_name[NKERNEL] = { "copy", "scale", "add", "triad" };
static const int kernel_bytes[NKERNEL] = { 16, 16, 24, 24 };

#define BLOCK 8
#define SCALAR 3.0

struct shared {
	double *a, *b, *c;
	size_t n;
	int threads, reps, only, plain;
	double secs;
	pthread_barrier_t bar;
	int stop;            /* set by thread 0 between two barriers, which order it */
	uint64_t start, end;
	double best[NKERNEL], sum[NKERNEL];
	long counted[NKERNEL];
};

struct job {
	struct shared *sh;
	int index;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* noipa: each call is made, and restrict is all the loops know of aliasing,
 * as with STREAM's separate arrays. */

static __attribute__((noipa)) void copy_blocks(double *restrict c, const double *restrict a, size_t n)
{
	for (size_t i = 0; i < n; i += BLOCK)
		for (size_t k = 0; k < BLOCK; k++)
			c[i + k] = a[i + k];
}

static __attribute__((noipa)) void scale_blocks(double *restrict b, const double *restrict c,
						double s, size_t n)
{
	for (size_t i = 0; i < n; i += BLOCK)
		for (size_t k = 0; k < BLOCK; k++)
			b[i + k] = s * c[i + k];
}

static __attribute__((noipa)) void add_blocks(double *restrict c, const double *restrict a,
					      const double *restrict b, size_t n)
{
	for (size_t i = 0; i < n; i += BLOCK)
		for (size_t k = 0; k < BLOCK; k++)
			c[i + k] = a[i + k] + b[i + k];
}

static __attribute__((noipa)) void triad_blocks(double *restrict a, const double *restrict b,
						const double *restrict c, double s, size_t n)
{
	for (size_t i = 0; i < n; i += BLOCK)
		for (size_t k = 0; k < BLOCK; k++)
			a[i + k] = b[i + k] + s * c[i + k];
}

static __attribute__((noipa)) void copy_plain(double *restrict c, const double *restrict a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c[i] = a[i];
}

static __attribute__((noipa)) void scale_plain(double *restrict b, const double *restrict c,
					       double s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = s * c[i];
}

static __attribute__((noipa)) void add_plain(double *restrict c, const double *restrict a,
					     const double *restrict b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c[i] = a[i] + b[i];
}

static __attribute__((noipa)) void triad_plain(double *restrict a, const double *restrict b,
					       const double *restrict c, double s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] + s * c[i];
}

/* One kernel over this thread's slice [lo, lo + len); len is a multiple of
 * BLOCK (main makes the slices so). */
static void kernel_run(const struct shared *sh, int k, size_t lo, size_t len)
{
	double *a = sh->a + lo, *b = sh->b + lo, *c = sh->c + lo;

	switch (k) {
	case COPY: sh->plain ? copy_plain(c, a, len) : copy_blocks(c, a, len); break;
	case SCALE: sh->plain ? scale_plain(b, c, SCALAR, len) : scale_blocks(b, c, SCALAR, len); break;
	case ADD: sh->plain ? add_plain(c, a, b, len) : add_blocks(c, a, b, len); break;
	default: sh->plain ? triad_plain(a, b, c, SCALAR, len) : triad_blocks(a, b, c, SCALAR, len); break;
	}
}

/* Thread 0 times each pass of a kernel from the barrier that starts it to
 * the barrier that ends it on every thread. */
static void kernel_pass(struct shared *sh, int index, int k, size_t lo, size_t len, int counted)
{
	uint64_t t0 = 0;
	double dt;

	pthread_barrier_wait(&sh->bar);
	if (index == 0)
		t0 = now_ns();
	kernel_run(sh, k, lo, len);
	pthread_barrier_wait(&sh->bar);
	if (index != 0 || !counted)
		return;
	dt = (double)(now_ns() - t0) / 1e9;
	if (!sh->counted[k] || dt < sh->best[k])
		sh->best[k] = dt;
	sh->sum[k] += dt;
	sh->counted[k]++;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct shared *sh = j->sh;
	size_t per = sh->n / (size_t)sh->threads / BLOCK * BLOCK;
	size_t lo = per * (size_t)j->index;
	size_t len = j->index == sh->threads - 1 ? sh->n - lo : per;
	double until;

	/* First touch: the slice's pages are placed for this thread. */
	for (size_t i = lo; i < lo + len; i++) {
		sh->a[i] = 1.0;
		sh->b[i] = 2.0;
		sh->c[i] = 0.0;
	}
	pthread_barrier_wait(&sh->bar);
	if (j->index == 0)
		sh->start = now_ns();
	if (sh->only >= 0) {
		until = cputime_now() + sh->secs;
		/* The first pass warms up; thread 0 decides for all when to stop,
		 * between barriers, so every thread makes the same passes. */
		for (int pass = 0; !sh->stop; pass++) {
			kernel_pass(sh, j->index, sh->only, lo, len, pass > 0);
			if (j->index == 0 && cputime_now() >= until)
				sh->stop = 1;
			pthread_barrier_wait(&sh->bar);
		}
	} else {
		for (int r = 0; r < sh->reps; r++)
			for (int k = 0; k < NKERNEL; k++)
				kernel_pass(sh, j->index, k, lo, len, r > 0 || sh->reps == 1);
	}
	if (j->index == 0)
		sh->end = now_ns();
	return NULL;
}

/* The arrays' values after the run, replayed on scalars: a check that every
 * kernel ran over every element. */
static int check(const struct shared *sh, long passes)
{
	double a = 1.0, b = 2.0, c = 0.0;
	const double *x[3] = { sh->a, sh->b, sh->c };

	for (long p = 0; p < passes; p++) {
		int k = sh->only >= 0 ? sh->only : (int)(p % NKERNEL);

		if (k == COPY)
			c = a;
		else if (k == SCALE)
			b = SCALAR * c;
		else if (k == ADD)
			c = a + b;
		else
			a = b + SCALAR * c;
	}
	for (size_t i = 0; i < sh->n; i += sh->n / 97 + 1)
		if (x[0][i] != a || x[1][i] != b || x[2][i] != c)
			return -1;
	if (x[0][sh->n - 1] != a || x[1][sh->n - 1] != b || x[2][sh->n - 1] != c)
		return -1;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: membound_stream [-n ELEMENTS] [-t THREADS] [-r REPS] [-S] "
		"[-k copy|scale|add|triad] [-d SECONDS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct shared sh = { .n = 16u << 20, .threads = 1, .reps = 10, .only = -1, .secs = 1.5 };
	struct job *jobs;
	pthread_t *tid;
	long passes = 0;
	int c;

	while ((c = getopt(argc, argv, "n:t:r:Sk:d:")) != -1) {
		switch (c) {
		case 'n': sh.n = strtoull(optarg, NULL, 0); break;
		case 't': sh.threads = atoi(optarg); break;
		case 'r': sh.reps = atoi(optarg); break;
		case 'S': sh.plain = 1; break;
		case 'k':
			for (int k = 0; k < NKERNEL; k++)
				if (!strcmp(optarg, kernel_name[k]))
					sh.only = k;
			if (sh.only < 0)
				usage();
			break;
		case 'd': sh.secs = atof(optarg); break;
		default: usage();
		}
	}
	if (sh.threads < 1 || sh.threads > 64 || sh.reps < 1 || sh.reps > 100000 ||
	    !(sh.secs > 0 && sh.secs < 3600) || sh.n < (size_t)BLOCK * (size_t)sh.threads ||
	    sh.n > (1ull << 32))
		usage();
	sh.n = sh.n / BLOCK * BLOCK;
	sh.a = aligned_alloc(64, sh.n * sizeof(double));
	sh.b = aligned_alloc(64, sh.n * sizeof(double));
	sh.c = aligned_alloc(64, sh.n * sizeof(double));
	jobs = calloc((size_t)sh.threads, sizeof(*jobs));
	tid = calloc((size_t)sh.threads, sizeof(*tid));
	if (!sh.a || !sh.b || !sh.c || !jobs || !tid ||
	    pthread_barrier_init(&sh.bar, NULL, (unsigned)sh.threads)) {
		perror("membound_stream: allocating");
		return 1;
	}
	for (int i = 0; i < sh.threads; i++) {
		jobs[i] = (struct job){ .sh = &sh, .index = i };
		if (pthread_create(&tid[i], NULL, worker, &jobs[i])) {
			perror("membound_stream: pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < sh.threads; i++)
		pthread_join(tid[i], NULL);
	for (int k = 0; k < NKERNEL; k++)
		passes += sh.counted[k];
	/* The warm-up passes ran too. */
	passes += sh.only >= 0 ? 1 : (sh.reps > 1 ? NKERNEL : 0);
	if (check(&sh, passes)) {
		fprintf(stderr, "membound_stream: wrong values in the arrays\n");
		return 1;
	}
	for (int k = 0; k < NKERNEL; k++) {
		double bytes = (double)kernel_bytes[k] * (double)sh.n;

		if (!sh.counted[k])
			continue;
		printf("rate %s %.1f\n", kernel_name[k], bytes / sh.best[k] / 1e6);
		printf("mean %s %.1f\n", kernel_name[k], bytes * (double)sh.counted[k] / sh.sum[k] / 1e6);
	}
	printf("total_s %.3f\n", (double)(sh.end - sh.start) / 1e9);
	printf("timed_ns %llu %llu\n", (unsigned long long)sh.start, (unsigned long long)sh.end);
	free(sh.a);
	free(sh.b);
	free(sh.c);
	free(jobs);
	free(tid);
	pthread_barrier_destroy(&sh.bar);
	return 0;
}
