/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_padding: per-thread counters, with and without padding: the
 * textbook false sharing and its fix.
 *
 * N threads (at most 8) each increment their own counter in the static
 * array `counters` for SECONDS of wall time (a volatile ++: one 8-byte
 * load and one 8-byte store per increment; the loop holds no other memory
 * access).  Unpadded, worker k's counter is counters[k]: all N counters
 * share the first cache line of `counters` (it is 64-byte aligned).
 * With --padded, worker k's counter is counters[8 k]: one line each.  The
 * object is the same in both modes, so a profile can be compared by name.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - unpadded: every pair communicates, all pairs alike; all of it false
 *     sharing (no thread touches another's bytes), all of it on
 *     `counters`, on the single line at &counters[0];
 *   - padded: no communication at all (ts = fs = 0 on `counters`).
 * With --heap the counters are one heap block from counters_new() instead
 * of the static array, same layout: the same truth holds for the heap
 * object (named after its allocation site, counters_new).
 *
 * Usage: comm_padding [-n THREADS] [-p|--padded] [-t SECONDS]
 *                     [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   1..8 threads, default 4
 *   -p, --padded one cache line per counter
 *   -H, --heap   counters in a heap block (aligned_alloc) from counters_new()
 * and the options of every comm workload, see comm_common.h.
 *
 * Worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a counter differs from its thread's increments,
 * or a thread did no work), 2 on bad usage.
 */
#define MAX_THREADS 8 /* unpadded, all counters fit in one line */
#define PAD_WORDS 8   /* words per 64-byte line */
#define BATCH 1024    /* iterations between clock reads */
#define COMM_NAME "comm_padding"
#define COMM_USAGE "[-n THREADS 1.." COMM_STR(MAX_THREADS) "] [-p|--padded] [-H|--heap]"
#include "comm_common.h"

/* Plain, not atomic: each counter has one writer, as in the textbook
 * case; volatile keeps one load and one store per increment. */
static _Alignas(64) volatile uint64_t counters[MAX_THREADS * PAD_WORDS];
static volatile uint64_t *cnt = counters; /* the counters in use */

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t iters;
};

static struct worker workers[MAX_THREADS];
static int padded, heap;

/* Not inlined: the heap object is named after this frame. */
__attribute__((noinline)) static volatile uint64_t *counters_new(void)
{
	volatile uint64_t *p = aligned_alloc(64, sizeof(counters));

	if (!p) {
		perror("comm_padding: aligned_alloc");
		exit(1);
	}
	memset((void *)p, 0, sizeof(counters));
	return p;
}

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	volatile uint64_t *mine = &cnt[c->k * (padded ? PAD_WORDS : 1)];
	uint64_t iters = 0;
	struct comm_clock clk = comm_start(c->k);

	do {
		for (int i = 0; i < BATCH; i++)
			(*mine)++;
		iters += BATCH;
	} while (!comm_time_up(&clk));
	w->iters = iters;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 1, MAX_THREADS); break;
	case 'p': padded = 1; break;
	case 'H': heap = 1; break;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "padded", no_argument, NULL, 'p' },
		{ "heap", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	comm_options(argc, argv, "n:pH" COMM_OPTS, longopts, option);
	if (heap)
		cnt = counters_new();
	comm_run(workers, sizeof(*workers), run, run);

	uint64_t iters = 0;
	int bad = 0;
	for (int k = 0; k < nthreads; k++) {
		iters += workers[k].iters;
		bad |= workers[k].iters == 0 || cnt[k * (padded ? PAD_WORDS : 1)] != workers[k].iters;
	}
	printf("comm_padding: threads=%d padded=%d heap=%d seconds=%.3f increments=%llu counters=%#jx\n",
	       nthreads, padded, heap, seconds, (unsigned long long)iters, (uintmax_t)(uintptr_t)cnt);
	return comm_finish(bad, "a counter or an idle thread");
}
