/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A square matrix as a compact text heatmap: one character per cell from
 * the shade ramp " .:-=+*#%@", row and column labels, and a legend.
 * Matrices wider than the text width are aggregated into blocks of k
 * indices (summed), and the title says so.
 */
#ifndef CDT_HEATMAP_H
#define CDT_HEATMAP_H

#include <stddef.h>
#include <stdio.h>

struct heatmap {
	const char *title;
	size_t n;
	const double *cell;  /* n*n, row-major */
	const char *const *label; /* n labels: indices, ids, or rank.thread */
	const char *unit;    /* of a cell's value */
};

#define HEATMAP_SHADES " .:-=+*#%@"

/* Block size that fits n columns beside labels of lw characters into
 * width characters (1 = none). */
size_t heatmap_block(size_t n, size_t lw, int width);
int heatmap_print(FILE *f, const struct heatmap *h, int width);
/*
 * The value of rows [r0, r0+k) x columns [c0, c0+k) of a rows x cols
 * matrix.  In a symmetric one, where the pair (i, j) is in both (i, j)
 * and (j, i), a block on the diagonal holds each pair inside it twice:
 * counted once, so that blocks add up to the matrix's total as the pairs
 * do (a k x k block of the whole matrix is all of it, not twice).
 */
double heatmap_block_sum(const double *m, size_t rows, size_t cols, int symmetric, size_t r0,
			 size_t c0, size_t k);

#endif
