// SPDX-License-Identifier: GPL-2.0-only
/*
 * membound_rows: a grid made row by row, for cdt membound's footprint.
 *
 *   membound_rows [-r ROWS] [-b ROW_BYTES] [-d SECONDS] [-T TRUTH]
 *
 * Allocates ROWS rows (default 4096) of ROW_BYTES each (default 64 KiB,
 * below glibc's mmap threshold, so they come from the heap one after
 * another), writes every row once, then sweeps them all in order, reading
 * 16 bytes at a time, for -d seconds (default 2).  -T writes the truth:
 * "phase sweep START_NS END_NS" (CLOCK_MONOTONIC, as cdt's sample times),
 * "bytes B" (the grid: ROWS x ROW_BYTES) and "rate sweep GB/s".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef double v4d __attribute__((vector_size(32)));

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One row's loads, 16 bytes at a time into eight sums so they are
 * independent: SSE2's own width (a 32-byte vector without AVX is two
 * halves that GCC keeps on the stack, and the spills, not the memory,
 * set the pace). */
typedef double v2d __attribute__((vector_size(16)));

static __attribute__((noipa)) double row_read(const v4d *row, size_t n)
{
	const v2d *p = (const v2d *)row;
	v2d a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 }, f = { 0 }, g = { 0 }, h = { 0 };

	n *= 2;
	for (size_t i = 0; i + 8 <= n; i += 8) {
		a += p[i];
		b += p[i + 1];
		c += p[i + 2];
		d += p[i + 3];
		e += p[i + 4];
		f += p[i + 5];
		g += p[i + 6];
		h += p[i + 7];
	}
	a += b + c + d + e + f + g + h;
	return a[0] + a[1];
}

int main(int argc, char **argv)
{
	size_t rows = 4096, bytes = 64 << 10, n;
	double secs = 2, sink = 0;
	const char *truth = NULL;
	uint64_t start, end, passes = 0;
	v4d **grid;
	FILE *f;
	int c;

	while ((c = getopt(argc, argv, "r:b:d:T:")) != -1) {
		switch (c) {
		case 'r': rows = strtoull(optarg, NULL, 0); break;
		case 'b': bytes = strtoull(optarg, NULL, 0); break;
		case 'd': secs = atof(optarg); break;
		case 'T': truth = optarg; break;
		default:
			fprintf(stderr, "usage: membound_rows [-r ROWS] [-b ROW_BYTES] "
				"[-d SECONDS] [-T TRUTH]\n");
			return 2;
		}
	}
	n = bytes / sizeof(v4d);
	if (!rows || rows > (1u << 24) || n < 4 || secs <= 0) {
		fprintf(stderr, "membound_rows: bad -r, -b or -d\n");
		return 2;
	}
	if (!(grid = malloc(rows * sizeof(*grid))))
		return 1;
	for (size_t r = 0; r < rows; r++) {
		if (!(grid[r] = malloc(n * sizeof(v4d)))) {
			perror("membound_rows: malloc");
			return 1;
		}
		for (size_t i = 0; i < n; i++)
			grid[r][i] = (v4d){ 1e-9, (double)r, (double)i, 0 };
	}
	start = now_ns();
	end = start + (uint64_t)(secs * 1e9);
	while (now_ns() < end) {
		for (size_t r = 0; r < rows; r++)
			sink += row_read(grid[r], n);
		passes++;
	}
	end = now_ns();
	if (truth) {
		if (!(f = fopen(truth, "w")))
			return 1;
		fprintf(f, "phase sweep %llu %llu\n", (unsigned long long)start,
			(unsigned long long)end);
		fprintf(f, "bytes %llu\n", (unsigned long long)(rows * n * sizeof(v4d)));
		fprintf(f, "rate sweep %.3f GB/s\n",
			(double)passes * (double)(rows * n * sizeof(v4d)) / (double)(end - start));
		fclose(f);
	}
	for (size_t r = 0; r < rows; r++)
		free(grid[r]);
	free(grid);
	return sink == 42.0;
}
