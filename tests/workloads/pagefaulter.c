/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pagefaulter: a program that faults in much memory, for the cost of
 * watching every page fault (cdt numa's first touch, tests/bench).
 *
 * Each of T threads, R times, allocates MB/T megabytes (a fresh mapping:
 * glibc serves blocks this large with mmap and returns them with munmap),
 * fills it (as a program initialises its data), sums a word of each page
 * and frees the block: MB x R megabytes of first touches, a fixed amount
 * of work.  With -1 it writes one byte per page instead: nothing but page
 * faults, the worst case for watching them.
 *
 * Usage: pagefaulter [-t THREADS] [-m MB] [-r ROUNDS] [-1]
 * Prints one line; exit 0, 1 if memory runs out, 2 on bad usage.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nthreads = 2, rounds = 2, one_byte;
static long mb = 1024;

static void *run(void *arg)
{
	size_t len = (size_t)mb * 1024 * 1024 / (size_t)nthreads;
	uint64_t sum = 0;

	(void)arg;
	for (int r = 0; r < rounds; r++) {
		volatile unsigned char *p = malloc(len);

		if (!p)
			return (void *)1;
		if (one_byte)
			for (size_t off = 0; off < len; off += 4096)
				p[off] = (unsigned char)(off >> 12);
		else
			memset((void *)p, r + 1, len);
		for (size_t off = 0; off < len; off += 4096)
			sum += p[off];
		free((void *)p);
	}
	return (void *)(uintptr_t)(sum == 0xffffffffffffffffull);
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			mb = atol(argv[++i]);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-1"))
			one_byte = 1;
		else
			goto usage;
	}
	if (nthreads < 1 || nthreads > 64 || mb < 1 || rounds < 1)
		goto usage;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, run, NULL))
			return 1;
	for (int i = 0; i < nthreads; i++) {
		void *r;

		pthread_join(th[i], &r);
		bad |= r != NULL;
	}
	printf("pagefaulter: threads=%d mb=%ld rounds=%d pages=%ld\n", nthreads, mb, rounds,
	       mb * 256L * rounds);
	return bad;
usage:
	fprintf(stderr, "usage: pagefaulter [-t THREADS] [-m MB] [-r ROUNDS] [-1]\n");
	return 2;
}
