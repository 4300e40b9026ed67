// SPDX-License-Identifier: GPL-2.0-only
#include "output/heatmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MIN 4 /* row labels are at least "1234" wide, then a space */

size_t heatmap_block(size_t n, size_t lw, int width)
{
	size_t cols = width > (int)lw + 2 ? (size_t)width - lw - 1 : 1;
	size_t k = 1;

	while ((n + k - 1) / k > cols)
		k++;
	return k;
}

/* The shade of v on a scale whose top is max: blank only for zero. */
static char heatmap_shade(double v, double max)
{
	static const char ramp[] = HEATMAP_SHADES;
	const size_t top = sizeof(ramp) - 2;
	size_t i;
	double r;

	if (!(v > 0) || !(max > 0)) /* NaN too */
		return ramp[0];
	/* inf / inf is NaN, which no cast may take */
	r = v / max < 1 ? v / max : 1;
	i = (size_t)(r * (double)top + 0.5);
	if (i < 1)
		i = 1;
	return ramp[i > top ? top : i];
}

/* Widest label of all; the width of the row labels. */
static size_t heatmap_label_width(const struct heatmap *h)
{
	size_t w = LABEL_MIN;

	for (size_t i = 0; i < h->n; i++)
		if (strlen(h->label[i]) > w)
			w = strlen(h->label[i]);
	return w;
}

/*
 * Column labels: each block's first label written downwards, its last
 * character on the line above the cells, so "12" reads 1 over 2 and
 * "1.3" takes three lines.
 */
static void heatmap_col_labels(FILE *f, const struct heatmap *h, size_t k, size_t nb, size_t lw)
{
	size_t rows = 0;

	for (size_t j = 0; j < nb; j++)
		if (strlen(h->label[j * k]) > rows)
			rows = strlen(h->label[j * k]);
	for (size_t row = 0; row < rows; row++) {
		fprintf(f, "%*s", (int)lw + 1, "");
		for (size_t j = 0; j < nb; j++) {
			const char *l = h->label[j * k];
			size_t len = strlen(l), pad = rows - len;

			fputc(row < pad ? ' ' : l[row - pad], f);
		}
		fputc('\n', f);
	}
}

double heatmap_block_sum(const double *m, size_t rows, size_t cols, int symmetric, size_t r0,
			 size_t c0, size_t k)
{
	double s = 0;

	for (size_t i = r0; i < r0 + k && i < rows; i++)
		for (size_t j = c0; j < c0 + k && j < cols; j++)
			s += symmetric && r0 == c0 && i != j ? m[i * cols + j] / 2 : m[i * cols + j];
	return s;
}

int heatmap_print(FILE *f, const struct heatmap *h, int width)
{
	size_t lw = heatmap_label_width(h);
	size_t k = heatmap_block(h->n, lw, width), nb = (h->n + k - 1) / k;
	double *b = calloc(nb * nb + 1, sizeof(double)), max = 0;
	int legend;

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		for (size_t j = 0; j < h->n; j++)
			b[(i / k) * nb + j / k] += h->cell[i * h->n + j];
	for (size_t i = 0; i < nb * nb; i++)
		if (b[i] > max)
			max = b[i];
	fprintf(f, "%s\n", h->title);
	if (k > 1)
		fprintf(f, "(blocks of %zu x %zu summed to fit %d columns; a label names a "
			"block's first)\n", k, k, width);
	heatmap_col_labels(f, h, k, nb, lw);
	for (size_t i = 0; i < nb; i++) {
		size_t end = nb; /* blank cells at the end of a row are not printed */

		while (end > 0 && heatmap_shade(b[i * nb + end - 1], max) == ' ')
			end--;
		fprintf(f, "%*s%s", (int)lw, h->label[i * k], end ? " " : "");
		for (size_t j = 0; j < end; j++)
			fputc(heatmap_shade(b[i * nb + j], max), f);
		fputc('\n', f);
	}
	legend = snprintf(NULL, 0, "scale \"%s\" up to %.4g %s per cell; blank: 0",
			  &HEATMAP_SHADES[1], max, h->unit);
	/* Under the cells if it fits the width, else from the left margin. */
	fprintf(f, "%*sscale \"%s\" up to %.4g %s per cell; blank: 0\n",
		legend + (int)lw + 1 <= width ? (int)lw + 1 : 0, "", &HEATMAP_SHADES[1], max,
		h->unit);
	free(b);
	return ferror(f) ? -EIO : 0;
}
