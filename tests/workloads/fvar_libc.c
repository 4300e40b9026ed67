/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fvar_libc: functions that spend their time in libc, reached through the
 * PLT, for cdt fvar's rows and callers.
 *
 * Each thread calls copy_a() and copy_b() in turn; each copies a buffer
 * with memcpy() and measures a string with strlen(), one call site each,
 * so memcpy and strlen have two call sites apiece, both through the PLT.
 *
 * Usage: fvar_libc [-n THREADS] [-t CPU_SECONDS] [-s BYTES]
 * Exit 0; 2 on bad usage.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cputime.h"

#define MAX_THREADS 16
#define NOINLINE __attribute__((noinline))

static double seconds = 2;
static size_t bytes = 64 << 10;

struct worker {
	pthread_t th;
	char *src, *dst;
	size_t sink;
};

/* Each returns after strlen, so it is called, not jumped to. */
NOINLINE size_t copy_a(struct worker *w)
{
	memcpy(w->dst, w->src, bytes);
	return strlen(w->dst) + 1;
}

NOINLINE size_t copy_b(struct worker *w)
{
	memcpy(w->src, w->dst, bytes);
	return strlen(w->src) + 2;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	double end = cputime_now() + seconds;

	while (cputime_now() < end)
		for (int i = 0; i < 16; i++)
			w->sink += i & 1 ? copy_b(w) : copy_a(w);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	int nthreads = 2, opt;

	while ((opt = getopt(argc, argv, "n:t:s:")) != -1) {
		switch (opt) {
		case 'n': nthreads = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 's': bytes = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || seconds <= 0 || bytes < 2)
		goto usage;
	for (int i = 0; i < nthreads; i++) {
		w[i].src = malloc(bytes);
		w[i].dst = malloc(bytes);
		if (!w[i].src || !w[i].dst)
			return 1;
		memset(w[i].src, 'a' + i, bytes - 1);
		w[i].src[bytes - 1] = 0;
		memcpy(w[i].dst, w[i].src, bytes);
		if (pthread_create(&w[i].th, NULL, run, &w[i]))
			return 1;
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].th, NULL);
	return 0;
usage:
	fprintf(stderr, "usage: fvar_libc [-n THREADS] [-t CPU_SECONDS] [-s BYTES]\n");
	return 2;
}
