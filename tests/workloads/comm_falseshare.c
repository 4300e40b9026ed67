/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_falseshare: ComDetective's False-Sharing microbenchmark (SC'19,
 * 4.1.2), with a knob for the false-sharing fraction.
 *
 * N threads (at most 8) each run a loop of single 8-byte atomic adds
 * (lock add) for SECONDS of wall time.  By a private coin, with
 * probability F the add goes to the thread's own 8-byte slot of
 * `fs_line` (one cache line, slot k for worker k: distinct bytes of a
 * line every thread writes: false sharing), else to `ts_word` (one
 * 8-byte variable on a line of its own that every thread adds to: true
 * sharing).  The two lines are hammered by the same threads with the same
 * instruction, so they differ only in the bytes touched; the loop holds
 * no other memory access.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - every pair of threads communicates, all pairs alike;
 *   - fs / (ts + fs) tracks F: 0 at F = 0, 1 at F = 1, and exactly 1/2
 *     at F = 0.5, where the two lines are symmetric;
 *   - fs is on `fs_line`, ts on `ts_word`.
 *
 * Usage: comm_falseshare [-n THREADS] [-f FRACTION] [-t SECONDS]
 *                        [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   1..8 threads (one slot each in the line), default 4
 *   -f FRACTION  false-sharing fraction 0..1, default 0.5
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
 * the self-check fails (a slot or ts_word disagrees with the adds made, a
 * thread did no work, or the FS fraction of adds is off by more than
 * 0.02 from F), 2 on bad usage.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 8 /* 8 slots of 8 bytes fill the 64-byte line */
#define BATCH 1024    /* iterations between clock reads */

static struct {
	_Alignas(64) _Atomic uint64_t slot[MAX_THREADS];
} fs_line;
static struct {
	_Alignas(64) _Atomic uint64_t v;
	char pad[56]; /* nothing else on its line */
} ts_word;

struct worker {
	_Alignas(64) pthread_t th;
	int k;
	pid_t tid;
	uint64_t iters, fs;
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t start;
static double t_start;
static int nthreads = 4;
static double frac = 0.5, seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_falseshare [-n THREADS 1..%d] [-f FRACTION 0..1] [-t SECONDS] "
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

/* xorshift64*: a private coin per iteration, kept in a register. */
static inline uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
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
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->k + 1);
	const uint64_t thr = (uint64_t)(frac * 4294967296.0); /* 2^32: always */
	_Atomic uint64_t *mine = &fs_line.slot[w->k];
	const double secs = seconds, ydelay = yield_us * 1e-6; /* locals: no loads in the loop */
	uint64_t iters = 0, fs = 0;

	w->tid = gettid();
	pthread_barrier_wait(&start);
	const double end = t_start + secs;
	double next_yield = t_start + ydelay;
	const double mdelay = move_ms * 1e-3;
	uint64_t mx = 0x9e3779b97f4a7c15ull ^ (uint64_t)(w->k + 1) << 32; /* never 0 */
	double next_move = t_start; /* a random CPU to start with */

	for (;;) {
		for (int i = 0; i < BATCH; i++) {
			uint64_t r = rnd(&x);

			/* Both branches: the same lock add of 1, on different lines. */
			if ((r >> 32) < thr) {
				atomic_fetch_add_explicit(mine, 1, memory_order_relaxed);
				fs++;
			} else {
				atomic_fetch_add_explicit(&ts_word.v, 1, memory_order_relaxed);
			}
		}
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
	w->fs = fs;
	return NULL;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:f:t:y:m:T:h")) != -1) {
		switch (c) {
		case 'n': nthreads = inum(optarg, 1, MAX_THREADS); break;
		case 'f': frac = num(optarg, 0, 1); break;
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
			fprintf(stderr, "comm_falseshare: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	t_start = now(); /* published to the workers by the barrier */
	run(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	uint64_t iters = 0, fs = 0;
	int bad = 0;
	for (int k = 0; k < nthreads; k++) {
		iters += workers[k].iters;
		fs += workers[k].fs;
		bad |= workers[k].iters == 0 || atomic_load(&fs_line.slot[k]) != workers[k].fs;
	}
	bad |= atomic_load(&ts_word.v) != iters - fs;
	double got = iters ? (double)fs / (double)iters : 0;
	printf("comm_falseshare: threads=%d fs_fraction=%.3f seconds=%.3f iters=%llu fs_adds=%.4f\n",
	       nthreads, frac, seconds, (unsigned long long)iters, got);
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_falseshare: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (bad || got < frac - 0.02 || got > frac + 0.02) {
		fprintf(stderr, "comm_falseshare: self-check failed (counts or FS fraction %.4f vs %.4f)\n",
			got, frac);
		return 1;
	}
	return 0;
}
