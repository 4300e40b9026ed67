// SPDX-License-Identifier: GPL-2.0-only
/*
 * trapstress: the states in which a trap flag left set kills a program.
 * The main thread keeps creating and joining threads (glibc blocks every
 * signal with a raw rt_sigprocmask inside pthread_create) and forking
 * children that exit at once; the workers meanwhile run libc's string
 * functions (the vectorized strcmp, strlen, memcpy, memchr), write a
 * shared line (so cdt comm arms watchpoints on it), take a SIGUSR1 whose
 * handler blocks every signal, and block every signal themselves through
 * the raw rt_sigprocmask system call, as glibc does, around some work.
 *
 *   trapstress [ROUNDS]   default 200 rounds of 2 workers each
 * Exit 0 if every check passed.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEN 4096
#define ITERS 4000

static volatile uint64_t shared[8] __attribute__((aligned(64)));
static atomic_int handled;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1); /* lock-free: async-signal-safe */
}

static void *worker(void *arg)
{
	char a[LEN], b[LEN];
	size_t sum = 0;
	uintptr_t id = (uintptr_t)arg;

	memset(a, 'x', LEN - 1);
	a[LEN - 1] = 0;
	for (int i = 0; i < ITERS; i++) {
		memcpy(b, a, LEN);
		b[(i * 37) % (LEN - 1)] = 'y';
		sum += strlen(b) + (size_t)(strcmp(a, b) > 0) +
		       (size_t)((char *)memchr(b, 'y', LEN) - b);
		shared[id & 7] += sum;
		if (i % (ITERS / 4) == 0)
			pthread_kill(pthread_self(), SIGUSR1);
		if (i % 8 == 0) {
			uint64_t all = ~0ull, old;

			syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, sizeof(all));
			sum += strlen(a);
			syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(all));
		}
	}
	return (void *)(sum ? (uintptr_t)0 : (uintptr_t)1);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 200;
	struct sigaction sa;

	if (rounds < 1 || rounds > 100000) {
		fprintf(stderr, "usage: trapstress [ROUNDS]\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	for (long r = 0; r < rounds; r++) {
		pthread_t th[2];
		void *ret;
		int st;
		pid_t pid;

		for (uintptr_t i = 0; i < 2; i++)
			if (pthread_create(&th[i], NULL, worker, (void *)(r * 2 + i)))
				return 1;
		if (r % 10 == 0) {
			pid = fork();
			if (pid == 0)
				_exit(0);
			if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
			    WEXITSTATUS(st))
				return 1;
		}
		for (int i = 0; i < 2; i++)
			if (pthread_join(th[i], &ret) || ret)
				return 1;
	}
	if (atomic_load(&handled) != rounds * 2 * 4) {
		fprintf(stderr, "trapstress: %d SIGUSR1 handled of %ld\n", atomic_load(&handled),
			rounds * 8);
		return 1;
	}
	return 0;
}
