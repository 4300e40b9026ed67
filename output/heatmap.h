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

#endif
