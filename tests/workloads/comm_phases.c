/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_phases: communication partners that change between phases
 * separated by barriers.
 *
 * N threads (a power of two) run P phases of SECONDS/P wall time each,
 * with a pthread barrier between phases.  In phase p (1..P) worker k is
 * paired with worker k XOR p: each thread runs a loop of single 8-byte
 * stores that go, by a private coin, with probability S to its pair's
 * variable for that phase (`phase_words[p-1][min(k, k^p)]`, a cache line
 * each), else to its own padded slot in `priv_slots`.  The loop holds no
 * other memory access.  With N = 4:
 *   phase 1: (0,1) (2,3)   phase 2: (0,2) (1,3)   phase 3: (0,3) (1,2)
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - the overall matrix is the union of the phases' pairs, all alike
 *     (equal time per phase): with N = 4 and P = 2, cells (0,1) (2,3)
 *     (0,2) (1,3), and nothing in (0,3) (1,2) or on the diagonal; with
 *     P = N-1 every pair;
 *   - all true sharing.
 *
 * Usage: comm_phases [-n THREADS] [-P PHASES] [-s FRACTION] [-t SECONDS]
 *                    [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   2, 4, 8 or 16 threads, default 4
 *   -P PHASES    1..N-1 phases, default 2
 *   -s FRACTION  sharing fraction 0..1, default 1
 *   -t SECONDS   wall time of all phases together, default 1
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
 * the self-check fails (a thread idle in a phase, or a phase's shared
 * fraction off by more than 0.02 from S), 2 on bad usage.
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

#define MAX_THREADS 16
#define MAX_PHASES (MAX_THREADS - 1)
#define BATCH 1024 /* iterations between clock reads */

struct slot {
	_Alignas(64) _Atomic uint64_t v;
};

static struct slot phase_words[MAX_PHASES][MAX_THREADS];
static struct slot priv_slots[MAX_THREADS];

struct worker {
	_Alignas(64) pthread_t th;
	int k;
	pid_t tid;
	uint64_t iters[MAX_PHASES], shared[MAX_PHASES];
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t barrier;
static double t_start;
static int nthreads = 4, nphases = 2;
static double frac = 1.0, seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_phases [-n 2|4|8|16] [-P PHASES 1..N-1] [-s FRACTION 0..1] "
			"[-t SECONDS] [-y USEC] [-m MSEC] [-T FILE]\n");
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
	const int k = w->k, np = nphases;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
	const uint64_t thr = (uint64_t)(frac * 4294967296.0); /* 2^32: always */
	_Atomic uint64_t *mine = &priv_slots[k].v;
	const double secs = seconds, ydelay = yield_us * 1e-6; /* locals: no loads in the loop */

	w->tid = gettid();
	pthread_barrier_wait(&barrier);
	double next_yield = t_start + ydelay;
	const double mdelay = move_ms * 1e-3;
	uint64_t mx = 0x9e3779b97f4a7c15ull ^ (uint64_t)(w->k + 1) << 32; /* never 0 */
	double next_move = t_start; /* a random CPU to start with */

	for (int ph = 1; ph <= np; ph++) {
		/* Deadlines from the common start: a late phase does not
		 * shift the next one. */
		const double end = t_start + secs * ph / np;
		const int partner = k ^ ph;
		_Atomic uint64_t *pair = &phase_words[ph - 1][k < partner ? k : partner].v;
		uint64_t iters = 0, shared = 0;

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
		w->iters[ph - 1] = iters;
		w->shared[ph - 1] = shared;
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:P:s:t:y:m:T:h")) != -1) {
		switch (c) {
		case 'n': nthreads = inum(optarg, 2, MAX_THREADS); break;
		case 'P': nphases = inum(optarg, 1, MAX_PHASES); break;
		case 's': frac = num(optarg, 0, 1); break;
		case 't': seconds = num(optarg, 0.001, 3600); break;
		case 'y': yield_us = num(optarg, 0, 1e7); break;
		case 'm': move_ms = num(optarg, 0, 1e6); break;
		case 'T': tidfile = optarg; break;
		default: usage();
		}
	}
	/* k XOR p is a perfect matching of 0..N-1 only for N a power of two. */
	if (optind != argc || (nthreads & (nthreads - 1)) || nphases > nthreads - 1)
		usage();

	migrate_init();
	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	for (int k = 0; k < nthreads; k++)
		workers[k].k = k;
	for (int k = 1; k < nthreads; k++) {
		int e = pthread_create(&workers[k].th, NULL, run, &workers[k]);
		if (e) {
			fprintf(stderr, "comm_phases: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	t_start = now(); /* published to the workers by the barrier */
	run(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	int bad = 0;
	printf("comm_phases: threads=%d phases=%d sharing=%.3f seconds=%.3f", nthreads, nphases, frac,
	       seconds);
	for (int ph = 0; ph < nphases; ph++) {
		uint64_t it = 0, sh = 0;

		for (int k = 0; k < nthreads; k++) {
			it += workers[k].iters[ph];
			sh += workers[k].shared[ph];
			bad |= workers[k].iters[ph] == 0;
		}
		double got = it ? (double)sh / (double)it : 0;
		printf(" phase%d:iters=%llu,shared=%.4f", ph + 1, (unsigned long long)it, got);
		bad |= got < frac - 0.02 || got > frac + 0.02;
	}
	printf("\n");
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_phases: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (bad) {
		fprintf(stderr, "comm_phases: self-check failed "
				"(a thread idle in a phase, or a shared fraction)\n");
		return 1;
	}
	return 0;
}
