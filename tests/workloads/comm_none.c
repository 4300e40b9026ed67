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
 * and the options of every comm workload, see comm_common.h.
 *
 * Worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a thread did no work, or its stores are not all
 * in its line), 2 on bad usage.
 */
#define MAX_THREADS 64
#define BATCH 1024 /* iterations between clock reads */
#define COMM_NAME "comm_none"
#define COMM_USAGE "[-n THREADS 1.." COMM_STR(MAX_THREADS) "]"
#include "comm_common.h"

/* One line per thread, back to back. */
static struct {
	_Alignas(64) _Atomic uint64_t w[8];
} priv_lines[MAX_THREADS];

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t iters, sum;
};

static struct worker workers[MAX_THREADS];

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(c->k + 1);
	_Atomic uint64_t *line = priv_lines[c->k].w;
	const uint64_t tag = (uint64_t)c->k << 32;
	uint64_t iters = 0, sum = 0;

	/* Each thread tags its own line (the owner check), so no other thread
	 * ever writes it, not even main at set-up. */
	for (int i = 0; i < 8; i++)
		atomic_store_explicit(&line[i], tag, memory_order_relaxed);
	struct comm_clock clk = comm_start(c->k);

	do {
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
	} while (!comm_time_up(&clk));
	w->iters = iters;
	w->sum = sum;
}

static void option(int c, const char *arg)
{
	if (c == 'n')
		nthreads = inum(arg, 1, MAX_THREADS);
}

int main(int argc, char **argv)
{
	comm_options(argc, argv, "n:" COMM_OPTS, NULL, option);
	comm_run(workers, sizeof(*workers), run, run);

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
	return comm_finish(bad, "idle thread or a foreign store");
}
