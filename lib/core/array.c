// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/array.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int array_grow(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void **arr = arrp;
	size_t ncap;
	void *q;

	if (n < *cap)
		return 0;
	/* Doubling until n fits: one append at a time, or a buffer sized to
	 * whatever comes (a record). */
	for (ncap = *cap ? *cap * 2 : 64; ncap <= n; ncap *= 2)
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	q = realloc(*arr, ncap * elem);
	if (!q)
		return -ENOMEM;
	memset((char *)q + *cap * elem, 0, (ncap - *cap) * elem);
	*arr = q;
	*cap = ncap;
	return 0;
}
