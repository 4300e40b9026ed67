/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ground truth for data-object attribution: heap blocks from known call
 * sites with known sizes and lifetimes, an anonymous mapping and a second
 * thread (a stack of its own).
 *
 *   objects [SECONDS]   (default 0.3)
 *     make_small  64 blocks of 48 bytes (malloc), kept to the end
 *     make_table  4 blocks of 32 KiB (calloc), kept; the hot data
 *     grow        one block grown by realloc 16 -> 65536 bytes (12 reallocs)
 *     churn       10000 malloc(32) + free, each freed at once
 *     make_map    a 1 MiB anonymous mmap whose upper half is unmapped
 *     then the table is swept for about SECONDS of CPU time by the main
 *     thread and one worker, so samples land in it.
 *   objects --churn N   N malloc(32) + free pairs, then "churn: N pairs,
 *                       X ns/pair" on stdout (the cost of one pair)
 *   objects --keep N    N malloc(32) kept, then all freed: "keep: N blocks,
 *                       X ns/block" (blocks that live: each one recorded)
 *
 * If OBJECTS_TRUTH names a file, the first mode writes one line per site
 * to it: "site file:line blocks bytes", the line of the allocating call.
 * Exit status 0, or 2 on bad usage or a failed allocation.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define NSMALL 64
#define SMALL_SIZE 48
#define NTABLE 4
#define TABLE_WORDS 4096 /* 32 KiB of uint64_t */
#define GROW_FROM 16
#define GROW_TO 65536
#define NCHURN 10000
#define MAP_SIZE (1u << 20)

static void *small[NSMALL];
static uint64_t *table[NTABLE];
static char *grown;
static char *map;
static volatile uint64_t sink;
static void *volatile escape; /* so the compiler keeps churn's malloc/free */
static int small_line, table_line, grow_line, churn_line, map_line;
static double seconds = 0.3;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Each allocating call shares its line with the __LINE__ that names it. */
__attribute__((noinline)) static int make_small(void)
{
	for (int i = 0; i < NSMALL; i++) {
		small[i] = malloc(SMALL_SIZE); small_line = __LINE__;
		if (!small[i])
			return -1;
		memset(small[i], i, SMALL_SIZE);
	}
	return 0;
}

__attribute__((noinline)) static int make_table(void)
{
	for (int i = 0; i < NTABLE; i++) {
		table[i] = calloc(TABLE_WORDS, sizeof(uint64_t)); table_line = __LINE__;
		if (!table[i])
			return -1;
	}
	return 0;
}

__attribute__((noinline)) static int grow(void)
{
	char *p = malloc(GROW_FROM);

	if (!p)
		return -1;
	for (size_t n = GROW_FROM * 2; n <= GROW_TO; n *= 2) {
		char *q = realloc(p, n); grow_line = __LINE__;

		if (!q) {
			free(p);
			return -1;
		}
		p = q;
		p[n - 1] = 1;
	}
	grown = p;
	return 0;
}

__attribute__((noinline)) static int churn(long n)
{
	for (long i = 0; i < n; i++) {
		char *p = malloc(32); churn_line = __LINE__;

		if (!p)
			return -1;
		escape = p;
		free(p);
	}
	return 0;
}

__attribute__((noinline)) static int keep(long n)
{
	void **v = calloc((size_t)n, sizeof(*v));

	if (!v)
		return -1;
	for (long i = 0; i < n; i++) {
		v[i] = malloc(32);
		if (!v[i])
			return -1;
	}
	for (long i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return 0;
}

__attribute__((noinline)) static int make_map(void)
{
	map = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); map_line = __LINE__;
	if (map == MAP_FAILED)
		return -1;
	memset(map, 1, MAP_SIZE);
	return munmap(map + MAP_SIZE / 2, MAP_SIZE / 2);
}

/* Sweep the table for `seconds` of this thread's CPU time. */
static void *sweep(void *arg)
{
	double end = cpu_s() + seconds;
	uint64_t s = 0;

	(void)arg;
	while (cpu_s() < end)
		for (int r = 0; r < 16; r++)
			for (int i = 0; i < NTABLE; i++)
				for (int w = 0; w < TABLE_WORDS; w += 8)
					s += ((volatile uint64_t *)table[i])[w]++;
	sink += s;
	return NULL;
}

static int truth(const char *path)
{
	FILE *f = fopen(path, "w");
	size_t grow_bytes = 0;

	if (!f)
		return -1;
	for (size_t n = GROW_FROM * 2; n <= GROW_TO; n *= 2)
		grow_bytes += n;
	fprintf(f, "small objects.c:%d %d %d\n", small_line, NSMALL, NSMALL * SMALL_SIZE);
	fprintf(f, "table objects.c:%d %d %zu\n", table_line, NTABLE,
		(size_t)NTABLE * TABLE_WORDS * sizeof(uint64_t));
	fprintf(f, "grow objects.c:%d 12 %zu\n", grow_line, grow_bytes);
	fprintf(f, "churn objects.c:%d %d %d\n", churn_line, NCHURN, NCHURN * 32);
	fprintf(f, "map objects.c:%d 1 %u\n", map_line, MAP_SIZE);
	return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *path = getenv("OBJECTS_TRUTH");
	pthread_t th;

	if (argc == 3 && !strcmp(argv[1], "--churn")) {
		long n = atol(argv[2]);
		uint64_t t0 = now_ns();

		if (n <= 0 || churn(n))
			return 2;
		printf("churn: %ld pairs, %.1f ns/pair\n", n, (double)(now_ns() - t0) / (double)n);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--keep")) {
		long n = atol(argv[2]);
		uint64_t t0 = now_ns();

		if (n <= 0 || keep(n))
			return 2;
		printf("keep: %ld blocks, %.1f ns/block\n", n, (double)(now_ns() - t0) / (double)n);
		return 0;
	}
	if (argc > 2 || (argc == 2 && (seconds = atof(argv[1])) <= 0)) {
		fprintf(stderr, "usage: objects [SECONDS] | objects --churn N\n");
		return 2;
	}
	if (make_small() || make_table() || grow() || churn(NCHURN) || make_map()) {
		fprintf(stderr, "objects: allocation failed\n");
		return 2;
	}
	if (pthread_create(&th, NULL, sweep, NULL))
		return 2;
	sweep(NULL);
	pthread_join(th, NULL);
	if (path && truth(path))
		return 2;
	for (int i = 0; i < NSMALL; i++)
		free(small[i]);
	for (int i = 0; i < NTABLE; i++)
		free(table[i]);
	free(grown);
	munmap(map, MAP_SIZE / 2);
	return 0;
}
