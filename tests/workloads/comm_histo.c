/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm_histo: the shape of a parallel histogram whose per-thread blocks
 * lie back to back.  Each worker owns a block: a header it reads at every
 * step (where its input is, how long it is) and 256 counters it
 * increments, one per input byte.  The blocks are one heap allocation
 * (blocks_new), with no padding between them, so the last counters of
 * block k share a cache line with the header of block k+1.
 *
 * Input bytes are rarely high: 1 in RARE is drawn from the top values,
 * whose counters share that line (HOT of them); the rest fall below.  So
 * worker k writes the shared line now and then, and worker k+1 reads its
 * header there at every step: each of k's writes costs k+1 a miss.  With
 * --padded each block starts on a line of its own and nothing is shared.
 *
 * Ground truth:
 *   - unpadded: false sharing from worker k (the writer) to worker k+1
 *     (the reader) on the line holding block k+1's header, in the heap
 *     object of blocks_new; no true sharing (no worker touches another's
 *     bytes);
 *   - padded: no communication at all.
 * The cost is the truth a profiler is judged by: the workload prints its
 * steps per second; on Cascade Lake under KVM (2 cores, 2 workers)
 * unpadded runs about half as fast as padded (0.45-0.55).
 *
 * Usage: comm_histo [-n THREADS] [-p|--padded] [-r RARE]
 *                   [-t SECONDS] [-y USEC] [-m MSEC] [-T FILE]
 *   -n THREADS   2..8 workers, default 2
 *   -p, --padded each block on its own lines
 *   -r RARE      1 input byte in RARE is a high one (default 32, 1..65536)
 * and the options of every comm workload (comm_common.h); -m defaults to
 * 0 here (no moving): the reader must run beside the writer, as a real
 * histogram's threads do on an idle machine.
 *
 * Prints one summary line with the address of each block's header; exit
 * 0, 1 if the self-check fails (counts differ from the steps taken, or a
 * worker did no work), 2 on bad usage.
 */
#define MAX_THREADS 8
#define BATCH 4096   /* steps between clock reads */
#define INPUT 16384  /* input bytes per worker, a power of 2 */
#define NBINS 256
#define HOT 12       /* top counters on the line of the next header */
#define COMM_NAME "comm_histo"
#define COMM_USAGE "[-n THREADS 2.." COMM_STR(MAX_THREADS) "] [-p|--padded] [-r RARE]"
#include "comm_common.h"

/*
 * 48 + 4 * 256 = 1072 bytes: block k+1 starts 48 bytes into a line, after
 * block k's last 12 counters; its header fills the rest of the line.
 * Volatile: the header is read at every step, as a real one reached
 * through a pointer the compiler cannot keep in a register.
 */
struct block {
	const uint8_t *volatile data;
	volatile uint64_t len;
	uint64_t steps;
	uint64_t reserved[3];
	uint32_t count[NBINS];
};
_Static_assert(sizeof(struct block) == 1072, "the layout the design needs");

#define STRIDE_PADDED ((sizeof(struct block) + 63) / 64 * 64)

struct worker {
	_Alignas(64) struct comm_worker c;
	uint64_t steps;
};

static struct worker workers[MAX_THREADS];
static int padded;
static unsigned rare = 32;
static char *blocks;
static size_t stride;

static struct block *block_of(int k)
{
	return (struct block *)(blocks + (size_t)k * stride);
}

/* Not inlined: the heap object is named after this frame. */
__attribute__((noinline)) static char *blocks_new(size_t bytes)
{
	char *p = aligned_alloc(64, bytes);

	if (!p) {
		perror("comm_histo: aligned_alloc");
		exit(1);
	}
	memset(p, 0, bytes);
	return p;
}

static uint8_t *input_new(int k)
{
	uint8_t *in = malloc(INPUT);
	uint64_t x = 0x2545f4914f6cdd1dull ^ (uint64_t)(k + 1);

	if (!in) {
		perror("comm_histo: malloc");
		exit(1);
	}
	for (size_t i = 0; i < INPUT; i++) {
		uint64_t r = rnd(&x);

		in[i] = r % rare == 0 ? (uint8_t)(NBINS - 1 - (r >> 32) % HOT)
				      : (uint8_t)((r >> 32) % (NBINS - HOT));
	}
	return in;
}

static void run(struct comm_worker *c)
{
	struct worker *w = (struct worker *)c;
	struct block *b = block_of(c->k);
	uint64_t steps = 0, pos = 0;
	struct comm_clock clk = comm_start(c->k);

	do {
		for (int i = 0; i < BATCH; i++) {
			b->count[b->data[pos]]++;
			pos = (pos + 1) & (b->len - 1);
		}
		steps += BATCH;
	} while (!comm_time_up(&clk));
	w->steps = steps;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'n': nthreads = inum(arg, 2, MAX_THREADS); break;
	case 'p': padded = 1; break;
	case 'r': rare = (unsigned)inum(arg, 1, 65536); break;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "padded", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t steps = 0;
	int bad = 0;

	nthreads = 2;
	move_ms = 0;
	comm_options(argc, argv, "n:pr:" COMM_OPTS, longopts, option);
	stride = padded ? STRIDE_PADDED : sizeof(struct block);
	blocks = blocks_new(stride * (size_t)nthreads);
	for (int k = 0; k < nthreads; k++) {
		block_of(k)->data = input_new(k);
		block_of(k)->len = INPUT;
	}
	comm_run(workers, sizeof(*workers), run, run);

	for (int k = 0; k < nthreads; k++) {
		uint64_t sum = 0;

		for (int v = 0; v < NBINS; v++)
			sum += block_of(k)->count[v];
		steps += workers[k].steps;
		bad |= workers[k].steps == 0 || sum != workers[k].steps;
	}
	printf("comm_histo: threads=%d padded=%d rare=%u seconds=%.3f steps=%llu rate=%.4g/s",
	       nthreads, padded, rare, seconds, (unsigned long long)steps, (double)steps / seconds);
	for (int k = 0; k < nthreads; k++)
		printf(" header%d=%#jx", k, (uintmax_t)(uintptr_t)block_of(k));
	printf("\n");
	return comm_finish(bad, "a count or an idle worker");
}
