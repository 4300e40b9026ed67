/* SPDX-License-Identifier: GPL-2.0-only */
/* heapname's allocation helper, inlined from a header as a CALLOC macro's
 * function would be: the block's name must not come from this line. */
#ifndef HEAPNAME_H
#define HEAPNAME_H

#include <stdlib.h>

static inline __attribute__((always_inline)) void *heap_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		abort();
	return p;
}

#endif
