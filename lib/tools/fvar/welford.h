/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running mean and variance (Welford, 1962) and the merge of two such
 * states (Chan, Golub and LeVeque, 1979), so per-thread, per-process and
 * per-rank states add up to what one pass over all values would give.
 */
#ifndef CDT_TOOLS_FVAR_WELFORD_H
#define CDT_TOOLS_FVAR_WELFORD_H

#include <stdint.h>

struct welford {
	uint64_t n;
	double mean, m2; /* m2: the sum of squared deviations from the mean */
	double min, max;
};

void welford_add(struct welford *w, double x);
/* a becomes the state of a's values and b's together. */
void welford_merge(struct welford *a, const struct welford *b);
/* The sample standard deviation (n - 1); 0 below two values. */
double welford_sd(const struct welford *w);
/* sd / mean; 0 when the mean is 0. */
double welford_cv(const struct welford *w);

#endif
