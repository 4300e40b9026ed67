/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_master: master and workers.  Worker 0 (the master) hands out tasks
 * to workers 1..N-1 and collects their results; the workers never touch
 * each other's data.
 *
 * Worker k has a task area `tasks[k]` and a result area `results[k]`,
 * SLOTS 8-byte words each, every word alone on its cache line.  The
 * master loops over the workers: it stores a new task number into each
 * task word of worker k and loads each of worker k's result words.
 * Worker k loops over its words: it loads the task number and stores it
 * back as its result, after WORK stores of its own into a private padded
 * scratch line.  Each area holds the latest value, not a queue: nobody
 * waits.  That is on purpose: on 2 cores a waiting thread spends its
 * samples polling (loads only) or in the kernel, and ComDetective-style
 * detection needs the stores to shared lines in the samples.  Every
 * thread runs for SECONDS of wall time.  The master checks that a result
 * never names a task it has not given, and at the end that every worker
 * has answered.
 *
 * Ground truth (cdt thread index k = worker k, see below):
 *   - cells (0, k) for k = 1..N-1 only, all alike (the workers are
 *     symmetric; the master spreads its accesses evenly over them): an L
 *     shape (row and column 0) in the matrix, nothing between workers,
 *     nothing on the diagonal;
 *   - all true sharing: both sides touch the same 8 bytes, and each word
 *     is alone on its line.
 *
 * Usage: comm_master [-n THREADS] [-w WORK] [-t SECONDS]
 *                    [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   2..64 threads (master + N-1 workers), default 4
 *   -w WORK      private stores per task word in a worker, 0..10000,
 *                default 0
 * and the options of every comm workload, see comm_common.h.
 *
 * Worker k is cdt thread index k.  Prints one summary line; exit 0, 1 if
 * the self-check fails (a result for a task not given, a foreign value,
 * or a worker that never answered or never saw a task), 2 on bad usage.
 */
#define MAX_THREADS 64
#define SLOTS 8   /* words (lines) per area */
#define BATCH 128 /* passes between clock reads */
/* A word holds the writer's index in the top byte and a task number below. */
#define TAG_SHIFT 56
#define NUM_MASK ((1ull << TAG_SHIFT) - 1)
#define COMM_NAME "comm_master"
#define COMM_USAGE "[-n THREADS 2.." COMM_STR(MAX_THREADS) "] [-w WORK]"
#include "comm_common.h"

struct area {
	struct comm_line w[SLOTS];
};

static struct area tasks[MAX_THREADS], results[MAX_THREADS];
static struct comm_line scratch[MAX_THREADS];

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t passes, fresh, bad;
};

static struct worker workers[MAX_THREADS];
static int work = 0;

static void master(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	const int n = nthreads;
	uint64_t task = 0, passes = 0, bad = 0;
	struct comm_clock clk = comm_start(c->k);

	do {
		for (int b = 0; b < BATCH; b++) {
			task++;
			for (int k = 1; k < n; k++) {
				_Atomic uint64_t *t = &tasks[k].w[0].v, *r = &results[k].w[0].v;
				const uint64_t ktag = (uint64_t)k << TAG_SHIFT;

				for (int i = 0; i < SLOTS; i++) {
					atomic_store_explicit(&t[i * COMM_STEP], task, memory_order_relaxed);
					uint64_t v = atomic_load_explicit(&r[i * COMM_STEP], memory_order_relaxed);

					/* Worker k's tag and a task already given, in
					 * one compare (fewer registers: no spills). */
					bad += v - ktag > task;
				}
			}
		}
		passes += BATCH;
	} while (!comm_time_up(&clk));
	w->passes = passes;
	w->bad = bad;
}

static void worker(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	const uint64_t mytag = (uint64_t)c->k << TAG_SHIFT;
	_Atomic uint64_t *t = &tasks[c->k].w[0].v, *r = &results[c->k].w[0].v;
	_Atomic uint64_t *mine = &scratch[c->k].v;
	const int nwork = work; /* a local: no load in the loop */
	uint64_t passes = 0, fresh = 0, bad = 0;

	/* Result 0 means "none yet", under the worker's own tag. */
	for (int i = 0; i < SLOTS; i++)
		atomic_store_explicit(&r[i * COMM_STEP], mytag, memory_order_relaxed);
	struct comm_clock clk = comm_start(c->k);

	do {
		for (int b = 0; b < BATCH; b++) {
			for (int i = 0; i < SLOTS; i++) {
				uint64_t v = atomic_load_explicit(&t[i * COMM_STEP], memory_order_relaxed);

				bad += (v >> TAG_SHIFT) != 0; /* the master's tag is 0 */
				fresh += v != 0;
				for (int j = 0; j < nwork; j++)
					atomic_store_explicit(mine, v + (uint64_t)j, memory_order_relaxed);
				atomic_store_explicit(&r[i * COMM_STEP], mytag | (v & NUM_MASK), memory_order_relaxed);
			}
		}
		passes += BATCH;
	} while (!comm_time_up(&clk));
	w->passes = passes;
	w->fresh = fresh;
	w->bad = bad;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 2, MAX_THREADS); break;
	case 'w': work = inum(arg, 0, 10000); break;
	}
}

int main(int argc, char **argv)
{
	comm_options(argc, argv, "n:w:" COMM_OPTS, NULL, option);
	comm_run(workers, sizeof(*workers), master, worker);

	/* Every worker has answered some task (result 0 means none yet). */
	uint64_t passes = 0, minans = UINT64_MAX;
	int bad = workers[0].bad != 0;
	for (int k = 1; k < nthreads; k++) {
		for (int i = 0; i < SLOTS; i++) {
			uint64_t v = atomic_load(&results[k].w[i].v) & NUM_MASK;
			minans = v < minans ? v : minans;
		}
		passes += workers[k].passes;
		bad |= workers[k].bad != 0 || workers[k].fresh == 0;
	}
	bad |= minans == 0;
	printf("comm_master: threads=%d work=%d seconds=%.3f master_passes=%llu worker_passes=%llu "
	       "min_last_answer=%llu\n",
	       nthreads, work, seconds, (unsigned long long)workers[0].passes, (unsigned long long)passes,
	       (unsigned long long)minans);
	return comm_finish(bad, "a wrong or foreign value, or a silent worker");
}
