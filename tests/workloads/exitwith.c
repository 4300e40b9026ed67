// SPDX-License-Identifier: GPL-2.0-only
/*
 * exitwith: end in a chosen way after some memory work (about 50 ms), for
 * exit-status propagation tests.
 *
 *   exitwith CODE         exit(CODE), CODE 0..255
 *   exitwith --signal N   start a worker thread (still running), then kill
 *                         the whole process with signal N (default action)
 *   exitwith --segv       dereference a null pointer: SIGSEGV
 *   exitwith --on-int CODE  handle SIGINT (whatever it inherited), say
 *                         "ready" on stdout, work until a SIGINT comes,
 *                         then exit(CODE) by itself
 *
 * Core dumps are disabled first so crashing leaves no core file behind.
 * Exit status 3 means the signal did not kill it; 2 is bad usage.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define WORDS (1u << 16)

static volatile uint64_t sink;

static void work(unsigned rounds)
{
	static uint64_t a[WORDS];
	uint64_t sum = 0;

	for (unsigned r = 0; r < rounds; r++)
		for (uint32_t i = 0; i < WORDS; i++) {
			a[(i * 40503u) & (WORDS - 1)] += i ^ r;
			sum += a[i];
		}
	sink = sum;
}

static void *spin(void *arg)
{
	(void)arg;
	for (;;)
		work(1);
	return NULL;
}

static int die_of(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t set;
	pthread_t th;
	int err;

	if (sig < 1 || sig >= SIGRTMIN || sig == SIGSTOP || sig == SIGTSTP ||
	    sig == SIGTTIN || sig == SIGTTOU) {
		fprintf(stderr, "exitwith: signal %d does not end a process by default\n", sig);
		return 2;
	}
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	err = pthread_create(&th, NULL, spin, NULL);
	if (err) {
		fprintf(stderr, "exitwith: pthread_create: %s\n", strerror(err));
		return 2;
	}
	work(750);
	kill(getpid(), sig);
	/* Signals whose default action is to ignore land here. */
	sleep(2);
	fprintf(stderr, "exitwith: still alive after signal %d\n", sig);
	return 3;
}

static volatile sig_atomic_t got_int;

static void on_int(int sig)
{
	(void)sig;
	got_int = 1;
}

static int exit_on_int(int code)
{
	struct sigaction sa = { .sa_handler = on_int };

	if (sigaction(SIGINT, &sa, NULL))
		return 2;
	printf("ready\n");
	fflush(stdout);
	while (!got_int)
		work(1);
	return code;
}

int main(int argc, char **argv)
{
	struct rlimit nocore = { 0, 0 };
	char *end;
	long v;

	setrlimit(RLIMIT_CORE, &nocore);
	if (argc == 2 && !strcmp(argv[1], "--segv")) {
		volatile int *volatile null = NULL; /* nor may the compiler drop the store */

		work(1500);
		*null = 0;
		return 3;
	}
	if (argc == 3 && !strcmp(argv[1], "--signal")) {
		v = strtol(argv[2], &end, 10);
		return *end ? 2 : die_of((int)v);
	}
	if (argc == 3 && !strcmp(argv[1], "--on-int")) {
		v = strtol(argv[2], &end, 10);
		return *end || v < 0 || v > 255 ? 2 : exit_on_int((int)v);
	}
	if (argc != 2) {
		fprintf(stderr, "usage: exitwith CODE | --signal N | --segv | --on-int CODE\n");
		return 2;
	}
	v = strtol(argv[1], &end, 10);
	if (*end || v < 0 || v > 255) {
		fprintf(stderr, "exitwith: CODE must be 0..255\n");
		return 2;
	}
	work(1500);
	return (int)v;
}
