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
 * and the options of every comm workload, see comm_common.h.
 *
 * Worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a value not from the predecessor, a count that
 * went backwards, or a consumer that never saw a new value), 2 on bad
 * usage.
 */
#define MAX_THREADS 64
#define SLOTS 8   /* words (lines) per channel */
#define BATCH 128 /* passes over the slots between clock reads */
/* A slot holds the writer's index in the top byte and a count below. */
#define TAG_SHIFT 56
#define COUNT_MASK ((1ull << TAG_SHIFT) - 1)
#define COMM_NAME "comm_ring"
#define COMM_USAGE "[-n THREADS 2.." COMM_STR(MAX_THREADS) "] [-c|--chain]"
#include "comm_common.h"

struct channel {
	struct comm_line slot[SLOTS];
};

static struct channel channels[MAX_THREADS];

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t passes, fresh, bad;
};

static struct worker workers[MAX_THREADS];
static int chain;

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	const int n = nthreads, k = c->k;
	/* The source of a chain has no input channel, its sink no output. */
	_Atomic uint64_t *in = chain && k == 0 ? NULL : &channels[(k + n - 1) % n].slot[0].v;
	_Atomic uint64_t *out = chain && k == n - 1 ? NULL : &channels[k].slot[0].v;
	const uint64_t pred = (uint64_t)((k + n - 1) % n), mytag = (uint64_t)k << TAG_SHIFT;
	uint64_t last = 0, passes = 0, fresh = 0, bad = 0, seq = 0;

	/* The producer starts its channel at count 0, under its own tag. */
	if (out)
		for (int i = 0; i < SLOTS; i++)
			atomic_store_explicit(&out[i * COMM_STEP], mytag, memory_order_relaxed);
	struct comm_clock clk = comm_start(k);

	do {
		for (int b = 0; b < BATCH; b++) {
			seq++;
			for (int i = 0; i < SLOTS; i++) {
				uint64_t c = 0;

				if (in) {
					uint64_t v = atomic_load_explicit(&in[i * COMM_STEP], memory_order_relaxed);

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
					atomic_store_explicit(&out[i * COMM_STEP], mytag | ((c + seq) & COUNT_MASK),
							      memory_order_relaxed);
			}
		}
		passes += BATCH;
	} while (!comm_time_up(&clk));
	w->passes = passes;
	w->fresh = in ? fresh : 1;
	w->bad = bad;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 2, MAX_THREADS); break;
	case 'c': chain = 1; break;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "chain", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	comm_options(argc, argv, "n:c" COMM_OPTS, longopts, option);
	comm_run(workers, sizeof(*workers), run, run);

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
	return comm_finish(bad, "foreign or backward values, or no data arrived");
}
