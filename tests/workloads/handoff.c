// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program that hands work between threads, as a pipeline does, and what
 * a sample clock costs it measured apart from cdt (tests/bench/clocks.sh):
 * THREADS threads pass two tokens round a ring, each handoff after
 * CHUNK_US of arithmetic (300 iterations of a dependent multiply-add a
 * microsecond, a fixed count, so what a clock costs shows as time), so
 * every item blocks one thread and wakes another; ITEMS items in all.  Each thread has its own sample clock:
 *
 *   none    no clock
 *   perf    a task-clock sampling event with sigtrap (cdt's soft source
 *           before issue 13): an hrtimer that follows the thread, so
 *           every switch in and out cancels and starts it
 *   posix   timer_create(CLOCK_THREAD_CPUTIME_ID) with SIGEV_THREAD_ID:
 *           expiry is checked at the scheduler tick, nothing happens at
 *           a switch
 *
 * The handler only counts.  Prints one line: mode, wall s, CPU s,
 * signals taken, context switches (voluntary + involuntary).
 *
 *   handoff MODE HZ THREADS ITEMS CHUNK_US
 *
 * Under cdt, MODE is none (tests/e2e/budget.sh).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *mode;
static uint64_t period_ns;
static long items, chunk_us, chunk_iters;
static volatile long taken;
static sem_t *sem; /* one a thread */
static long nthreads;
static long left; /* items not yet worked on */
static volatile double sink;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	__atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
}

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int clock_start(void)
{
	if (!strcmp(mode, "perf")) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.sample_period = period_ns;
		a.exclude_kernel = 1;
		a.sigtrap = 1;
		a.remove_on_exec = 1;
		return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) < 0 ? -1 : 0;
	}
	if (!strcmp(mode, "posix")) {
		struct sigevent ev = { 0 };
		struct itimerspec its = { 0 };
		timer_t tm;

		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = SIGTRAP;
		ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &tm))
			return -1;
		its.it_value.tv_sec = (time_t)(period_ns / 1000000000);
		its.it_value.tv_nsec = (long)(period_ns % 1000000000);
		its.it_interval = its.it_value;
		return timer_settime(tm, 0, &its, NULL);
	}
	return 0;
}

/* A fixed amount of arithmetic, so what a clock costs shows as time. */
static void spin(long n)
{
	double x = 1;

	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

static void work(void)
{
	spin(chunk_iters);
}

/* Thread i works on a token, then passes it to thread i+1 and waits
 * for the next: every item is a handoff that blocks one thread and wakes
 * another, as in a pipeline. */
static void *worker(void *arg)
{
	long i = (long)arg;

	if (clock_start()) {
		perror("handoff: clock");
		exit(1);
	}
	for (;;) {
		while (sem_wait(&sem[i]) && errno == EINTR)
			;
		if (__atomic_fetch_sub(&left, 1, __ATOMIC_RELAXED) <= 0) {
			sem_post(&sem[(i + 1) % nthreads]);
			return NULL;
		}
		work();
		sem_post(&sem[(i + 1) % nthreads]);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { 0 };
	struct rusage ru;
	pthread_t *th;
	long hz, n;
	double w0;

	if (argc != 6) {
		fprintf(stderr, "usage: handoff none|perf|posix HZ THREADS ITEMS CHUNK_US\n");
		return 2;
	}
	mode = argv[1];
	hz = atol(argv[2]);
	n = atol(argv[3]);
	items = atol(argv[4]);
	chunk_us = atol(argv[5]);
	if (hz <= 0 || n <= 0 || items <= 0 || chunk_us <= 0)
		return 2;
	period_ns = 1000000000ull / (uint64_t)hz;
	/* A fixed count, the same in every run: about a microsecond each
	 * 300 on this project's machines. */
	chunk_iters = chunk_us * 300;
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGTRAP, &sa, NULL);
	th = calloc((size_t)n, sizeof(*th));
	if (!th)
		return 1;
	nthreads = n;
	left = items;
	sem = calloc((size_t)n, sizeof(*sem));
	if (!sem)
		return 1;
	/* Two tokens in the ring, one a core. */
	for (long i = 0; i < n; i++)
		sem_init(&sem[i], 0, i < 2);
	w0 = now(CLOCK_MONOTONIC);
	for (long i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i))
			return 1;
	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("%s wall_s=%.4f cpu_s=%.4f signals=%ld switches=%ld\n", mode,
	       now(CLOCK_MONOTONIC) - w0,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6,
	       taken, ru.ru_nvcsw + ru.ru_nivcsw);
	free(th);
	free(sem);
	return 0;
}
