/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_falseshare: ComDetective's False-Sharing microbenchmark (SC'19,
 * 4.1.2), with a knob for the false-sharing fraction.
 *
 * N threads (at most 8) each run a loop of single 8-byte atomic adds
 * (lock add) for SECONDS of wall time.  By a private coin, with
 * probability F the add goes to the thread's own 8-byte slot of
 * `fs_line` (one cache line, slot k for worker k: distinct bytes of a
 * line every thread writes: false sharing), else to `ts_word` (one
 * 8-byte variable on a line of its own that every thread adds to: true
 * sharing).  The two lines are hammered by the same threads with the same
 * instruction, so they differ only in the bytes touched; the loop holds
 * no other memory access.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - every pair of threads communicates, all pairs alike;
 *   - fs / (ts + fs) tracks F: 0 at F = 0, 1 at F = 1, and exactly 1/2
 *     at F = 0.5, where the two lines are symmetric;
 *   - fs is on `fs_line`, ts on `ts_word`.
 *
 * Usage: comm_falseshare [-n THREADS] [-f FRACTION] [-t SECONDS]
 *                        [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   1..8 threads (one slot each in the line), default 4
 *   -f FRACTION  false-sharing fraction 0..1, default 0.5
 * and the options of every comm workload, see comm_common.h.
 *
 * Worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a slot or ts_word disagrees with the adds made, a
 * thread did no work, or the FS fraction of adds is off by more than
 * 0.02 from F), 2 on bad usage.
 */
#define MAX_THREADS 8 /* 8 slots of 8 bytes fill the 64-byte line */
#define BATCH 1024    /* iterations between clock reads */
#define COMM_NAME "comm_falseshare"
#define COMM_USAGE "[-n THREADS 1.." COMM_STR(MAX_THREADS) "] [-f FRACTION 0..1]"
#include "comm_common.h"

static struct {
	_Alignas(64) _Atomic uint64_t slot[MAX_THREADS];
} fs_line;
static struct comm_line ts_word;

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t iters, fs;
};

static struct worker workers[MAX_THREADS];
static double frac = 0.5;

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(c->k + 1);
	const uint64_t thr = (uint64_t)(frac * 4294967296.0); /* 2^32: always */
	_Atomic uint64_t *mine = &fs_line.slot[c->k];
	uint64_t iters = 0, fs = 0;
	struct comm_clock clk = comm_start(c->k);

	do {
		for (int i = 0; i < BATCH; i++) {
			uint64_t r = rnd(&x);

			/* Both branches: the same lock add of 1, on different lines. */
			if ((r >> 32) < thr) {
				atomic_fetch_add_explicit(mine, 1, memory_order_relaxed);
				fs++;
			} else {
				atomic_fetch_add_explicit(&ts_word.v, 1, memory_order_relaxed);
			}
		}
		iters += BATCH;
	} while (!comm_time_up(&clk));
	w->iters = iters;
	w->fs = fs;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 1, MAX_THREADS); break;
	case 'f': frac = num(arg, 0, 1); break;
	}
}

int main(int argc, char **argv)
{
	comm_options(argc, argv, "n:f:" COMM_OPTS, NULL, option);
	comm_run(workers, sizeof(*workers), run, run);

	uint64_t iters = 0, fs = 0;
	int bad = 0;
	for (int k = 0; k < nthreads; k++) {
		iters += workers[k].iters;
		fs += workers[k].fs;
		bad |= workers[k].iters == 0 || atomic_load(&fs_line.slot[k]) != workers[k].fs;
	}
	bad |= atomic_load(&ts_word.v) != iters - fs;
	double got = iters ? (double)fs / (double)iters : 0;
	printf("comm_falseshare: threads=%d fs_fraction=%.3f seconds=%.3f iters=%llu fs_adds=%.4f\n",
	       nthreads, frac, seconds, (unsigned long long)iters, got);
	return comm_finish(bad || comm_off(got, frac), "counts or FS fraction %.4f vs %.4f", got, frac);
}
