/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ground truth for memory-access sampling: four static arrays, each touched
 * by exactly one function through exactly one memory instruction per
 * element, so the sampled function tells which array, access kind and size
 * a sample must report:
 *
 *   function   array        element    kind   bytes
 *   read_a     arr_load64   uint64_t   load   8
 *   write_b    arr_store32  uint32_t   store  4
 *   rmw_c      arr_rmw64    uint64_t   rmw    8   (lock add)
 *   read_d     arr_load16   uint16_t   load   2
 *
 * Volatile accesses keep one access of the element's width per element
 * (no vectorizing, no merging), and the loops hold nothing else that
 * touches memory: the index stays in a register (checked with objdump -d
 * at -O2, gcc 12).  So a timer sample anywhere in a loop, stepped forward
 * to the next memory instruction, must land on that loop's access.
 * Elements are visited in an odd stride modulo a power of two (a
 * permutation), a new cache line each time, and the arrays together
 * (44 MiB) exceed the 32 MiB L3 of the development machine, so the loops
 * wait on memory.  All threads sweep the same arrays.
 *
 * Usage: arrays [threads] [iterations]   (defaults: 4 threads, 12 iterations)
 *        arrays --layout                 name,start,end,kind,size per array
 * The layout is this process's; run both under `setarch -R` (no ASLR) to
 * compare addresses across runs, or match by symbol name.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEM (1u << 21) /* elements per array, a power of two */
#define STRIDE 33u       /* odd: visits every element once per sweep */
#define MAX_THREADS 1024

static uint64_t arr_load64[NELEM];
static uint32_t arr_store32[NELEM];
static uint64_t arr_rmw64[NELEM];
static uint16_t arr_load16[NELEM];

/* Results go here so the sweeps have an observable effect. */
static volatile uint64_t sink;

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE static uint64_t read_a(void)
{
	const volatile uint64_t *p = arr_load64;
	uint64_t sum = 0;
	uint32_t i = 0;

	for (uint32_t n = 0; n < NELEM; n++) {
		sum += p[i];
		i = (i + STRIDE) & (NELEM - 1);
	}
	return sum;
}

NOINLINE static void write_b(uint32_t v)
{
	volatile uint32_t *p = arr_store32;
	uint32_t i = 0;

	for (uint32_t n = 0; n < NELEM; n++) {
		p[i] = v;
		i = (i + STRIDE) & (NELEM - 1);
	}
}

NOINLINE static void rmw_c(void)
{
	uint32_t i = 0;

	for (uint32_t n = 0; n < NELEM; n++) {
		__atomic_fetch_add(&arr_rmw64[i], 1, __ATOMIC_RELAXED);
		i = (i + STRIDE) & (NELEM - 1);
	}
}

NOINLINE static uint64_t read_d(void)
{
	const volatile uint16_t *p = arr_load16;
	uint64_t sum = 0;
	uint32_t i = 0;

	for (uint32_t n = 0; n < NELEM; n++) {
		sum += p[i];
		i = (i + STRIDE) & (NELEM - 1);
	}
	return sum;
}

static long iterations = 12; /* about 1.2 s with 4 threads on 2 cores */

/* Untouched bss reads would all hit the one shared zero page: give every
 * array its own memory before the sweeps. */
static void arrays_fill(void)
{
	for (uint32_t i = 0; i < NELEM; i++) {
		arr_load64[i] = i;
		arr_store32[i] = i;
		arr_rmw64[i] = i;
		arr_load16[i] = (uint16_t)i;
	}
}

static void *worker(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;
	uint64_t acc = 0;

	for (long it = 0; it < iterations; it++) {
		acc += read_a();
		write_b(id + (uint32_t)it);
		rmw_c();
		acc += read_d();
	}
	sink = acc;
	return NULL;
}

static void layout_print(void)
{
	static const struct {
		const char *name;
		const void *start;
		size_t bytes;
		const char *kind;
		unsigned size;
	} arr[] = {
		{ "arr_load64", arr_load64, sizeof(arr_load64), "load", sizeof(arr_load64[0]) },
		{ "arr_store32", arr_store32, sizeof(arr_store32), "store", sizeof(arr_store32[0]) },
		{ "arr_rmw64", arr_rmw64, sizeof(arr_rmw64), "rmw", sizeof(arr_rmw64[0]) },
		{ "arr_load16", arr_load16, sizeof(arr_load16), "load", sizeof(arr_load16[0]) },
	};

	for (size_t i = 0; i < sizeof(arr) / sizeof(arr[0]); i++)
		printf("%s,%#lx,%#lx,%s,%u\n", arr[i].name, (unsigned long)(uintptr_t)arr[i].start,
		       (unsigned long)((uintptr_t)arr[i].start + arr[i].bytes), arr[i].kind,
		       arr[i].size);
}

static int arg_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t tid[MAX_THREADS];
	long nthreads = 4, started;
	int err, ret = 0;

	if (argc == 2 && strcmp(argv[1], "--layout") == 0) {
		layout_print();
		return 0;
	}
	if (argc > 3 || (argc > 1 && arg_long(argv[1], 1, MAX_THREADS, &nthreads)) ||
	    (argc > 2 && arg_long(argv[2], 0, 1000000, &iterations))) {
		fprintf(stderr, "usage: arrays [threads 1..%d] [iterations] | arrays --layout\n",
			MAX_THREADS);
		return 2;
	}

	arrays_fill();
	for (started = 0; started < nthreads; started++) {
		err = pthread_create(&tid[started], NULL, worker, (void *)(uintptr_t)started);
		if (err) {
			fprintf(stderr, "arrays: pthread_create: %s\n", strerror(err));
			ret = 1;
			break;
		}
	}
	for (long t = 0; t < started; t++) {
		err = pthread_join(tid[t], NULL);
		if (err) {
			fprintf(stderr, "arrays: pthread_join: %s\n", strerror(err));
			ret = 1;
		}
	}
	if (ret == 0)
		printf("arrays: done\n");
	return ret;
}
