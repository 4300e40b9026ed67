/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_atomicptr: threads that each atomically add to their own counter,
 * the counters side by side in one heap block reached through a pointer
 * the loop reloads (a captured reference's shape).  The loop is the
 * pointer loads, the `lock add`, then the branch back: the contended
 * instruction, where the time goes, lies just before the loop's head, so
 * a timer sample lands past the back-edge, on the next iteration's loads.
 *
 * Ground truth: unpadded, every pair of workers communicates by false
 * sharing on the counters' line, in the heap object of counters_new; with
 * --padded each counter has its own line and nothing is shared.
 *
 * Usage: comm_atomicptr [-n THREADS] [-p|--padded]
 *                       [-t SECONDS] [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   2..8, default 4
 *   -p, --padded one line per counter
 * and the options of every comm workload (comm_common.h).  Prints one
 * summary line; exit 0, 1 if a counter differs from its worker's adds, 2
 * on bad usage.
 */
#define MAX_THREADS 8
#define PAD_WORDS 8
#define BATCH 1024
#define COMM_NAME "comm_atomicptr"
#define COMM_USAGE "[-n THREADS 2.." COMM_STR(MAX_THREADS) "] [-p|--padded]"
#include "comm_common.h"

struct shared {
	_Atomic uint64_t *counters;
	int stride; /* words from one worker's counter to the next */
};

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t adds;
};

static struct worker workers[MAX_THREADS];
static struct shared *sh;
static int padded;

/* Not inlined: the heap object is named after this frame. */
__attribute__((noinline)) static _Atomic uint64_t *counters_new(size_t n)
{
	_Atomic uint64_t *p = aligned_alloc(64, n * sizeof(*p));

	if (!p) {
		perror("comm_atomicptr: aligned_alloc");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		atomic_init(&p[i], 0);
	return p;
}

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	uint64_t adds = 0;
	struct comm_clock clk = comm_start(c->k);

	do {
		for (int i = 0; i < BATCH; i++)
			atomic_fetch_add_explicit(&sh->counters[c->k * sh->stride], 1,
						  memory_order_relaxed);
		adds += BATCH;
	} while (!comm_time_up(&clk));
	w->adds = adds;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 2, MAX_THREADS); break;
	case 'p': padded = 1; break;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "padded", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct shared s;
	uint64_t adds = 0;
	int bad = 0;

	comm_options(argc, argv, "n:p" COMM_OPTS, longopts, option);
	s.stride = padded ? PAD_WORDS : 1;
	s.counters = counters_new((size_t)MAX_THREADS * PAD_WORDS);
	sh = &s;
	comm_run(workers, sizeof(*workers), run, run);
	for (int k = 0; k < nthreads; k++) {
		adds += workers[k].adds;
		bad |= workers[k].adds == 0 || atomic_load(&s.counters[k * s.stride]) != workers[k].adds;
	}
	printf("comm_atomicptr: threads=%d padded=%d seconds=%.3f adds=%llu rate=%.4g/s counters=%#jx\n",
	       nthreads, padded, seconds, (unsigned long long)adds, (double)adds / seconds,
	       (uintmax_t)(uintptr_t)s.counters);
	return comm_finish(bad, "a counter or an idle worker");
}
