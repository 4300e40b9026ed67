// SPDX-License-Identifier: GPL-2.0-only
/*
 * histo: a parallel byte histogram whose per-thread blocks (a header the
 * thread reads at every byte, then 256 counters) lie back to back in one
 * allocation, as a program that mallocs its threads' arguments together.
 * Block k's top counters share a line with block k+1's header; input
 * bytes are rarely that high (1 in 128), so thread k writes the line now
 * and then and thread k+1 misses on its header after each write.
 *
 *   histo THREADS MBYTES [pad]   MBYTES MiB of bytes counted, split
 *                                evenly among the threads, each going
 *                                over the same 1 MiB of generated input
 *
 * "pad" starts each block on a line of its own: the plain runs' times of
 * the two are the truth of what the sharing costs.  On this project's KVM
 * guest that truth moves with the host: the same pair took 0.64 and 0.53 s
 * (medians of 5) one hour and 0.42 and 0.41 s the next, as if the guest's
 * two CPUs were then siblings of one core, sharing its caches.  Prints the
 * counts' checksum.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>
#include "real.h"

#define NBINS 256
#define HOT 12 /* top counters on the line of the next block's header */
#define RARE 128
#define INPUT (1u << 20) /* a power of 2 */

/* 48 + 4 * 256 = 1072 bytes: block k+1 starts 48 bytes into a line. */
struct block {
	const uint8_t *volatile data; /* INPUT bytes */
	volatile uint64_t len;        /* bytes to count */
	uint64_t reserved[4];
	uint32_t count[NBINS];
};
_Static_assert(sizeof(struct block) == 1072, "the layout the design needs");

static char *blocks;
static size_t stride;

static struct block *block_of(long k)
{
	return (struct block *)(blocks + (size_t)k * stride);
}

static void *work(void *p)
{
	struct block *b = block_of((long)p);

	for (uint64_t i = 0; i < b->len; i++)
		b->count[b->data[i & (INPUT - 1)]]++;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *use = "histo THREADS MBYTES [pad]";
	static pthread_t th[MAX_THREADS];
	uint64_t x = 0x9e3779b97f4a7c15ull, sum = 0;
	uint64_t bytes, each;
	uint8_t *in;
	long t;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "pad")))
		usage(use);
	t = arg_count(argv[1], MAX_THREADS, use);
	bytes = (uint64_t)arg_count(argv[2], 1 << 16, use) << 20;
	each = bytes / (uint64_t)t;
	stride = argc == 4 ? (sizeof(struct block) + 63) / 64 * 64 : sizeof(struct block);
	blocks = aligned_alloc(64, stride * (size_t)t);
	in = xmalloc(INPUT);
	if (!blocks) {
		perror("aligned_alloc");
		return 1;
	}
	memset(blocks, 0, stride * (size_t)t);
	for (size_t i = 0; i < INPUT; i++) {
		uint64_t r = rnd(&x);

		in[i] = r % RARE == 0 ? (uint8_t)(NBINS - 1 - (r >> 32) % HOT)
				      : (uint8_t)((r >> 32) % (NBINS - HOT));
	}
	for (long k = 0; k < t; k++) {
		block_of(k)->data = in;
		block_of(k)->len = each;
	}
	for (long k = 0; k < t; k++)
		if (pthread_create(&th[k], NULL, work, (void *)k)) {
			fprintf(stderr, "histo: cannot create a thread\n");
			return 1;
		}
	for (long k = 0; k < t; k++)
		pthread_join(th[k], NULL);
	for (long k = 0; k < t; k++)
		for (int v = 0; v < NBINS; v++)
			sum = sum * 31 + block_of(k)->count[v];
	printf("histo: %ld threads, checksum %016llx\n", t, (unsigned long long)sum);
	return 0;
}
