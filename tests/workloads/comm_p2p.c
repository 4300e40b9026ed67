/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_p2p: ComDetective's Point-to-point microbenchmark (SC'19, 4.1.4).
 *
 * P pairs, 2P threads: pair j is workers 2j and 2j+1.  Each thread runs
 * a loop of single 8-byte stores for SECONDS of wall time.  By a private
 * coin, with probability S_j a store goes to its pair's variable
 * `pair_words[j]` (one cache line per pair), else to the thread's own
 * padded slot in `priv_slots`.  The loop holds no other memory access.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - only cells (2j, 2j+1) of the matrix: with 2 pairs, (0,1) and (2,3),
 *     nothing between pairs and nothing on the diagonal;
 *   - all true sharing;
 *   - the cell of a pair grows with its S_j below about 0.5: with
 *     -s 0.3,0.03 a pair's loop loses 3x..5x more time to stalls in pair 0
 *     than in pair 1, so cell (0,1) is well above cell (2,3).  Above 0.5
 *     the hardware moves the line less again (see comm_volume).
 *
 * Usage: comm_p2p [-p PAIRS] [-s FRACTION[,FRACTION...]] [-t SECONDS]
 *                 [-y USEC] [-m MSEC] [-T FILE]
 *   -p PAIRS     1..32 pairs, default 2 (4 threads)
 *   -s LIST      sharing fraction 0..1 per pair, comma-separated; one
 *                value applies to every pair; default 1
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
 * Worker 0 is the main thread; workers 1..2P-1 are created in order, so
 * worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a thread did no work, or a pair's shared fraction
 * of stores is off by more than 0.02 from S_j), 2 on bad usage.
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

#define MAX_PAIRS 32
#define MAX_THREADS (2 * MAX_PAIRS)
#define BATCH 1024 /* iterations between clock reads */

struct slot {
	_Alignas(64) _Atomic uint64_t v;
};

static struct slot pair_words[MAX_PAIRS];
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
static int npairs = 2;
static double fracs[MAX_PAIRS];
static double seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_p2p [-p PAIRS 1..%d] [-s FRACTION[,FRACTION...]] [-t SECONDS] "
			"[-y USEC] [-m MSEC] [-T FILE]\n", MAX_PAIRS);
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
	const uint64_t thr = (uint64_t)(fracs[w->k / 2] * 4294967296.0); /* 2^32: always */
	_Atomic uint64_t *pair = &pair_words[w->k / 2].v, *mine = &priv_slots[w->k].v;
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
				atomic_store_explicit(pair, r, memory_order_relaxed);
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

/* "0.5" for every pair, or one value per pair: "1,0.25". */
static int parse_fracs(const char *arg)
{
	char buf[1024];
	int n = 0;

	if (strlen(arg) >= sizeof(buf))
		usage();
	strcpy(buf, arg);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_PAIRS)
			usage();
		fracs[n++] = num(tok, 0, 1);
	}
	if (n == 0)
		usage();
	return n;
}

int main(int argc, char **argv)
{
	int c, nfracs = 1;

	fracs[0] = 1.0;
	while ((c = getopt(argc, argv, "p:s:t:y:m:T:h")) != -1) {
		switch (c) {
		case 'p': npairs = inum(optarg, 1, MAX_PAIRS); break;
		case 's': nfracs = parse_fracs(optarg); break;
		case 't': seconds = num(optarg, 0.001, 3600); break;
		case 'y': yield_us = num(optarg, 0, 1e7); break;
		case 'm': move_ms = num(optarg, 0, 1e6); break;
		case 'T': tidfile = optarg; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	/* One value for all pairs, or exactly one per pair. */
	if (nfracs == 1)
		for (int j = 1; j < npairs; j++)
			fracs[j] = fracs[0];
	else if (nfracs != npairs)
		usage();

	int nthreads = 2 * npairs;
	migrate_init();
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int k = 0; k < nthreads; k++)
		workers[k].k = k;
	for (int k = 1; k < nthreads; k++) {
		int e = pthread_create(&workers[k].th, NULL, run, &workers[k]);
		if (e) {
			fprintf(stderr, "comm_p2p: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	t_start = now(); /* published to the workers by the barrier */
	run(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	int bad = 0;
	printf("comm_p2p: pairs=%d seconds=%.3f", npairs, seconds);
	for (int j = 0; j < npairs; j++) {
		const struct worker *a = &workers[2 * j], *b = &workers[2 * j + 1];
		uint64_t it = a->iters + b->iters, sh = a->shared + b->shared;
		double got = it ? (double)sh / (double)it : 0;

		printf(" pair%d=(%d,%d):sharing=%.3f,got=%.4f,iters=%llu", j, 2 * j, 2 * j + 1, fracs[j], got,
		       (unsigned long long)it);
		bad |= a->iters == 0 || b->iters == 0 || got < fracs[j] - 0.02 || got > fracs[j] + 0.02;
	}
	printf("\n");
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_p2p: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (bad) {
		fprintf(stderr, "comm_p2p: self-check failed (idle thread or a pair's shared fraction)\n");
		return 1;
	}
	return 0;
}
