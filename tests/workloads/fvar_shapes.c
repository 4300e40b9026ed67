/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fvar_shapes: functions with designed instance costs, for cdt fvar.
 *
 * Each thread calls, in a loop, the functions of its mode.  The work of
 * a call is a loop of U iterations of dependent arithmetic per unit
 * (about 20 us per unit at -u 20000 here), done in the function itself so
 * that samples land in it, not in a helper.
 *
 *   -m mix        bimodal() costs 1 or 10 units, chosen at random per call
 *                 (so a call's cost is independent of the previous one's);
 *                 steady() always costs 5 units.  Ground truth: bimodal's
 *                 mean 5.5 units and CV 4.5/5.5 = 0.82; steady's CV ~0;
 *                 bimodal takes 52% of the time and steady 48%.
 *   -m imbalance  thread i calls share(i) -r times (2000), each call i + 1
 *                 units: no variance within a thread, CV across the
 *                 per-thread totals (1, 2, ..., n)/mean.
 *   -m recursive  descend(9) calls itself down to depth 0, a unit per
 *                 level: an instance at depth d costs d + 1 units.
 *   -m longjmp    leap() calls jumper() (2 units), which every other call
 *                 longjmps back to leap() over its own frame; steady()
 *                 (5 units) is called too, timed, as a yardstick.
 *   -m lib        lib_work() of the workload's own libfvarlib.so costs 1
 *                 or 10 units at random, as bimodal() does.
 *   -m tiny       tiny() costs 1 unit (about 1 us at -u 1000): millions
 *                 of calls, for overhead that must not grow with them.
 *   -m paths      leaf() (2 units) has one call site, in helper(), which
 *                 via_a() and via_b() call in turn: one context, two full
 *                 call paths, half the instances each.
 *
 * -N LOOPS runs that many iterations of a thread's loop (a batch of 100
 * calls for tiny) instead of -t CPU seconds: a fixed amount of work, for
 * overhead benchmarks.
 *
 * -T FILE writes the truth measured around every call of each function
 * with the thread's CPU clock: "function calls mean_ns cv" per line; in
 * imbalance mode also "share@K q1_ns median_ns q3_ns" for worker K's calls
 * of share (cdt's thread K + 1), in longjmp mode "steady@K ..." for its
 * calls of steady: what the host's speed did to calls that all do the
 * same work.
 *
 * Usage: fvar_shapes [-m MODE] [-n THREADS] [-t CPU_SECONDS | -N LOOPS]
 *                    [-u ITERS] [-r ROUNDS] [-T FILE]
 * Exit 0; 2 on bad usage.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cputime.h"

#define MAX_THREADS 16
#define NOINLINE __attribute__((noinline))

enum { F_BIMODAL, F_STEADY, F_SHARE, F_DESCEND, F_JUMPER, F_LIB, F_TINY, F_LEAF, F_N };
static const char *const fname[F_N] = { "bimodal", "steady", "share", "descend", "jumper",
					"lib_work", "tiny", "leaf" };

uint64_t lib_work(uint64_t units, uint64_t iters, uint64_t x); /* libfvarlib.so */

struct truth {
	uint64_t n;
	double mean, m2;
};

#define CALLS_MAX 65536 /* steady's calls timed one by one (longjmp) */

struct worker {
	pthread_t th;
	int k;
	uint64_t rng;
	struct truth t[F_N];
	double *calls_ns; /* each call's CPU time: share (imbalance), steady (longjmp) */
	size_t ncalls;
	volatile uint64_t sink;
};

static const char *mode = "mix";
static int nthreads = 1;
static double seconds = 1.0;
static uint64_t unit = 20000;
static const char *truth_file;
static int rounds = 2000;
static long iters; /* -N: loop iterations per thread instead of -t */

static uint64_t ns_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void truth_add(struct truth *t, double x)
{
	double d = x - t->mean;

	t->n++;
	t->mean += d / (double)t->n;
	t->m2 += d * (x - t->mean);
}

/* units of dependent arithmetic the compiler cannot fold away */
static inline __attribute__((always_inline)) uint64_t burn(uint64_t units, uint64_t x)
{
	for (uint64_t i = 0; i < units * unit; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static uint64_t xrand(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

NOINLINE uint64_t bimodal(uint64_t big, uint64_t x)
{
	return burn(big ? 10 : 1, x);
}

NOINLINE uint64_t steady(uint64_t x)
{
	return burn(5, x);
}

NOINLINE uint64_t tiny(uint64_t x)
{
	return burn(1, x);
}

NOINLINE uint64_t share(int k, uint64_t x)
{
	return burn((uint64_t)k + 1, x);
}

NOINLINE uint64_t descend(int d, uint64_t x)
{
	x = burn(1, x);
	if (d > 0)
		x = descend(d - 1, x);
	__asm__ volatile("" : "+r"(x)); /* no tail call: a real return */
	return x;
}

NOINLINE uint64_t leaf(uint64_t x)
{
	return burn(2, x);
}

NOINLINE uint64_t helper(uint64_t x)
{
	x = leaf(x);
	__asm__ volatile("" : "+r"(x));
	return x;
}

NOINLINE uint64_t via_a(uint64_t x)
{
	x = helper(x);
	__asm__ volatile("" : "+r"(x));
	return x;
}

NOINLINE uint64_t via_b(uint64_t x)
{
	x = helper(x ^ 1);
	__asm__ volatile("" : "+r"(x));
	return x;
}

static __thread jmp_buf leap_env;

NOINLINE uint64_t jumper(int leave, uint64_t x)
{
	x = burn(2, x);
	if (leave)
		longjmp(leap_env, 1);
	__asm__ volatile("" : "+r"(x));
	return x;
}

NOINLINE uint64_t leap(int leave, uint64_t x)
{
	volatile uint64_t v = x;

	if (setjmp(leap_env))
		return v + 1;
	v = jumper(leave, x);
	return v;
}

/* Calls f's instance with the truth timers around it. */
#define TIMED(w, f, call)                                              \
	do {                                                           \
		uint64_t t0_ = ns_cpu();                               \
		(w)->sink = (call);                                    \
		truth_add(&(w)->t[f], (double)(ns_cpu() - t0_));       \
	} while (0)

static void *run(void *arg)
{
	struct worker *w = arg;
	double end = cputime_now() + seconds;
	uint64_t x = (uint64_t)w->k + 1;

	if (!strcmp(mode, "imbalance")) {
		for (int r = 0; r < rounds; r++) {
			uint64_t t0 = ns_cpu();

			TIMED(w, F_SHARE, share(w->k, x + w->sink));
			if (w->calls_ns)
				w->calls_ns[w->ncalls++] = (double)(ns_cpu() - t0);
		}
		return NULL;
	}
	for (long it = 0; iters ? it < iters : cputime_now() < end; it++) {
		if (!strcmp(mode, "mix")) {
			TIMED(w, F_BIMODAL, bimodal(xrand(w) & 1, x + w->sink));
			TIMED(w, F_STEADY, steady(x + w->sink));
		} else if (!strcmp(mode, "recursive")) {
			TIMED(w, F_DESCEND, descend(9, x + w->sink));
		} else if (!strcmp(mode, "paths")) {
			w->sink = it & 1 ? via_b(x + w->sink) : via_a(x + w->sink);
		} else if (!strcmp(mode, "lib")) {
			TIMED(w, F_LIB, lib_work(xrand(w) & 1 ? 10 : 1, unit, x + w->sink));
		} else if (!strcmp(mode, "tiny")) {
			/* Timers would cost as much as the call: truth on request.
			 * A batch per clock read keeps the loop's own cost down. */
			for (int b = 0; b < 100; b++)
				if (truth_file)
					TIMED(w, F_TINY, tiny(x + w->sink));
				else
					w->sink = tiny(x + w->sink);
		} else {
			static __thread unsigned calls;
			uint64_t t0;

			w->sink = leap(calls++ & 1, x + w->sink);
			t0 = ns_cpu();
			TIMED(w, F_STEADY, steady(x + w->sink));
			if (w->calls_ns && w->ncalls < CALLS_MAX)
				w->calls_ns[w->ncalls++] = (double)(ns_cpu() - t0);
		}
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: fvar_shapes [-m mix|imbalance|recursive|longjmp|lib|tiny|paths] [-n THREADS] "
			"[-t CPU_SECONDS | -N LOOPS] [-u ITERS] [-r ROUNDS] [-T FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	int c;

	while ((c = getopt(argc, argv, "m:n:t:u:r:N:T:")) != -1) {
		switch (c) {
		case 'm':
			mode = optarg;
			break;
		case 'n':
			nthreads = atoi(optarg);
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'u':
			unit = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'N':
			iters = atol(optarg);
			break;
		case 'T':
			truth_file = optarg;
			break;
		default:
			usage();
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || seconds <= 0 || !unit || rounds < 1 ||
	    iters < 0 ||
	    (strcmp(mode, "mix") && strcmp(mode, "imbalance") && strcmp(mode, "recursive") &&
	     strcmp(mode, "longjmp") && strcmp(mode, "lib") && strcmp(mode, "tiny") &&
	     strcmp(mode, "paths")))
		usage();
	for (int i = 0; i < nthreads; i++) {
		w[i].k = i;
		w[i].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		if (truth_file && (!strcmp(mode, "imbalance") || !strcmp(mode, "longjmp")) &&
		    !(w[i].calls_ns = calloc(!strcmp(mode, "imbalance") ? (size_t)rounds : CALLS_MAX,
					     sizeof(double)))) {
			perror("calloc");
			return 1;
		}
		if (pthread_create(&w[i].th, NULL, run, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].th, NULL);
	if (truth_file) {
		FILE *f = fopen(truth_file, "w");

		if (!f) {
			perror(truth_file);
			return 1;
		}
		for (int k = 0; k < F_N; k++) {
			struct truth all = { 0 };

			/* The threads' states merged as cdt merges them. */
			for (int i = 0; i < nthreads; i++) {
				const struct truth *b = &w[i].t[k];
				double n, d;

				if (!b->n)
					continue;
				if (!all.n) {
					all = *b;
					continue;
				}
				n = (double)(all.n + b->n);
				d = b->mean - all.mean;
				all.m2 += b->m2 + d * d * (double)all.n * (double)b->n / n;
				all.mean += d * (double)b->n / n;
				all.n += b->n;
			}
			if (all.n)
				fprintf(f, "%s %llu %.1f %.4f\n", fname[k], (unsigned long long)all.n,
					all.mean,
					all.n > 1 ? sqrt(all.m2 / (double)(all.n - 1)) / all.mean : 0);
		}
		for (int i = 0; i < nthreads; i++) {
			double *v = w[i].calls_ns;
			size_t n = w[i].ncalls;

			if (!v || !n)
				continue;
			qsort(v, n, sizeof(*v), cmp_double);
			fprintf(f, "%s@%d %.0f %.0f %.0f\n", !strcmp(mode, "imbalance") ? "share" : "steady",
				i, v[n / 4], v[n / 2], v[3 * n / 4]);
			free(v);
		}
		fclose(f);
	}
	return 0;
}
