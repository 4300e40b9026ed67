/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_none: threads that share nothing, as a zero reference.
 *
 * N threads each run a loop of single 8-byte loads and stores (a private
 * coin picks load or store, and which of the 8 words) for SECONDS of wall
 * time, all within the thread's own 64-byte line `priv_lines[k]`.  The
 * lines of consecutive workers are adjacent in memory, so worker k's last
 * word is 8 bytes from worker k+1's first: data that is private at
 * cache-line granularity but close.  A tool that matched at a coarser
 * grain (128-byte sectors, pages, hash slots) or with slack around the
 * accessed bytes would report communication here.
 *
 * Ground truth: no communication at all (ts = fs = 0), apart from thread
 * start and join, which take microseconds of a run of SECONDS.  The
 * sampled accesses are as frequent as in comm_volume, so a run of the
 * same length gives a yardstick for "near zero".
 *
 * Usage: comm_none [-n THREADS] [-t SECONDS] [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   1..64 threads, default 4
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
 * the self-check fails (a thread did no work, or its stores are not all
 * in its line), 2 on bad usage.
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

/* One line per thread, back to back. */
static struct {
	_Alignas(64) _Atomic uint64_t w[8];
} priv_lines[MAX_THREADS];

struct worker {
	_Alignas(64) pthread_t th;
	int k;
	pid_t tid;
	uint64_t iters, sum;
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t start;
static double t_start;
static int nthreads = 4;
static double seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_none [-n THREADS 1..%d] [-t SECONDS] [-y USEC] [-m MSEC] [-T FILE]\n",
		MAX_THREADS);
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
	_Atomic uint64_t *line = priv_lines[w->k].w;
	const double secs = seconds, ydelay = yield_us * 1e-6; /* locals: no loads in the loop */
	const uint64_t tag = (uint64_t)w->k << 32;
	uint64_t iters = 0, sum = 0;

	w->tid = gettid();
	/* Each thread tags its own line (the owner check), so no other thread
	 * ever writes it, not even main at set-up. */
	for (int i = 0; i < 8; i++)
		atomic_store_explicit(&line[i], tag, memory_order_relaxed);
	pthread_barrier_wait(&start);
	const double end = t_start + secs;
	double next_yield = t_start + ydelay;
	const double mdelay = move_ms * 1e-3;
	uint64_t mx = 0x9e3779b97f4a7c15ull ^ (uint64_t)(w->k + 1) << 32; /* never 0 */
	double next_move = t_start; /* a random CPU to start with */

	for (;;) {
		for (int i = 0; i < BATCH; i++) {
			uint64_t r = rnd(&x);
			_Atomic uint64_t *a = &line[r >> 61]; /* any of the 8 words */

			/* The stored value tags the thread, for the self-check. */
			if (r & (1ull << 40))
				sum += atomic_load_explicit(a, memory_order_relaxed);
			else
				atomic_store_explicit(a, tag | (r & 0xffffffffu), memory_order_relaxed);
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
	w->sum = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:t:y:m:T:h")) != -1) {
		switch (c) {
		case 'n': nthreads = inum(optarg, 1, MAX_THREADS); break;
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
			fprintf(stderr, "comm_none: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	t_start = now(); /* published to the workers by the barrier */
	run(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	uint64_t iters = 0, sum = 0;
	int bad = 0;
	for (int k = 0; k < nthreads; k++) {
		iters += workers[k].iters;
		sum ^= workers[k].sum;
		bad |= workers[k].iters == 0;
		for (int i = 0; i < 8; i++)
			bad |= atomic_load(&priv_lines[k].w[i]) >> 32 != (uint64_t)k;
	}
	printf("comm_none: threads=%d seconds=%.3f iters=%llu (sum %llx)\n", nthreads, seconds,
	       (unsigned long long)iters, (unsigned long long)(sum & 0xfff));
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_none: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (bad) {
		fprintf(stderr, "comm_none: self-check failed (idle thread or a foreign store)\n");
		return 1;
	}
	return 0;
}
