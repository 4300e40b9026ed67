/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_volume: ComDetective's Write-Volume microbenchmark (SC'19, 4.1.1).
 *
 * N threads each run a loop of single 8-byte stores for SECONDS of wall
 * time.  Each store goes, by a private coin with probability S, to the one
 * shared variable `shared_word`, else to the thread's own padded slot in
 * `priv_slots` (a cache line of its own).  Nothing else in the loop
 * touches memory (the RNG state and counters stay in registers), so a
 * sampled "next memory access" is a shared store with probability S.
 *
 * Ground truth (cdt thread indices = worker numbers, see below):
 *   - every pair of threads communicates, all pairs alike (uniform
 *     off-diagonal matrix, nothing on the diagonal);
 *   - all of it true sharing: the shared accesses are all to the same
 *     8 bytes; private slots share no line with anything (fs ~ 0);
 *   - none at S = 0; more with S at small S.  Not all the way: the
 *     hardware moves the line most near S = 0.5 and less again towards
 *     S = 1, where a core keeps it for runs of its own stores (4 threads
 *     on the 2-core development machine: the loop loses about 10x more
 *     time to stalls at S = 0.5 than at S = 0.01, about 3x less at 0.9
 *     than at 0.5, and runs at S = 0.99 as fast as at S = 0), as the
 *     paper's RFO counts also curve (4.1.1).  Sampled detection cannot see
 *     that locality, so compare small S only.
 *
 * Usage: comm_volume [-n THREADS] [-s FRACTION] [-t SECONDS] [-y USEC]
 *                    [-m MSEC] [-T FILE]
 *   -n THREADS   1..64 threads, default 4
 *   -s FRACTION  sharing fraction 0..1, default 0.5
 * and the options of every comm workload, see comm_common.h.
 *
 * Worker k is cdt thread index k.  Prints one summary line, which ends
 * with each worker's shared stores and the loop's CPU time
 * (shared_by_worker=a,b,... cpu_ms_by_worker=...): the pattern is
 * uniform only while the threads do alike; exit 0, 1 if
 * the self-check fails (a thread did no work, or the shared fraction of
 * stores is off by more than 0.02 from S), 2 on bad usage.
 */
#define MAX_THREADS 64
#define BATCH 1024 /* iterations between clock reads */
#define COMM_NAME "comm_volume"
#define COMM_USAGE "[-n THREADS 1.." COMM_STR(MAX_THREADS) "] [-s FRACTION 0..1]"
#include "comm_common.h"

/* The shared variable alone on its line: no false sharing by design. */
static struct comm_line shared_word;
static struct comm_line priv_slots[MAX_THREADS];

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t iters, shared;
	double cpu; /* the loop's thread CPU time, s */
};

static struct worker workers[MAX_THREADS];
static double frac = 0.5;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(c->k + 1);
	/* Compare the top 32 bits against S * 2^32; 2^32 itself means always. */
	const uint64_t thr = (uint64_t)(frac * 4294967296.0);
	_Atomic uint64_t *mine = &priv_slots[c->k].v;
	uint64_t iters = 0, shared = 0;
	struct comm_clock clk = comm_start(c->k);
	double cpu0 = thread_cpu();

	do {
		for (int i = 0; i < BATCH; i++) {
			uint64_t r = rnd(&x);

			if ((r >> 32) < thr) {
				atomic_store_explicit(&shared_word.v, r, memory_order_relaxed);
				shared++;
			} else {
				atomic_store_explicit(mine, r, memory_order_relaxed);
			}
		}
		iters += BATCH;
	} while (!comm_time_up(&clk));
	w->cpu = thread_cpu() - cpu0;
	w->iters = iters;
	w->shared = shared;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 1, MAX_THREADS); break;
	case 's': frac = num(arg, 0, 1); break;
	}
}

int main(int argc, char **argv)
{
	comm_options(argc, argv, "n:s:" COMM_OPTS, NULL, option);
	comm_run(workers, sizeof(*workers), run, run);

	uint64_t iters = 0, shared = 0;
	int idle = 0;
	for (int k = 0; k < nthreads; k++) {
		iters += workers[k].iters;
		shared += workers[k].shared;
		idle |= workers[k].iters == 0;
	}
	double got = iters ? (double)shared / (double)iters : 0;
	printf("comm_volume: threads=%d sharing=%.3f seconds=%.3f iters=%llu shared_fraction=%.4f shared_by_worker=",
	       nthreads, frac, seconds, (unsigned long long)iters, got);
	for (int k = 0; k < nthreads; k++)
		printf("%s%llu", k ? "," : "", (unsigned long long)workers[k].shared);
	printf(" cpu_ms_by_worker=");
	for (int k = 0; k < nthreads; k++)
		printf("%s%.1f", k ? "," : "", workers[k].cpu * 1e3);
	printf("\n");
	return comm_finish(idle || comm_off(got, frac), "idle thread or shared fraction %.4f vs %.4f", got,
			   frac);
}
