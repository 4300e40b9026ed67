/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_common.h: what the comm_* ground-truth workloads share, so that each
 * of them holds only its designed access pattern, its knobs and its ground
 * truth.  The Makefile builds each workload's .c file as a program of its
 * own (this header is only included), so everything here is static, and
 * inline so that a workload need not use all of it.
 *
 * A workload defines COMM_NAME ("comm_volume") and COMM_USAGE (its own
 * options for the usage line) before including this file.
 *
 * Options every workload has (after its own):
 *   -t SECONDS   wall time of the loop, 0.001..3600, default 1
 *   -y USEC      sched_yield about every USEC us of running (0: never,
 *                default)
 *   -m MSEC      move to a random allowed CPU every MSEC ms (0: never;
 *                default 0.5), see below
 *   -T FILE      write "worker tid" per thread to FILE after the run
 *   -h           usage (exit 2, as for bad usage)
 *
 * Every thread moves itself to a random one of the allowed CPUs every
 * MSEC ms.  With fewer cores than threads, the scheduler's placement
 * would otherwise decide which pairs ever run side by side (threads kept
 * on one core only take turns), and sampled detection sees pairs that run
 * side by side many times more often; moving makes that equal for every
 * pair over a run.
 *
 * Worker 0 is the main thread; workers 1..N-1 are created in order, so
 * worker k is cdt thread index k.  A workload prints one summary line and
 * exits 0, 1 if its self-check fails, 2 on bad usage.
 */
#ifndef COMM_COMMON_H
#define COMM_COMMON_H

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define COMM_STR_(x) #x
#define COMM_STR(x) COMM_STR_(x) /* a number macro in the usage line */

/* Options of comm_options(), after the workload's own. */
#define COMM_OPTS "t:y:m:T:h"

/* One 8-byte word alone on its cache line: nothing shares it by accident. */
struct comm_line {
	_Alignas(64) _Atomic uint64_t v;
};

/* Words from one comm_line to the next, for stepping through an array. */
#define COMM_STEP (sizeof(struct comm_line) / sizeof(uint64_t))

/* The first member of a workload's per-worker struct, which the workload
 * aligns to 64 bytes so that no two workers' records share a line. */
struct comm_worker {
	pthread_t th;
	int k;     /* worker number = cdt thread index */
	pid_t tid; /* for -T */
};

static int nthreads = 4;
static double seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;
/* All workers meet here before the loop (and in comm_phases between
 * phases); t_start is published to them by it. */
static pthread_barrier_t barrier;
static double t_start;

_Noreturn static inline void usage(void)
{
	fprintf(stderr, "usage: " COMM_NAME " " COMM_USAGE " [-t SECONDS] [-y USEC] [-m MSEC] [-T FILE]\n");
	exit(2);
}

static inline double num(const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (errno || end == s || *end || !(v >= lo && v <= hi))
		usage();
	return v;
}

static inline int inum(const char *s, int lo, int hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);

	if (errno || end == s || *end || v < lo || v > hi)
		usage();
	return (int)v;
}

/* getopt (getopt_long with longopts) over OPTS, the workload's own options
 * followed by COMM_OPTS: own() takes the workload's, this the rest; no
 * operands. */
static inline void comm_options(int argc, char **argv, const char *opts, const struct option *longopts,
				void (*own)(int c, const char *arg))
{
	int c;

	while ((c = longopts ? getopt_long(argc, argv, opts, longopts, NULL) : getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 't': seconds = num(optarg, 0.001, 3600); break;
		case 'y': yield_us = num(optarg, 0, 1e7); break;
		case 'm': move_ms = num(optarg, 0, 1e6); break;
		case 'T': tidfile = optarg; break;
		case 'h':
		case '?': usage();
		default: own(c, optarg);
		}
	}
	if (optind != argc)
		usage();
}

static inline double now(void)
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

/* A self-check: is the measured fraction off by more than 0.02? */
static inline int comm_off(double got, double want)
{
	return got < want - 0.02 || got > want + 0.02;
}

/* Random re-pinning (-m): the CPUs this process may use, found at start. */
static int cpus[CPU_SETSIZE], ncpus;

static inline void migrate_init(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				cpus[ncpus++] = c;
}

