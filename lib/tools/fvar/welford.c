// SPDX-License-Identifier: GPL-2.0-only
#include "lib/tools/fvar/welford.h"

#include <math.h>

void welford_add(struct welford *w, double x)
{
	double d = x - w->mean;

	if (!w->n || x < w->min)
		w->min = x;
	if (!w->n || x > w->max)
		w->max = x;
	w->n++;
	w->mean += d / (double)w->n;
	w->m2 += d * (x - w->mean);
}

void welford_merge(struct welford *a, const struct welford *b)
{
	double n, d;

	if (!b->n)
		return;
	if (!a->n) {
		*a = *b;
		return;
	}
	n = (double)a->n + (double)b->n;
	d = b->mean - a->mean;
	a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
	a->mean += d * (double)b->n / n;
	a->n += b->n;
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
}

double welford_sd(const struct welford *w)
{
	return w->n > 1 && w->m2 > 0 ? sqrt(w->m2 / (double)(w->n - 1)) : 0;
}

double welford_cv(const struct welford *w)
{
	return w->mean != 0 ? welford_sd(w) / fabs(w->mean) : 0;
}
