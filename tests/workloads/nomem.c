// SPDX-License-Identifier: GPL-2.0-only
/*
 * nomem: floating-point work in registers, no memory access in its loop.
 *
 *   nomem [CPU_SECONDS]   spins for CPU_SECONDS (default 1) of its own CPU
 *                         time, so it takes as many samples on a busy
 *                         machine as on an idle one
 *
 * The soft source's walk cannot tell where a loop whose exit depends on a
 * square root goes, so every sample single-steps the whole budget of
 * steps without finding an access: the dearest sample there is, for the
 * tests of what cdt says when sampling slows a program down.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, x = 1.0, t0 = cpu_seconds();

	do {
		for (int i = 0; i < 100000; i++) {
			x = sqrt(x + 1.0);
			if (x > 1e300)
				break;
		}
	} while (cpu_seconds() - t0 < secs);
	fprintf(stderr, "nomem: x=%f\n", x);
	return 0;
}
