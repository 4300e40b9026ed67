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
 * and the options of every comm workload, see comm_common.h; here -t is
 * the wall time of all phases together.
 *
 * Worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a thread idle in a phase, or a phase's shared
 * fraction off by more than 0.02 from S), 2 on bad usage.
 */
#define MAX_THREADS 16
#define MAX_PHASES (MAX_THREADS - 1)
#define BATCH 1024 /* iterations between clock reads */
#define COMM_NAME "comm_phases"
#define COMM_USAGE "[-n 2|4|8|16] [-P PHASES 1..N-1] [-s FRACTION 0..1]"
#include "comm_common.h"

static struct comm_line phase_words[MAX_PHASES][MAX_THREADS];
static struct comm_line priv_slots[MAX_THREADS];

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t iters[MAX_PHASES], shared[MAX_PHASES];
};

static struct worker workers[MAX_THREADS];
static int nphases = 2;
static double frac = 1.0;

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	const int k = c->k, np = nphases;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
	const uint64_t thr = (uint64_t)(frac * 4294967296.0); /* 2^32: always */
	_Atomic uint64_t *mine = &priv_slots[k].v;
	const double secs = seconds; /* a local: no load in the loop */
	struct comm_clock clk = comm_start(k);

	for (int ph = 1; ph <= np; ph++) {
		/* Deadlines from the common start: a late phase does not
		 * shift the next one. */
		clk.end = t_start + secs * ph / np;
		const int partner = k ^ ph;
		_Atomic uint64_t *pair = &phase_words[ph - 1][k < partner ? k : partner].v;
		uint64_t iters = 0, shared = 0;

		do {
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
		} while (!comm_time_up(&clk));
		w->iters[ph - 1] = iters;
		w->shared[ph - 1] = shared;
		pthread_barrier_wait(&barrier);
	}
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 2, MAX_THREADS); break;
	case 'P': nphases = inum(arg, 1, MAX_PHASES); break;
	case 's': frac = num(arg, 0, 1); break;
	}
}

int main(int argc, char **argv)
{
	comm_options(argc, argv, "n:P:s:" COMM_OPTS, NULL, option);
	/* k XOR p is a perfect matching of 0..N-1 only for N a power of two. */
	if ((nthreads & (nthreads - 1)) || nphases > nthreads - 1)
		usage();
	comm_run(workers, sizeof(*workers), run, run);

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
		bad |= comm_off(got, frac);
	}
	printf("\n");
	return comm_finish(bad, "a thread idle in a phase, or a shared fraction");
}
