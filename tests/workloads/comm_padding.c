/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_padding: per-thread counters, with and without padding: the
 * textbook false sharing and its fix.
 *
 * N threads (at most 8) each increment their own counter in the static
 * array `counters` for SECONDS of wall time (a volatile ++: one 8-byte
 * load and one 8-byte store per increment; the loop holds no other memory
 * access).  Unpadded, worker k's counter is counters[k]: all N counters
 * share the first cache line of `counters` (it is 64-byte aligned).
 * With --padded, worker k's counter is counters[8 k]: one line each.  The
 * object is the same in both modes, so a profile can be compared by name.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - unpadded: every pair communicates, all pairs alike; all of it false
 *     sharing (no thread touches another's bytes), all of it on
 *     `counters`, on the single line at &counters[0];
 *   - padded: no communication at all (ts = fs = 0 on `counters`).
 *
 * Usage: comm_padding [-n THREADS] [-p|--padded] [-t SECONDS]
 *                     [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   1..8 threads, default 4
 *   -p, --padded one cache line per counter
 *   -t SECONDS   wall time of the loop, default 1
 *   -y USEC      sched_yield about every USEC us of running (0: never, default)
 *   -m MSEC      move to a random allowed CPU every MSEC ms (0: never;
 *                default 0.5), see below
 *   -T FILE      write "worker tid" per thread to FILE after the run
 *
 * Every thread moves itself to a random one of the allowed CPUs every
 * MSEC ms.  With fewer cores than threads, the scheduler's placement
 * would otherwise decide which pairs ever run side by side (threads kept
 * on one core only take turns), and sampled detection sees pairs that run
 * side by side many times more often; moving makes that equal for every
 * pair over a run.
 *
 * Worker 0 is the main thread; workers 1..N-1 are created in order, so
 * worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a counter differs from its thread's increments,
 * or a thread did no work), 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 8 /* unpadded, all counters fit in one line */
#define PAD_WORDS 8   /* words per 64-byte line */
#define BATCH 1024    /* iterations between clock reads */

/* Plain, not atomic: each counter has one writer, as in the textbook
 * case; volatile keeps one load and one store per increment. */
static _Alignas(64) volatile uint64_t counters[MAX_THREADS * PAD_WORDS];

struct worker {
	_Alignas(64) pthread_t th;
	int k;
	pid_t tid;
	uint64_t iters;
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t start;
static double t_start;
static int nthreads = 4, padded;
static double seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_padding [-n THREADS 1..%d] [-p|--padded] [-t SECONDS] "
			"[-y USEC] [-m MSEC] [-T FILE]\n", MAX_THREADS);
	exit(2);
}

static double num(const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (errno || end == s || *end || !(v >= lo && v <= hi))
		usage();
	return v;
}

static int inum(const char *s, int lo, int hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);

	if (errno || end == s || *end || v < lo || v > hi)
		usage();
	return (int)v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Random re-pinning (-m): the CPUs this process may use, found at start. */
static int cpus[CPU_SETSIZE], ncpus;

static void migrate_init(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				cpus[ncpus++] = c;
}

/* Pin the calling thread to one allowed CPU, picked at random. */
static void migrate(uint64_t *s)
{
	cpu_set_t one;

	if (ncpus < 2)
		return;
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	CPU_ZERO(&one);
	CPU_SET(cpus[*s % (uint64_t)ncpus], &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

static void *run(void *p)
{
	struct worker *w = p;
	volatile uint64_t *mine = &counters[w->k * (padded ? PAD_WORDS : 1)];
	const double secs = seconds, ydelay = yield_us * 1e-6; /* locals: no loads in the loop */
	uint64_t iters = 0;

	w->tid = gettid();
	pthread_barrier_wait(&start);
	const double end = t_start + secs;
	double next_yield = t_start + ydelay;
	const double mdelay = move_ms * 1e-3;
	uint64_t mx = 0x9e3779b97f4a7c15ull ^ (uint64_t)(w->k + 1) << 32; /* never 0 */
	double next_move = t_start; /* a random CPU to start with */

	for (;;) {
		for (int i = 0; i < BATCH; i++)
			(*mine)++;
		iters += BATCH;
		double t = now();
		if (t >= end)
			break;
		if (ydelay > 0 && t >= next_yield) {
			sched_yield();
			next_yield = t + ydelay;
		}
		if (mdelay > 0 && t >= next_move) {
			migrate(&mx);
			next_move = t + mdelay;
		}
	}
	w->iters = iters;
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "padded", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:pt:y:m:T:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': nthreads = inum(optarg, 1, MAX_THREADS); break;
		case 'p': padded = 1; break;
		case 't': seconds = num(optarg, 0.001, 3600); break;
		case 'y': yield_us = num(optarg, 0, 1e7); break;
		case 'm': move_ms = num(optarg, 0, 1e6); break;
		case 'T': tidfile = optarg; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();

	migrate_init();
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int k = 0; k < nthreads; k++)
		workers[k].k = k;
	for (int k = 1; k < nthreads; k++) {
		int e = pthread_create(&workers[k].th, NULL, run, &workers[k]);
		if (e) {
			fprintf(stderr, "comm_padding: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	t_start = now(); /* published to the workers by the barrier */
	run(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	uint64_t iters = 0;
	int bad = 0;
	for (int k = 0; k < nthreads; k++) {
		iters += workers[k].iters;
		bad |= workers[k].iters == 0 || counters[k * (padded ? PAD_WORDS : 1)] != workers[k].iters;
	}
	printf("comm_padding: threads=%d padded=%d seconds=%.3f increments=%llu counters=%#jx\n",
	       nthreads, padded, seconds, (unsigned long long)iters, (uintmax_t)(uintptr_t)counters);
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_padding: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (bad) {
		fprintf(stderr, "comm_padding: self-check failed (a counter or an idle thread)\n");
		return 1;
	}
	return 0;
}
