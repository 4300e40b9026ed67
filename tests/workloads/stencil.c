// SPDX-License-Identifier: GPL-2.0-only
/*
 * stencil: a pthreads 2D Jacobi stencil, the benchmark's larger kernel.
 *
 *   stencil [THREADS [N [ITERS]]]   defaults 4 threads, a 2048x2048 grid
 *                                   of doubles (two grids, 64 MiB), 1000
 *                                   iterations: about 4 s of CPU, 2-3 s on
 *                                   two idle cores
 *
 * Each iteration every interior point becomes the average of its four
 * neighbours; the border stays fixed (1.0 on the top edge, 0 elsewhere).
 * Threads own contiguous bands of rows and meet at a barrier after each
 * sweep, so neighbouring threads read each other's edge rows.  The result
 * does not depend on THREADS: the checksum printed (sum of the final grid)
 * is the same for any thread count.  Exits 0, or 2 on bad usage.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 256

struct band {
	pthread_t th;
	int first, last; /* interior rows [first, last) */
};

static double *grid[2];
static int n, iters;
static pthread_barrier_t sweep;

static void sweep_rows(const double *restrict in, double *restrict out, int first, int last)
{
	for (int i = first; i < last; i++) {
		const double *up = in + (size_t)(i - 1) * n, *mid = in + (size_t)i * n;
		const double *down = in + (size_t)(i + 1) * n;
		double *o = out + (size_t)i * n;

		for (int j = 1; j < n - 1; j++)
			o[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
	}
}

static void *band_main(void *p)
{
	const struct band *b = p;

	for (int it = 0; it < iters; it++) {
		sweep_rows(grid[it & 1], grid[(it + 1) & 1], b->first, b->last);
		pthread_barrier_wait(&sweep);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct band bands[MAX_THREADS];
	int t = argc > 1 ? atoi(argv[1]) : 4;
	double sum = 0;
	int err;

	n = argc > 2 ? atoi(argv[2]) : 2048;
	iters = argc > 3 ? atoi(argv[3]) : 1000;
	if (argc > 4 || t < 1 || t > MAX_THREADS || n < 3 || n > 65536 || iters < 0 ||
	    t > n - 2) {
		fprintf(stderr, "usage: stencil [THREADS (1..%d) [N (3..65536) [ITERS]]]\n",
			MAX_THREADS);
		return 2;
	}
	for (int g = 0; g < 2; g++) {
		grid[g] = calloc((size_t)n * (size_t)n, sizeof(double));
		if (!grid[g]) {
			fprintf(stderr, "stencil: out of memory\n");
			return 2;
		}
		for (int j = 0; j < n; j++)
			grid[g][j] = 1.0;
	}
	pthread_barrier_init(&sweep, NULL, (unsigned)t);
	for (int k = 0; k < t; k++) {
		bands[k].first = 1 + (int)((long)(n - 2) * k / t);
		bands[k].last = 1 + (int)((long)(n - 2) * (k + 1) / t);
		if (k == 0)
			continue; /* the main thread takes band 0 */
		err = pthread_create(&bands[k].th, NULL, band_main, &bands[k]);
		if (err) {
			fprintf(stderr, "stencil: pthread_create: %s\n", strerror(err));
			return 2;
		}
	}
	band_main(&bands[0]);
	for (int k = 1; k < t; k++)
		pthread_join(bands[k].th, NULL);
	for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
		sum += grid[iters & 1][i];
	printf("stencil: %d threads, %dx%d, %d iterations, checksum %.9e\n", t, n, n, iters, sum);
	return 0;
}
