/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_volume: ComDetective's Write-Volume microbenchmark (SC'19, 4.1.1).
 *
 * N threads each run a loop of single 8-byte stores for SECONDS of wall
 * time.  Each store goes, by a private coin with probability S, to the one
 * shared variable `shared_word`, else to the thread's own padded slot in
 * `priv_slots` (a cache line of its own).  Nothing else in the loop
 * touches memory (the RNG state and counters stay in registers), so a
 * sampled "next memory access" is a shared store with probability S.
 *
 * Ground truth (cdt thread indices = worker numbers, see below):
 *   - every pair of threads communicates, all pairs alike (uniform
 *     off-diagonal matrix, nothing on the diagonal);
 *   - all of it true sharing: the shared accesses are all to the same
 *     8 bytes; private slots share no line with anything (fs ~ 0);
 *   - none at S = 0; more with S at small S.  Not all the way: the
 *     hardware moves the line most near S = 0.5 and less again towards
 *     S = 1, where a core keeps it for runs of its own stores (4 threads
 *     on the 2-core development machine: the loop loses about 10x more
 *     time to stalls at S = 0.5 than at S = 0.01, about 3x less at 0.9
 *     than at 0.5, and runs at S = 0.99 as fast as at S = 0), as the
 *     paper's RFO counts also curve (4.1.1).  Sampled detection cannot see
 *     that locality, so compare small S only.
 *
 * Usage: comm_volume [-n THREADS] [-s FRACTION] [-t SECONDS]
 *                    [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   1..64 threads, default 4
 *   -s FRACTION  sharing fraction 0..1, default 0.5
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
 * the self-check fails (a thread did no work, or the shared fraction of
 * stores is off by more than 0.02 from S), 2 on bad usage.
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

struct slot {
	_Alignas(64) _Atomic uint64_t v;
};

/* The shared variable alone on its line: no false sharing by design. */
static struct slot shared_word;
static struct slot priv_slots[MAX_THREADS];

struct worker {
	_Alignas(64) pthread_t th;
	int k;
	pid_t tid;
	uint64_t iters, shared;
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t start;
static double t_start;
static int nthreads = 4;
static double frac = 0.5, seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_volume [-n THREADS 1..%d] [-s FRACTION 0..1] [-t SECONDS] "
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
	/* Compare the top 32 bits against S * 2^32; 2^32 itself means always. */
	const uint64_t thr = (uint64_t)(frac * 4294967296.0);
	_Atomic uint64_t *mine = &priv_slots[w->k].v;
	const double secs = seconds, ydelay = yield_us * 1e-6; /* locals: no loads in the loop */
	uint64_t iters = 0, shared = 0;

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

			if ((r >> 32) < thr) {
				atomic_store_explicit(&shared_word.v, r, memory_order_relaxed);
				shared++;
			} else {
				atomic_store_explicit(mine, r, memory_order_relaxed);
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
	w->shared = shared;
	return NULL;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:s:t:y:m:T:h")) != -1) {
		switch (c) {
		case 'n': nthreads = inum(optarg, 1, MAX_THREADS); break;
		case 's': frac = num(optarg, 0, 1); break;
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
			fprintf(stderr, "comm_volume: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	t_start = now(); /* published to the workers by the barrier */
	run(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	uint64_t iters = 0, shared = 0;
	int idle = 0;
	for (int k = 0; k < nthreads; k++) {
		iters += workers[k].iters;
		shared += workers[k].shared;
		idle |= workers[k].iters == 0;
	}
	double got = iters ? (double)shared / (double)iters : 0;
	printf("comm_volume: threads=%d sharing=%.3f seconds=%.3f iters=%llu shared_fraction=%.4f\n",
	       nthreads, frac, seconds, (unsigned long long)iters, got);
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_volume: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (idle || got < frac - 0.02 || got > frac + 0.02) {
		fprintf(stderr, "comm_volume: self-check failed (idle thread or shared fraction %.4f vs %.4f)\n",
			got, frac);
		return 1;
	}
	return 0;
}
