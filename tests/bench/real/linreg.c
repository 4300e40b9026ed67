// SPDX-License-Identifier: GPL-2.0-only
/*
 * linreg: linear regression in the shape of Phoenix's linear_regression.
 *
 *   linreg THREADS MPOINTS [PASSES]   MPOINTS million points (x, y), one
 *                                     byte each, PASSES passes (default 1)
 *
 * Each thread sums x, y, x*x, y*y and x*y over its share of the points
 * into its own accumulator struct, as Phoenix does; the structs sit side
 * by side in ONE array, so neighbouring threads' sums share cache lines
 * (false sharing).  The points are bytes, and a byte load may alias the
 * sums, so the compiler stores every sum on every point, as Phoenix's
 * build does.  Prints the sums and the fitted line; the output does not
 * depend on THREADS.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>
#include "real.h"

struct point {
	signed char x, y;
};

/* 56 bytes: not padded to a line, on purpose. */
struct acc {
	const struct point *pts;
	long n;
	long long sx, sy, sxx, syy, sxy;
};

static int passes = 1;

static void *run(void *p)
{
	struct acc *a = p;

	for (int r = 0; r < passes; r++) {
		const signed char *b = &a->pts[0].x;

		for (long i = 0; i < 2 * a->n; i += 2) {
			a->sx += b[i];
			a->sy += b[i + 1];
			a->sxx += b[i] * b[i];
			a->syy += b[i + 1] * b[i + 1];
			a->sxy += b[i] * b[i + 1];
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *use = "linreg THREADS MPOINTS [PASSES]";
	static pthread_t th[MAX_THREADS];
	long long sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	struct point *pts;
	struct acc *acc;
	uint64_t s = 7;
	long t, n, per;

	if (argc < 3 || argc > 4)
		usage(use);
	t = arg_count(argv[1], MAX_THREADS, use);
	n = arg_count(argv[2], 1 << 14, use) << 20;
	if (argc > 3)
		passes = (int)arg_count(argv[3], 1 << 20, use);
	pts = xmalloc((size_t)n * sizeof(*pts));
	/* y = 2x/3 + noise, so the fit has something to find. */
	for (long i = 0; i < n; i++) {
		uint64_t r = rnd(&s);
		int x = (int)(r % 200) - 100;

		pts[i].x = (signed char)x;
		pts[i].y = (signed char)(2 * x / 3 + (int)((r >> 32) % 41) - 20);
	}
	acc = xmalloc((size_t)t * sizeof(*acc));
	memset(acc, 0, (size_t)t * sizeof(*acc));
	per = n / t;
	for (long i = 0; i < t; i++) {
		acc[i].pts = pts + i * per;
		acc[i].n = i == t - 1 ? n - i * per : per;
		if (pthread_create(&th[i], NULL, run, &acc[i])) {
			fprintf(stderr, "linreg: cannot create a thread\n");
			return 1;
		}
	}
	for (long i = 0; i < t; i++) {
		pthread_join(th[i], NULL);
		sx += acc[i].sx;
		sy += acc[i].sy;
		sxx += acc[i].sxx;
		syy += acc[i].syy;
		sxy += acc[i].sxy;
	}
	{
		double m = (double)n * passes;
		double b = (m * (double)sxy - (double)sx * (double)sy) /
			   (m * (double)sxx - (double)sx * (double)sx);
		double a = ((double)sy - b * (double)sx) / m;

		printf("linreg: %ld points x %d: sx %lld sy %lld sxx %lld syy %lld sxy %lld; "
		       "y = %.6f x %+.6f\n",
		       n, passes, sx, sy, sxx, syy, sxy, b, a);
	}
	free(acc);
	free(pts);
	return 0;
}
