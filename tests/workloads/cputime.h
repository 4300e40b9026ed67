/* SPDX-License-Identifier: GPL-2.0-only */
/* Workloads that run for an amount of CPU time, not wall time, take as
 * many samples on a busy machine as on an idle one. */
#ifndef CPUTIME_H
#define CPUTIME_H

#include <time.h>

/* The calling thread's CPU time, in seconds. */
static inline double cputime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
