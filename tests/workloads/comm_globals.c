// SPDX-License-Identifier: GPL-2.0-only
/*
 * comm_globals: separate global variables that share one cache line,
 * one of them written by each thread.
 *
 * The line holds, in this order, `limit` (read-only after start), then
 * hits_a, hits_b, hits_c and hits_d, one counter per worker: worker k
 * increments its own counter and nothing else.  The program checks at
 * start that the five lie on one line (unpadded) or each on a line of
 * its own (-p), and fails if the linker laid them out otherwise.
 *
 * Ground truth, unpadded: false sharing between the workers, on hits_a,
 * hits_b, ... (the bytes each thread wrote), never on `limit`, which no
 * worker touches in its loop.  Padded: no communication.  The plain
 * run's truth: unpadded, the same work takes longer (it prints its rate).
 *
 * Usage: comm_globals [-n THREADS] [-p] [-t SECONDS] [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS  2..4 workers, default 2
 *   -p          each variable on a line of its own
 * and the options of every comm workload, see comm_common.h.
 */
#define MAX_THREADS 4
#define BATCH 4096
#define COMM_NAME "comm_globals"
#define COMM_USAGE "[-n THREADS 2.." COMM_STR(MAX_THREADS) "] [-p]"
#include "comm_common.h"

/* One line: aligned to its start, the rest follows in the order defined
 * (the Makefile builds this program with -fno-toplevel-reorder, which
 * keeps GCC from reordering them).  All in .bss: limit is set at start. */
_Alignas(64) volatile uint64_t limit;
volatile uint64_t hits_a, hits_b, hits_c, hits_d;

_Alignas(64) volatile uint64_t limit_p;
_Alignas(64) volatile uint64_t hits_pa;
_Alignas(64) volatile uint64_t hits_pb;
_Alignas(64) volatile uint64_t hits_pc;
_Alignas(64) volatile uint64_t hits_pd;

static volatile uint64_t *const slot[2][MAX_THREADS] = {
	{ &hits_a, &hits_b, &hits_c, &hits_d },
	{ &hits_pa, &hits_pb, &hits_pc, &hits_pd },
};
static volatile uint64_t *const lim[2] = { &limit, &limit_p };
static int padded;

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t iters;
};

static struct worker workers[MAX_THREADS];

static void run(struct comm_worker *c)
{
	volatile uint64_t *h = slot[padded][c->k];
	uint64_t step = *lim[padded] / 1000, iters = 0;
	struct comm_clock clk = comm_start(c->k);

	do {
		for (int i = 0; i < BATCH; i++)
			*h += step;
		iters += BATCH;
	} while (!comm_time_up(&clk));
	((struct worker *)c)->iters = iters;
}

static void option(int c, const char *arg)
{
	if (c == 'n')
		nthreads = inum(arg, 2, MAX_THREADS);
	else if (c == 'p')
		padded = 1;
}

int main(int argc, char **argv)
{
	uintptr_t line = (uintptr_t)lim[0] & ~(uintptr_t)63;
	uint64_t iters = 0, sum = 0;
	int bad = 0;

	nthreads = 2;
	limit = limit_p = 1000;
	comm_options(argc, argv, "n:p" COMM_OPTS, NULL, option);
	for (int k = 0; k < MAX_THREADS; k++) {
		bad |= ((uintptr_t)slot[0][k] & ~(uintptr_t)63) != line;
		for (int j = 0; j < k; j++)
			bad |= ((uintptr_t)slot[1][k] >> 6) == ((uintptr_t)slot[1][j] >> 6);
	}
	if (bad) {
		fprintf(stderr, COMM_NAME ": the linker did not lay the variables out as designed\n");
		return 1;
	}
	comm_run(workers, sizeof(*workers), run, run);
	for (int k = 0; k < nthreads; k++) {
		iters += workers[k].iters;
		sum += *slot[padded][k];
		bad |= workers[k].iters == 0;
	}
	printf("comm_globals: threads=%d padded=%d seconds=%.3f iters=%llu rate=%.4g/s line=%#lx "
	       "(sum %llx)\n", nthreads, padded, seconds, (unsigned long long)iters,
	       (double)iters / seconds, (unsigned long)line, (unsigned long long)(sum & 0xfff));
	return comm_finish(bad, "a thread did no work");
}
