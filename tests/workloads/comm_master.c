/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_master: master and workers.  Worker 0 (the master) hands out tasks
 * to workers 1..N-1 and collects their results; the workers never touch
 * each other's data.
 *
 * Worker k has a task area `tasks[k]` and a result area `results[k]`,
 * SLOTS 8-byte words each, every word alone on its cache line.  The
 * master loops over the workers: it stores a new task number into each
 * task word of worker k and loads each of worker k's result words.
 * Worker k loops over its words: it loads the task number and stores it
 * back as its result, after WORK stores of its own into a private padded
 * scratch line.  Each area holds the latest value, not a queue: nobody
 * waits.  That is on purpose: on 2 cores a waiting thread spends its
 * samples polling (loads only) or in the kernel, and ComDetective-style
 * detection needs the stores to shared lines in the samples.  Every
 * thread runs for SECONDS of wall time.  The master checks that a result
 * never names a task it has not given, and at the end that every worker
 * has answered.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - cells (0, k) for k = 1..N-1 only, all alike (the workers are
 *     symmetric; the master spreads its accesses evenly over them): an L
 *     shape (row and column 0) in the matrix, nothing between workers,
 *     nothing on the diagonal;
 *   - all true sharing: both sides touch the same 8 bytes, and each word
 *     is alone on its line.
 *
 * Usage: comm_master [-n THREADS] [-w WORK] [-t SECONDS]
 *                    [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   2..64 threads (master + N-1 workers), default 4
 *   -w WORK      private stores per task word in a worker, 0..10000,
 *                default 0
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
 * the self-check fails (a result for a task not given, a foreign value,
 * or a worker that never answered or never saw a task), 2 on bad usage.
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
#define SLOTS 8   /* words (lines) per area */
#define BATCH 128 /* passes between clock reads */
/* A word holds the writer's index in the top byte and a task number below. */
#define TAG_SHIFT 56
#define NUM_MASK ((1ull << TAG_SHIFT) - 1)

struct line {
	_Alignas(64) _Atomic uint64_t v;
};

struct area {
	struct line w[SLOTS];
};

static struct area tasks[MAX_THREADS], results[MAX_THREADS];
static struct line scratch[MAX_THREADS];

struct worker {
	_Alignas(64) pthread_t th;
	int k;
	pid_t tid;
	uint64_t passes, fresh, bad;
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t start;
static double t_start;
static int nthreads = 4, work = 0;
static double seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_master [-n THREADS 2..%d] [-w WORK] [-t SECONDS] "
			"[-y USEC] [-m MSEC] [-T FILE]\n",
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

/* Words from one line to the next, for stepping through an area. */
#define STEP (sizeof(struct line) / sizeof(uint64_t))

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

static void master(struct worker *w)
{
	const int n = nthreads;
	const double secs = seconds, ydelay = yield_us * 1e-6; /* locals: no loads in the loop */
	uint64_t task = 0, passes = 0, bad = 0;

	pthread_barrier_wait(&start);
	const double end = t_start + secs;
	double next_yield = t_start + ydelay;
	const double mdelay = move_ms * 1e-3;
	uint64_t mx = 0x9e3779b97f4a7c15ull ^ (uint64_t)(w->k + 1) << 32; /* never 0 */
	double next_move = t_start; /* a random CPU to start with */

	for (;;) {
		for (int b = 0; b < BATCH; b++) {
			task++;
			for (int k = 1; k < n; k++) {
				_Atomic uint64_t *t = &tasks[k].w[0].v, *r = &results[k].w[0].v;
				const uint64_t ktag = (uint64_t)k << TAG_SHIFT;

				for (int i = 0; i < SLOTS; i++) {
					atomic_store_explicit(&t[i * STEP], task, memory_order_relaxed);
					uint64_t v = atomic_load_explicit(&r[i * STEP], memory_order_relaxed);

					/* Worker k's tag and a task already given, in
					 * one compare (fewer registers: no spills). */
					bad += v - ktag > task;
				}
			}
		}
		passes += BATCH;
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
	w->passes = passes;
	w->bad = bad;
}

static void *worker(void *p)
{
	struct worker *w = p;
	const uint64_t mytag = (uint64_t)w->k << TAG_SHIFT;
	_Atomic uint64_t *t = &tasks[w->k].w[0].v, *r = &results[w->k].w[0].v;
	_Atomic uint64_t *mine = &scratch[w->k].v;
	const int nwork = work;
	const double secs = seconds, ydelay = yield_us * 1e-6;
	uint64_t passes = 0, fresh = 0, bad = 0;

	w->tid = gettid();
	/* Result 0 means "none yet", under the worker's own tag. */
	for (int i = 0; i < SLOTS; i++)
		atomic_store_explicit(&r[i * STEP], mytag, memory_order_relaxed);
	pthread_barrier_wait(&start);
	const double end = t_start + secs;
	double next_yield = t_start + ydelay;
	const double mdelay = move_ms * 1e-3;
	uint64_t mx = 0x9e3779b97f4a7c15ull ^ (uint64_t)(w->k + 1) << 32; /* never 0 */
	double next_move = t_start; /* a random CPU to start with */

	for (;;) {
		for (int b = 0; b < BATCH; b++) {
			for (int i = 0; i < SLOTS; i++) {
				uint64_t v = atomic_load_explicit(&t[i * STEP], memory_order_relaxed);

				bad += (v >> TAG_SHIFT) != 0; /* the master's tag is 0 */
				fresh += v != 0;
				for (int j = 0; j < nwork; j++)
					atomic_store_explicit(mine, v + (uint64_t)j, memory_order_relaxed);
				atomic_store_explicit(&r[i * STEP], mytag | (v & NUM_MASK), memory_order_relaxed);
			}
		}
		passes += BATCH;
		double now_t = now();
		if (now_t >= end)
			break;
		if (ydelay > 0 && now_t >= next_yield) {
			sched_yield();
			next_yield = now_t + ydelay;
		}
		if (mdelay > 0 && now_t >= next_move) {
			migrate(&mx);
			next_move = now_t + mdelay;
		}
	}
	w->passes = passes;
	w->fresh = fresh;
	w->bad = bad;
	return NULL;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:w:t:y:m:T:h")) != -1) {
		switch (c) {
		case 'n': nthreads = inum(optarg, 2, MAX_THREADS); break;
		case 'w': work = inum(optarg, 0, 10000); break;
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
		int e = pthread_create(&workers[k].th, NULL, worker, &workers[k]);
		if (e) {
			fprintf(stderr, "comm_master: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	workers[0].tid = gettid();
	t_start = now(); /* published to the workers by the barrier */
	master(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	/* Every worker has answered some task (result 0 means none yet). */
	uint64_t passes = 0, minans = UINT64_MAX;
	int bad = workers[0].bad != 0;
	for (int k = 1; k < nthreads; k++) {
		for (int i = 0; i < SLOTS; i++) {
			uint64_t v = atomic_load(&results[k].w[i].v) & NUM_MASK;
			minans = v < minans ? v : minans;
		}
		passes += workers[k].passes;
		bad |= workers[k].bad != 0 || workers[k].fresh == 0;
	}
	bad |= minans == 0;
	printf("comm_master: threads=%d work=%d seconds=%.3f master_passes=%llu worker_passes=%llu "
	       "min_last_answer=%llu\n",
	       nthreads, work, seconds, (unsigned long long)workers[0].passes, (unsigned long long)passes,
	       (unsigned long long)minans);
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_master: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (bad) {
		fprintf(stderr, "comm_master: self-check failed "
				"(a wrong or foreign value, or a silent worker)\n");
		return 1;
	}
	return 0;
}
