// SPDX-License-Identifier: GPL-2.0-only
/*
 * heapseq: a fixed sequence of heap calls and where their blocks fall.
 * The main thread starts a second thread, which waits; then it makes N
 * (default 1000) malloc, calloc, realloc, aligned_alloc and free calls of
 * mixed sizes, chosen by a fixed generator; then the second thread makes
 * its own N, from its own arena.  (glibc allocates a started thread's
 * vector of TLS blocks from its creator's heap: a profiler that adds a
 * TLS block moves the main thread's blocks after it.)  Each block is
 * written to FILE (default: stderr) as one line:
 *
 *   THREAD STEP CALL PAGE_OFFSET DELTA USABLE
 *
 * PAGE_OFFSET is the address modulo the page (address randomization moves
 * only whole pages), DELTA its distance from the first block the thread
 * got, USABLE malloc_usable_size.  A profiler that allocates from the
 * program's heap, at start or when a thread starts or on the way, changes
 * some of these lines.  A line "main first PAGE_OFFSET" comes before the
 * main thread's sequence, from the very first malloc of main.
 *
 *   heapseq [N [FILE]]
 *
 * Exit status 0, or 2 on bad usage or a failed call.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 100000
#define SLOTS 64

struct seq {
	const char *name;
	long n;
	uint64_t rng;
	FILE *out;
	int err;
};

/* The second thread's turn: after the main thread's sequence. */
static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static int turn_second;

static uint64_t seq_next(struct seq *s)
{
	/* xorshift64*: the same numbers on every run */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ull;
}

/* Sizes of every class: mostly small (tcache, fastbins), some medium
 * (small bins), a few large (unsorted/large bins; none near the mmap
 * threshold, whose blocks are pages of their own). */
static size_t seq_size(struct seq *s)
{
	uint64_t r = seq_next(s);

	switch (r % 10) {
	case 0: case 1: case 2: case 3: case 4:
		return 1 + (r >> 8) % 64;
	case 5: case 6: case 7:
		return 65 + (r >> 8) % 960;
	case 8:
		return 1025 + (r >> 8) % 7000;
	default:
		return 8192 + (r >> 8) % 24000;
	}
}

static void seq_run(struct seq *s)
{
	void *slot[SLOTS] = { 0 };
	uintptr_t first = 0;

	for (long i = 0; i < s->n && !s->err; i++) {
		uint64_t r = seq_next(s);
		unsigned k = (unsigned)(r >> 32) % SLOTS;
		size_t size = seq_size(s);
		const char *call;
		void *p;

		if (slot[k] && r % 4 == 0) {
			free(slot[k]);
			slot[k] = NULL;
			continue;
		}
		switch (r % 7) {
		case 0: case 1: case 2:
			call = "malloc";
			p = malloc(size);
			break;
		case 3:
			call = "calloc";
			p = calloc(1 + size / 16, 16);
			break;
		case 4: case 5:
			call = "realloc";
			p = realloc(slot[k], size);
			if (p)
				slot[k] = NULL; /* moved or grown: the old pointer is gone */
			break;
		default:
			call = "aligned_alloc";
			p = aligned_alloc((size_t)64 << (r >> 20) % 4, (size + 63) & ~(size_t)63);
			break;
		}
		if (!p) {
			s->err = 1;
			break;
		}
		memset(p, (int)i, malloc_usable_size(p) < 64 ? malloc_usable_size(p) : 64);
		if (!first)
			first = (uintptr_t)p;
		fprintf(s->out, "%s %ld %s %03lx %+ld %zu\n", s->name, i, call,
			(unsigned long)((uintptr_t)p & 0xfff), (long)((uintptr_t)p - first),
			malloc_usable_size(p));
		free(slot[k]);
		slot[k] = p;
	}
	for (unsigned k = 0; k < SLOTS; k++)
		free(slot[k]);
}

static void *seq_thread(void *arg)
{
	pthread_mutex_lock(&turn_lock);
	while (!turn_second)
		pthread_cond_wait(&turn_cond, &turn_lock);
	pthread_mutex_unlock(&turn_lock);
	seq_run(arg);
	return NULL;
}

int main(int argc, char **argv)
{
	struct seq main_seq = { "main", 1000, 0x9e3779b97f4a7c15ull, stderr, 0 };
	struct seq second;
	void *first = malloc(24);
	pthread_t th;

	if (argc > 3 || (argc > 1 && (atol(argv[1]) <= 0 || atol(argv[1]) > MAX_N))) {
		fprintf(stderr, "usage: heapseq [N (1..%d) [FILE]]\n", MAX_N);
		return 2;
	}
	if (argc > 1)
		main_seq.n = atol(argv[1]);
	/* Its buffer is made now: the same block with and without a profiler. */
	if (argc > 2 && !(main_seq.out = fopen(argv[2], "w"))) {
		perror(argv[2]);
		return 2;
	}
	if (!first)
		return 2;
	fprintf(main_seq.out, "main first %03lx\n", (unsigned long)((uintptr_t)first & 0xfff));
	second = main_seq;
	second.name = "second";
	second.rng = 0x2545f4914f6cdd1dull;
	if (pthread_create(&th, NULL, seq_thread, &second))
		return 2;
	seq_run(&main_seq);
	/* Every line of the main thread is out before the second one writes. */
	fflush(main_seq.out);
	pthread_mutex_lock(&turn_lock);
	turn_second = 1;
	pthread_cond_signal(&turn_cond);
	pthread_mutex_unlock(&turn_lock);
	if (pthread_join(th, NULL))
		return 2;
	free(first);
	if (main_seq.err || second.err || fclose(main_seq.out))
		return 2;
	return 0;
}
