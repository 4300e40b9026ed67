/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_readwrite: ComDetective's Read-Write microbenchmark (SC'19, 4.1.3),
 * with a knob for the read fraction.
 *
 * N threads run a loop of single 8-byte accesses to one shared variable
 * `rw_word` (alone on its cache line) for SECONDS of wall time.  Worker 0,
 * the writer, only stores.  Every other worker (a reader) loads it with
 * probability R, else stores to it, by a private coin per iteration.  The
 * loop holds no other memory access.
 *
 * Ground truth (cdt thread index k = worker k, see below).  Communication
 * needs a store on one side, and loads never bring two readers together:
 *   - R = 1: only writer-reader pairs communicate: a star on thread 0
 *     (row and column 0 of the matrix, nothing between readers);
 *   - R = 0: everybody writes: every pair, all alike;
 *   - between, the reader-reader cells shrink as R grows;
 *   - all true sharing (the same 8 bytes every time).
 *
 * Usage: comm_readwrite [-n THREADS] [-r FRACTION] [-t SECONDS]
 *                       [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   2..64 threads (1 writer + readers), default 4
 *   -r FRACTION  read fraction of the readers 0..1, default 1
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
 * the self-check fails (a thread did no work, or the readers' read
 * fraction is off by more than 0.02 from R), 2 on bad usage.
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

#define MAX_THREADS 64
#define BATCH 1024 /* iterations between clock reads */

static struct {
	_Alignas(64) _Atomic uint64_t v;
	char pad[56]; /* nothing else on its line */
} rw_word;

struct worker {
	_Alignas(64) pthread_t th;
	int k;
	pid_t tid;
	uint64_t iters, reads, sum;
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t start;
static double t_start;
static int nthreads = 4;
static double frac = 1.0, seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_readwrite [-n THREADS 2..%d] [-r FRACTION 0..1] [-t SECONDS] "
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
	/* The writer never reads: threshold 0. */
	const uint64_t thr = w->k == 0 ? 0 : (uint64_t)(frac * 4294967296.0);
	const double secs = seconds, ydelay = yield_us * 1e-6; /* locals: no loads in the loop */
	uint64_t iters = 0, reads = 0, sum = 0;

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

			/* Atomic loads are never merged or hoisted: one load per read. */
			if ((r >> 32) < thr) {
				sum += atomic_load_explicit(&rw_word.v, memory_order_relaxed);
				reads++;
			} else {
				atomic_store_explicit(&rw_word.v, r, memory_order_relaxed);
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
	w->reads = reads;
	w->sum = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:r:t:y:m:T:h")) != -1) {
		switch (c) {
		case 'n': nthreads = inum(optarg, 2, MAX_THREADS); break;
		case 'r': frac = num(optarg, 0, 1); break;
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
			fprintf(stderr, "comm_readwrite: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	t_start = now(); /* published to the workers by the barrier */
	run(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	uint64_t riters = 0, reads = 0, sum = 0;
	int bad = workers[0].iters == 0 || workers[0].reads != 0;
	for (int k = 1; k < nthreads; k++) {
		riters += workers[k].iters;
		reads += workers[k].reads;
		sum ^= workers[k].sum;
		bad |= workers[k].iters == 0;
	}
	double got = riters ? (double)reads / (double)riters : 0;
	printf("comm_readwrite: threads=%d read_fraction=%.3f seconds=%.3f writer_iters=%llu "
	       "reader_iters=%llu reads=%.4f (sum %llx)\n",
	       nthreads, frac, seconds, (unsigned long long)workers[0].iters,
	       (unsigned long long)riters, got, (unsigned long long)(sum & 0xfff));
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_readwrite: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (bad || got < frac - 0.02 || got > frac + 0.02) {
		fprintf(stderr, "comm_readwrite: self-check failed (idle thread or read fraction %.4f vs %.4f)\n",
			got, frac);
		return 1;
	}
	return 0;
}
