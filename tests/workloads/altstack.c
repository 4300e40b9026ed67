// SPDX-License-Identifier: GPL-2.0-only
/*
 * altstack: threads that catch their own stack overflows on a small
 * alternate signal stack, as language runtimes do.  A profiler's signal
 * handler must not run out of stack on a stack the program chose.
 *
 *   altstack [ROUNDS [THREADS [BYTES]]]
 *       THREADS threads (default 2, at most 8) each overflow their 256 KiB
 *       stack ROUNDS times (default 300): a recursion that does a little
 *       work in every frame until it reaches the guard page.  The SIGSEGV
 *       handler runs on a sigaltstack of BYTES (default: the kernel's
 *       AT_MINSIGSTKSZ, the largest signal frame, plus 2 KiB for the
 *       handler itself; 0: that default) and siglongjmps back.
 *   altstack --min      prints that default size and AT_MINSIGSTKSZ
 *
 * Prints the overflows caught; exits 0 if every thread caught all of
 * them, 2 on bad arguments, and dies of SIGSEGV if a signal frame did
 * not fit on the alternate stack.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif
#define MAX_THREADS 8
#define THREAD_STACK (256u << 10)

struct worker {
	pthread_t th;
	long rounds, caught;
	size_t alt;
	uint64_t sum;
	int err;
};

static __thread sigjmp_buf back;
static __thread volatile uint64_t depth;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(back, 1);
}

/* A frame of ~512 bytes that does some work, until the stack runs out
 * (the depth bound is never reached: the stack holds a few hundred). */
static __attribute__((noinline)) uint64_t dive(uint64_t x)
{
	volatile uint64_t frame[60];

	for (int i = 0; i < 480; i++)
		frame[i % 60] = x = x * 6364136223846793005ull + 1442695040888963407ull;
	if (++depth > 1000000)
		return x;
	return dive(frame[x % 60]) + frame[(x >> 7) % 60];
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	stack_t ss = { 0 };
	void *mem;

	mem = mmap(NULL, w->alt, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		w->err = 1;
		return NULL;
	}
	ss.ss_sp = mem;
	ss.ss_size = w->alt;
	if (sigaltstack(&ss, NULL)) {
		perror("altstack: sigaltstack");
		w->err = 1;
		return NULL;
	}
	for (long r = 0; r < w->rounds; r++) {
		if (sigsetjmp(back, 1)) {
			w->caught++;
			w->sum += depth;
			continue;
		}
		depth = 0;
		w->sum += dive((uint64_t)r);
	}
	return NULL;
}

static size_t default_size(void)
{
	size_t min = (size_t)getauxval(AT_MINSIGSTKSZ);

	return (min ? min : MINSIGSTKSZ) + 2048;
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS] = { 0 };
	struct sigaction sa = { 0 };
	pthread_attr_t attr;
	long rounds = 300, n = 2, caught = 0;
	size_t alt;
	int ok = 1;

	if (argc == 2 && !strcmp(argv[1], "--min")) {
		printf("%zu %lu\n", default_size(), getauxval(AT_MINSIGSTKSZ));
		return 0;
	}
	if (argc > 1)
		rounds = strtol(argv[1], NULL, 10);
	if (argc > 2)
		n = strtol(argv[2], NULL, 10);
	alt = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : 0;
	if (!alt)
		alt = default_size();
	if (argc > 4 || rounds < 1 || rounds > 1000000 || n < 1 || n > MAX_THREADS) {
		fprintf(stderr, "usage: altstack [ROUNDS [THREADS [BYTES]]] | altstack --min\n");
		return 2;
	}
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL)) {
		perror("altstack: sigaction");
		return 2;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	for (long i = 0; i < n; i++) {
		w[i].rounds = rounds;
		w[i].alt = alt;
		if (pthread_create(&w[i].th, &attr, worker_main, &w[i])) {
			fprintf(stderr, "altstack: pthread_create failed\n");
			return 2;
		}
	}
	for (long i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		caught += w[i].caught;
		if (w[i].err || w[i].caught != rounds)
			ok = 0;
	}
	printf("altstack: %ld threads caught %ld of %ld stack overflows on %zu-byte "
	       "alternate stacks\n", n, caught, n * rounds, alt);
	return ok ? 0 : 1;
}
