// SPDX-License-Identifier: GPL-2.0-only
/*
 * jacobi: a 2-D Jacobi stencil with OpenMP, in the shape of the stencil
 * kernels of the OpenMP benchmark suites.
 *
 *   jacobi THREADS N SWEEPS   an N x N grid of doubles (two of them),
 *                             SWEEPS sweeps on THREADS OpenMP threads
 *
 * Each sweep sets every interior point to the mean of its four
 * neighbours, from one grid into the other; the border stays fixed (1.0
 * on the top edge, 0 elsewhere).  One `omp parallel for` a sweep, so the
 * threads meet at its implicit barrier every sweep, as such codes do.
 * Prints the sum of the final grid, which does not depend on THREADS.
 */
#include <omp.h>
#include <string.h>
#include "real.h"

int main(int argc, char **argv)
{
	const char *use = "jacobi THREADS N SWEEPS";
	double *g[2], sum = 0;
	long t, n, sweeps;

	if (argc != 4)
		usage(use);
	t = arg_count(argv[1], MAX_THREADS, use);
	n = arg_count(argv[2], 1 << 15, use);
	sweeps = arg_count(argv[3], 1 << 20, use);
	if (n < 3)
		usage(use);
	for (int k = 0; k < 2; k++) {
		g[k] = xmalloc((size_t)(n * n) * sizeof(double));
		memset(g[k], 0, (size_t)(n * n) * sizeof(double));
		for (long j = 0; j < n; j++)
			g[k][j] = 1.0;
	}
	for (long s = 0; s < sweeps; s++) {
		const double *in = g[s & 1];
		double *out = g[(s + 1) & 1];

#pragma omp parallel for num_threads(t) schedule(static)
		for (long i = 1; i < n - 1; i++) {
			const double *up = in + (i - 1) * n, *mid = in + i * n, *down = in + (i + 1) * n;
			double *o = out + i * n;

			for (long j = 1; j < n - 1; j++)
				o[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
		}
	}
	for (long i = 0; i < n * n; i++)
		sum += g[sweeps & 1][i];
	printf("jacobi: %ldx%ld, %ld sweeps: sum %.12e\n", n, n, sweeps, sum);
	free(g[0]);
	free(g[1]);
	return 0;
}
