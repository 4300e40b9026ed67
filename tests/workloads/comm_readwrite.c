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
 * and the options of every comm workload, see comm_common.h.
 *
 * Worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a thread did no work, or the readers' read
 * fraction is off by more than 0.02 from R), 2 on bad usage.
 */
#define MAX_THREADS 64
#define BATCH 1024 /* iterations between clock reads */
#define COMM_NAME "comm_readwrite"
#define COMM_USAGE "[-n THREADS 2.." COMM_STR(MAX_THREADS) "] [-r FRACTION 0..1]"
#include "comm_common.h"

static struct comm_line rw_word;

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t iters, reads, sum;
};

static struct worker workers[MAX_THREADS];
static double frac = 1.0;

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(c->k + 1);
	/* The writer never reads: threshold 0. */
	const uint64_t thr = c->k == 0 ? 0 : (uint64_t)(frac * 4294967296.0);
	uint64_t iters = 0, reads = 0, sum = 0;
	struct comm_clock clk = comm_start(c->k);

	do {
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
	} while (!comm_time_up(&clk));
	w->iters = iters;
	w->reads = reads;
	w->sum = sum;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 2, MAX_THREADS); break;
	case 'r': frac = num(arg, 0, 1); break;
	}
}

int main(int argc, char **argv)
{
	comm_options(argc, argv, "n:r:" COMM_OPTS, NULL, option);
	comm_run(workers, sizeof(*workers), run, run);

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
	return comm_finish(bad || comm_off(got, frac), "idle thread or read fraction %.4f vs %.4f", got, frac);
}
