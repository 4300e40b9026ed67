/* SPDX-License-Identifier: GPL-2.0-only */
/* Heap arrays that grow by doubling, for the front end's tables. */
#ifndef CDT_ARRAY_H
#define CDT_ARRAY_H

#include <stddef.h>

/*
 * Make room for element n of *arrp (a pointer to the array pointer), whose
 * capacity is *cap elements of elem bytes: doubles it until n fits, zeroing
 * the new part.  Returns 0 or -ENOMEM (the array is left as it was).
 */
int array_grow(void *arrp, size_t *cap, size_t n, size_t elem);

#endif
