// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctlname: threads whose names hold terminal controls.
 *
 *   ctlname [ARGS...]   the main thread is named "m\e[7mX\nY" (ESC, a
 *                       newline), a worker "w\rZ\x7f"; both do ~0.1 s of
 *                       memory work.  ARGS are ignored (a test puts
 *                       controls in argv through them).
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "cputime.h"

static volatile uint64_t sink[512];

static void work(void)
{
	double t0 = cputime_now();

	do
		for (unsigned i = 0; i < 100000; i++)
			sink[i & 511] += i;
	while (cputime_now() - t0 < 0.1);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "w\rZ\x7f");
	work();
	return NULL;
}

int main(void)
{
	pthread_t th;

	pthread_setname_np(pthread_self(), "m\033[7mX\nY");
	if (pthread_create(&th, NULL, worker, NULL))
		return 2;
	work();
	pthread_join(th, NULL);
	return 0;
}
