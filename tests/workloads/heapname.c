// SPDX-License-Identifier: GPL-2.0-only
/*
 * heapname: two heap blocks, each written by the main thread for about
 * 0.2 s of CPU, allocated through helpers a block must not be named after:
 *   - heap_calloc (heapname.h), inlined into main at INLINE_LINE below;
 *   - xmalloc_or_die, a wrapper of the program's own (not inlined),
 *     called from main at WRAPPER_LINE.
 * A profile names them heap@heapname.c:INLINE_LINE (main) and
 * heap@heapname.c:WRAPPER_LINE (main).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cputime.h"
#include "heapname.h"

static __attribute__((noinline)) void *xmalloc_or_die(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

static void fill(volatile uint64_t *a, size_t n, double secs)
{
	double t0 = cputime_now();

	do
		for (size_t i = 0; i < 100000; i++)
			a[i % n] += i;
	while (cputime_now() - t0 < secs);
}

int main(void)
{
	uint64_t *a = heap_calloc(4096, sizeof(uint64_t)); /* INLINE_LINE */
	uint64_t *b = xmalloc_or_die(4096 * sizeof(uint64_t)); /* WRAPPER_LINE */

	fill(a, 4096, 0.2);
	fill(b, 4096, 0.2);
	printf("%llu\n", (unsigned long long)(a[1] + b[1]));
	free(a);
	free(b);
	return 0;
}
