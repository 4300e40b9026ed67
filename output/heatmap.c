// SPDX-License-Identifier: GPL-2.0-only
#include "heatmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_W 5 /* "1234 " in front of each row */

size_t heatmap_block(size_t n, int width)
{
	size_t cols = width > LABEL_W + 1 ? (size_t)width - LABEL_W - 1 : 1;
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

	if (v <= 0 || max <= 0)
		return ramp[0];
	i = (size_t)(v / max * (double)top + 0.5);
	if (i < 1)
		i = 1;
	return ramp[i > top ? top : i];
}

int heatmap_print(FILE *f, const struct heatmap *h, int width)
{
	size_t k = heatmap_block(h->n, width), nb = (h->n + k - 1) / k;
	double *b = calloc(nb * nb + 1, sizeof(double)), max = 0;

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		for (size_t j = 0; j < h->n; j++)
			b[(i / k) * nb + j / k] += h->cell[i * h->n + j];
	for (size_t i = 0; i < nb * nb; i++)
		if (b[i] > max)
			max = b[i];
	fprintf(f, "%s", h->title);
	if (k > 1)
		fprintf(f, " (blocks of %zu x %zu, summed)", k, k);
	fputc('\n', f);
	/* Column labels: tens over units of each block's first label. */
	for (int row = 0; row < 2; row++) {
		fprintf(f, "%*s", LABEL_W, "");
		for (size_t j = 0; j < nb; j++) {
			int l = h->label[j * k];

			fputc(row == 0 ? (l >= 10 ? '0' + l / 10 % 10 : ' ') : '0' + l % 10, f);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < nb; i++) {
		fprintf(f, "%*d ", LABEL_W - 1, h->label[i * k]);
		for (size_t j = 0; j < nb; j++)
			fputc(heatmap_shade(b[i * nb + j], max), f);
		fputc('\n', f);
	}
	fprintf(f, "%*sshades \"%s\" from low to %.4g %s per cell; blank: none\n", LABEL_W, "",
		HEATMAP_SHADES + 1, max, h->unit);
	free(b);
	return ferror(f) ? -EIO : 0;
}
