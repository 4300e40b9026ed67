/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_p2p: ComDetective's Point-to-point microbenchmark (SC'19, 4.1.4).
 *
 * P pairs, 2P threads: pair j is workers 2j and 2j+1.  Each thread runs
 * a loop of single 8-byte stores for SECONDS of wall time.  By a private
 * coin, with probability S_j a store goes to its pair's variable
 * `pair_words[j]` (one cache line per pair), else to the thread's own
 * padded slot in `priv_slots`.  The loop holds no other memory access.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - only cells (2j, 2j+1) of the matrix: with 2 pairs, (0,1) and (2,3),
 *     nothing between pairs and nothing on the diagonal;
 *   - all true sharing;
 *   - the cell of a pair grows with its S_j below about 0.5: with
 *     -s 0.3,0.03 a pair's loop loses 3x..5x more time to stalls in pair 0
 *     than in pair 1, so cell (0,1) is well above cell (2,3).  Above 0.5
 *     the hardware moves the line less again (see comm_volume).
 *
 * Usage: comm_p2p [-p PAIRS] [-s FRACTION[,FRACTION...]] [-t SECONDS]
 *                 [-y USEC] [-m MSEC] [-T FILE]
 *   -p PAIRS     1..32 pairs, default 2 (4 threads)
 *   -s LIST      sharing fraction 0..1 per pair, comma-separated; one
 *                value applies to every pair; default 1
 * and the options of every comm workload, see comm_common.h.
 *
 * Worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a thread did no work, or a pair's shared fraction
 * of stores is off by more than 0.02 from S_j), 2 on bad usage.
 */
#define MAX_PAIRS 32
#define MAX_THREADS (2 * MAX_PAIRS)
#define BATCH 1024 /* iterations between clock reads */
#define COMM_NAME "comm_p2p"
#define COMM_USAGE "[-p PAIRS 1.." COMM_STR(MAX_PAIRS) "] [-s FRACTION[,FRACTION...]]"
#include "comm_common.h"

static struct comm_line pair_words[MAX_PAIRS];
static struct comm_line priv_slots[MAX_THREADS];

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t iters, shared;
};

static struct worker workers[MAX_THREADS];
static int npairs = 2, nfracs = 1;
static double fracs[MAX_PAIRS] = { 1.0 };

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(c->k + 1);
	const uint64_t thr = (uint64_t)(fracs[c->k / 2] * 4294967296.0); /* 2^32: always */
	_Atomic uint64_t *pair = &pair_words[c->k / 2].v, *mine = &priv_slots[c->k].v;
	uint64_t iters = 0, shared = 0;
	struct comm_clock clk = comm_start(c->k);

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
	w->iters = iters;
	w->shared = shared;
}

/* "0.5" for every pair, or one value per pair: "1,0.25". */
static int parse_fracs(const char *arg)
{
	char buf[1024];
	int n = 0;

	if (strlen(arg) >= sizeof(buf))
		usage();
	strcpy(buf, arg);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_PAIRS)
			usage();
		fracs[n++] = num(tok, 0, 1);
	}
	if (n == 0)
		usage();
	return n;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'p': npairs = inum(arg, 1, MAX_PAIRS); break;
	case 's': nfracs = parse_fracs(arg); break;
	}
}

int main(int argc, char **argv)
{
	comm_options(argc, argv, "p:s:" COMM_OPTS, NULL, option);
	/* One value for all pairs, or exactly one per pair. */
	if (nfracs == 1)
		for (int j = 1; j < npairs; j++)
			fracs[j] = fracs[0];
	else if (nfracs != npairs)
		usage();

	nthreads = 2 * npairs;
	comm_run(workers, sizeof(*workers), run, run);

	int bad = 0;
	printf("comm_p2p: pairs=%d seconds=%.3f", npairs, seconds);
	for (int j = 0; j < npairs; j++) {
		const struct worker *a = &workers[2 * j], *b = &workers[2 * j + 1];
		uint64_t it = a->iters + b->iters, sh = a->shared + b->shared;
		double got = it ? (double)sh / (double)it : 0;

		printf(" pair%d=(%d,%d):sharing=%.3f,got=%.4f,iters=%llu", j, 2 * j, 2 * j + 1, fracs[j], got,
		       (unsigned long long)it);
		bad |= a->iters == 0 || b->iters == 0 || comm_off(got, fracs[j]);
	}
	printf("\n");
	return comm_finish(bad, "idle thread or a pair's shared fraction");
}