/* Pin the calling thread to one allowed CPU, picked at random with the
 * xorshift state s; returns the next state (by value: the state can stay
 * in a register of the caller's loop). */
static inline uint64_t migrate(uint64_t s)
{
	cpu_set_t one;

	if (ncpus < 2)
		return s;
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	CPU_ZERO(&one);
	CPU_SET(cpus[s % (uint64_t)ncpus], &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	return s;
}

/* A worker's clock for its loop: the deadline and when to yield (-y) and
 * move (-m) next.  A local of the worker (copies of the knobs), so the
 * loop loads no shared variable. */
struct comm_clock {
	double end, ydelay, next_yield, mdelay, next_move;
	uint64_t mx; /* migrate()'s state, never 0 */
};

/* Wait for all workers at the start, then start worker k's clock: the loop
 * ends -t seconds after t_start. */
static inline struct comm_clock comm_start(int k)
{
	pthread_barrier_wait(&barrier);
	return (struct comm_clock){
		.end = t_start + seconds,
		.ydelay = yield_us * 1e-6,
		.next_yield = t_start + yield_us * 1e-6,
		.mdelay = move_ms * 1e-3,
		.next_move = t_start, /* a random CPU to start with */
		.mx = 0x9e3779b97f4a7c15ull ^ (uint64_t)(k + 1) << 32,
	};
}

/* Between batches of the loop: 1 when the time is up, else 0 after
 * yielding and moving if due.  Reads the clock once per batch. */
static inline int comm_time_up(struct comm_clock *c)
{
	double t = now();

	if (t >= c->end)
		return 1;
	if (c->ydelay > 0 && t >= c->next_yield) {
		sched_yield();
		c->next_yield = t + c->ydelay;
	}
	if (c->mdelay > 0 && t >= c->next_move) {
		c->mx = migrate(c->mx);
		c->next_move = t + c->mdelay;
	}
	return 0;
}

/* The workload's array of workers, each starting with a comm_worker. */
static char *comm_workers;
static size_t comm_wsize;
static void (*comm_body)(struct comm_worker *);

static inline struct comm_worker *comm_worker_at(int k)
{
	return (struct comm_worker *)(comm_workers + (size_t)k * comm_wsize);
}

/* A created worker: it records its own tid (for -T), then runs. */
static inline void *comm_thread(void *p)
{
	struct comm_worker *w = p;

	w->tid = gettid();
	comm_body(w);
	return NULL;
}

/* Run nthreads workers of the array `workers` (elements of `size` bytes):
 * worker 0 is this thread and runs main0, workers 1..N-1 are created in
 * order and run body.  Returns when all have finished. */
static inline void comm_run(void *workers, size_t size, void (*main0)(struct comm_worker *),
			    void (*body)(struct comm_worker *))
{
	comm_workers = workers;
	comm_wsize = size;
	comm_body = body;
	migrate_init();
	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	for (int k = 0; k < nthreads; k++)
		comm_worker_at(k)->k = k;
	for (int k = 1; k < nthreads; k++) {
		int e = pthread_create(&comm_worker_at(k)->th, NULL, comm_thread, comm_worker_at(k));
		if (e) {
			fprintf(stderr, COMM_NAME ": pthread_create: %s\n", strerror(e));
			exit(2);
		}
	}
	comm_worker_at(0)->tid = gettid();
	t_start = now(); /* published to the workers by the barrier */
	main0(comm_worker_at(0));
	for (int k = 1; k < nthreads; k++)
		pthread_join(comm_worker_at(k)->th, NULL);
}

/* After the summary line: write the -T file, then the exit status: 1 if
 * the self-check found the run bad (printing why: a printf format), else
 * 0; 2 if the file cannot be written. */
__attribute__((format(printf, 2, 3))) static inline int comm_finish(int bad, const char *why, ...)
{
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, COMM_NAME ": %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)comm_worker_at(k)->tid);
		fclose(f);
	}
	if (bad) {
		va_list ap;

		fprintf(stderr, COMM_NAME ": self-check failed (");
		va_start(ap, why);
		vfprintf(stderr, why, ap);
		va_end(ap);
		fprintf(stderr, ")\n");
		return 1;
	}
	return 0;
}

#endif
