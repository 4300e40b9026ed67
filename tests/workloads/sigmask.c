// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigmask: half of the CPU time in a signal handler that blocks every
 * signal while it runs (sigfillset(&sa.sa_mask)), half outside it.  The
 * two halves run the same loop for the same count, in two functions:
 * in_handler() and in_main().  A profiler whose SIGTRAP the handler's
 * mask blocks finds no samples in in_handler().
 *
 *   sigmask [ROUNDS]   default 800 rounds of about 0.6 ms each half
 *   sigmask --raw [ROUNDS]   first set SIGTRAP to SIG_IGN through the raw
 *                       rt_sigaction system call, past libc
 *   sigmask --readback  block every signal, then read back what it set: the
 *                       thread's mask (sigprocmask, pthread_sigmask, and in
 *                       a thread started meanwhile), a handler's sa_mask and
 *                       an SA_ONSTACK handler's disposition; prints one line
 *                       each, the same with and without a profiler
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cputime.h"

#define WORDS (1u << 14)
#define PASSES 40

static volatile uint64_t sink;
static uint64_t a[WORDS];

static inline __attribute__((always_inline)) void spin(uint64_t salt)
{
	uint64_t s = 0;

	for (unsigned p = 0; p < PASSES; p++)
		for (uint32_t i = 0; i < WORDS; i++) {
			a[(i * 40503u) & (WORDS - 1)] += (i ^ p) + salt;
			s += a[i];
		}
	sink += s;
}

/* Different salts, so that the compiler cannot fold the two into one. */
static __attribute__((noinline)) void in_handler(void)
{
	spin(1);
}

static __attribute__((noinline)) void in_main(void)
{
	spin(2);
}

/* CPU time in each half: the same loop, but not the same speed on every
 * CPU (code alignment: 0.57 to 0.58 of it in in_handler on a Cascade
 * Lake guest). */
static double t_handler, t_main;

static void on_usr1(int sig)
{
	double t0 = cputime_now();

	(void)sig;
	in_handler();
	t_handler += cputime_now() - t0;
}

/* The kernel's struct sigaction, for the raw system call. */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/* Which signals of 1..64 set holds, as 16 hex digits (bit n-1 for n). */
static void show(const char *what, const sigset_t *set)
{
	uint64_t bits = 0;

	for (int s = 1; s <= 64; s++)
		if (sigismember(set, s) == 1)
			bits |= 1ull << (s - 1);
	printf("%s %016llx SIGTRAP %d\n", what, (unsigned long long)bits,
	       sigismember(set, SIGTRAP));
}

static void *readback_thread(void *p)
{
	sigset_t cur;

	(void)p;
	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	show("new thread:", &cur);
	return NULL;
}

static void on_usr2(int sig)
{
	(void)sig;
}

static int readback(void)
{
	struct sigaction sa, cur;
	sigset_t all, got;
	pthread_t th;

	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, NULL))
		return 1;
	sigprocmask(SIG_SETMASK, NULL, &got);
	show("sigprocmask:", &got);
	pthread_sigmask(SIG_BLOCK, NULL, &got);
	show("pthread_sigmask:", &got);
	if (pthread_create(&th, NULL, readback_thread, NULL))
		return 1;
	pthread_join(th, NULL);
	sigemptyset(&all);
	sigaddset(&all, SIGTRAP);
	sigprocmask(SIG_UNBLOCK, &all, &got);
	show("before unblocking SIGTRAP:", &got);
	sigprocmask(SIG_SETMASK, NULL, &got);
	show("after:", &got);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL) || sigaction(SIGUSR2, NULL, &cur))
		return 1;
	show("sa_mask:", &cur.sa_mask);
	printf("SA_ONSTACK handler: %s, flags %#x\n", cur.sa_handler == on_usr2 ? "the same" : "another",
	       (unsigned)(cur.sa_flags & (SA_ONSTACK | SA_RESTART | SA_SIGINFO)));
	return 0;
}

int main(int argc, char **argv)
{
	int raw = argc > 1 && !strcmp(argv[1], "--raw");

	if (argc == 2 && !strcmp(argv[1], "--readback"))
		return readback();
	long rounds = argc > 1 + raw ? strtol(argv[1 + raw], NULL, 10) : 800;
	struct ksigaction ign = { .handler = SIG_IGN };
	struct sigaction sa;

	if (rounds < 1 || rounds > 1000000) {
		fprintf(stderr, "usage: sigmask [--raw] [ROUNDS]\n");
		return 2;
	}
	if (raw && syscall(SYS_rt_sigaction, SIGTRAP, &ign, NULL, sizeof(ign.mask)))
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	for (long r = 0; r < rounds; r++) {
		double t0;

		raise(SIGUSR1);
		t0 = cputime_now();
		in_main();
		t_main += cputime_now() - t0;
	}
	fprintf(stderr, "sigmask: in_handler's share of the CPU time %.4f\n",
		t_handler / (t_handler + t_main));
	return 0;
}
