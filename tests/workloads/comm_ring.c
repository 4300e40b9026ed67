/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_ring: producer-consumer ring (or chain).  Worker k consumes what
 * worker k-1 produces and produces for worker k+1.
 *
 * Channel k is SLOTS 8-byte words, each alone on its cache line, written
 * only by worker k (the producer) and read only by worker k+1 (the
 * consumer).  Each worker loops for SECONDS of wall time over the slots:
 * it loads slot i of its input channel and stores the count it read plus
 * its own pass number into slot i of its output channel.  A channel holds the latest
 * value, not a queue: nobody waits for anybody.  That is on purpose: on 2
 * cores a waiting thread spends its samples polling (loads only) or in
 * the kernel, and ComDetective-style detection needs the producers'
 * stores in the samples.  Here half the accesses are stores to a shared
 * line and half loads of one, and no thread ever reads data that did not
 * come from its predecessor (checked).
 *
 *   ring (default): channel k goes from worker k to worker (k+1) mod N,
 *     so the counts circulate and grow.
 *   --chain: a linear pipeline: worker 0 (the source) reads nothing (its
 *     count read is 0); worker N-1 (the sink) writes nothing; no channel
 *     N-1.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - ring: cells (k, (k+1) mod N) only, all alike: with N = 4, (0,1)
 *     (1,2) (2,3) (0,3); nothing else, nothing on the diagonal;
 *   - chain: cells (k, k+1) for k < N-1 only (with N = 4, no (0,3));
 *   - all true sharing: a producer and its consumer touch the same
 *     8 bytes, and each slot is alone on its line.
 *
 * Usage: comm_ring [-n THREADS] [-c|--chain] [-t SECONDS]
 *                  [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   2..64 threads, default 4 (a ring of 2 is one pair)
 *   -c, --chain  linear chain instead of a ring
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
 * the self-check fails (a value not from the predecessor, a count that
 * went backwards, or a consumer that never saw a new value), 2 on bad
 * usage.
 */
#include <errno.h>
#include <getopt.h>
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
#define SLOTS 8   /* words (lines) per channel */
#define BATCH 128 /* passes over the slots between clock reads */
/* A slot holds the writer's index in the top byte and a count below. */
#define TAG_SHIFT 56
#define COUNT_MASK ((1ull << TAG_SHIFT) - 1)

struct line {
	_Alignas(64) _Atomic uint64_t v;
};

struct channel {
	struct line slot[SLOTS];
};

static struct channel channels[MAX_THREADS];

struct worker {
	_Alignas(64) pthread_t th;
	int k;
	pid_t tid;
	uint64_t passes, fresh, bad;
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t start;
static double t_start;
static int nthreads = 4, chain;
static double seconds = 1.0, yield_us = 0, move_ms = 0.5;
static const char *tidfile;

static void usage(void)
{
	fprintf(stderr, "usage: comm_ring [-n THREADS 2..%d] [-c|--chain] [-t SECONDS] "
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
	const int n = nthreads, k = w->k;
	/* The source of a chain has no input channel, its sink no output. */
	_Atomic uint64_t *in = chain && k == 0 ? NULL : &channels[(k + n - 1) % n].slot[0].v;
	_Atomic uint64_t *out = chain && k == n - 1 ? NULL : &channels[k].slot[0].v;
	const uint64_t pred = (uint64_t)((k + n - 1) % n), mytag = (uint64_t)k << TAG_SHIFT;
	const size_t step = sizeof(struct line) / sizeof(*in); /* words from slot to slot */
	const double secs = seconds, ydelay = yield_us * 1e-6; /* locals: no loads in the loop */
	uint64_t last = 0, passes = 0, fresh = 0, bad = 0, seq = 0;

	w->tid = gettid();
	/* The producer starts its channel at count 0, under its own tag. */
	if (out)
		for (int i = 0; i < SLOTS; i++)
			atomic_store_explicit(&out[i * step], mytag, memory_order_relaxed);
	pthread_barrier_wait(&start);
	const double end = t_start + secs;
	double next_yield = t_start + ydelay;
	const double mdelay = move_ms * 1e-3;
	uint64_t mx = 0x9e3779b97f4a7c15ull ^ (uint64_t)(w->k + 1) << 32; /* never 0 */
	double next_move = t_start; /* a random CPU to start with */

	for (;;) {
		for (int b = 0; b < BATCH; b++) {
			seq++;
			for (int i = 0; i < SLOTS; i++) {
				uint64_t c = 0;

				if (in) {
					uint64_t v = atomic_load_explicit(&in[i * step], memory_order_relaxed);

					c = v & COUNT_MASK;
					/* Only the predecessor writes here, and (slot 0
					 * stands for all: no per-slot state in memory)
					 * its counts never go back. */
					bad += (v >> TAG_SHIFT) != pred;
					if (i == 0) {
						bad += c < last;
						fresh += c != last;
						last = c;
					}
				}
				/* Plus the own pass number: every store carries
				 * new data, and counts still never go back. */
				if (out)
					atomic_store_explicit(&out[i * step], mytag | ((c + seq) & COUNT_MASK),
							      memory_order_relaxed);
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
	w->fresh = in ? fresh : 1;
	w->bad = bad;
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "chain", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:ct:y:m:T:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': nthreads = inum(optarg, 2, MAX_THREADS); break;
		case 'c': chain = 1; break;
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
			fprintf(stderr, "comm_ring: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	t_start = now(); /* published to the workers by the barrier */
	run(&workers[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(workers[k].th, NULL);

	uint64_t passes = 0, fresh = 0, minfresh = UINT64_MAX;
	int bad = 0;
	for (int k = 0; k < nthreads; k++) {
		passes += workers[k].passes;
		fresh += workers[k].fresh;
		minfresh = workers[k].fresh < minfresh ? workers[k].fresh : minfresh;
		bad |= workers[k].bad != 0 || workers[k].fresh == 0;
	}
	printf("comm_ring: threads=%d mode=%s seconds=%.3f passes=%llu fresh_reads=%llu min_fresh=%llu\n",
	       nthreads, chain ? "chain" : "ring", seconds, (unsigned long long)passes,
	       (unsigned long long)fresh, (unsigned long long)minfresh);
	if (tidfile) {
		FILE *f = fopen(tidfile, "w");
		if (!f) {
			fprintf(stderr, "comm_ring: %s: %s\n", tidfile, strerror(errno));
			return 2;
		}
		for (int k = 0; k < nthreads; k++)
			fprintf(f, "%d %d\n", k, (int)workers[k].tid);
		fclose(f);
	}
	if (bad) {
		fprintf(stderr, "comm_ring: self-check failed "
				"(foreign or backward values, or no data arrived)\n");
		return 1;
	}
	return 0;
}
