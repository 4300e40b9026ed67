// SPDX-License-Identifier: GPL-2.0-only
/*
 * clock_rearm: what the agent's jitter (lib/agent/clock.c) adds to each
 * sample, the system calls it makes at every one, in CPU time per call
 * (tests/bench/jitter.sh runs it):
 *   perf   the thread's running task-clock event read, and
 *          PERF_EVENT_IOC_PERIOD on it, which restarts its timer;
 *   posix  the thread's CPU time read and its CPU-time POSIX timer set at
 *          an absolute time.
 * Each is timed over N calls (default 100000), in CPU time of the thread;
 * the clocks' periods are long enough that neither fires meanwhile.
 *
 *   clock_rearm [N]   prints "perf NS" and "posix NS"
 */
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double perf_cost(long n)
{
	struct perf_event_attr a;
	uint64_t p = 1000000000ull, t0, count;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = p;
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	t0 = cpu_ns();
	for (long i = 0; i < n; i++) {
		if (read(fd, &count, sizeof(count)) != sizeof(count))
			return -1;
		p = 1000000000ull + (count & 1023);
		if (ioctl(fd, PERF_EVENT_IOC_PERIOD, &p))
			return -1;
	}
	t0 = cpu_ns() - t0;
	close(fd);
	return (double)t0 / (double)n;
}

static double posix_cost(long n)
{
	struct sigevent ev;
	struct itimerspec its;
	timer_t id;
	uint64_t t0;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_NONE;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &id))
		return -1;
	t0 = cpu_ns();
	for (long i = 0; i < n; i++) {
		uint64_t at = cpu_ns() + 1000000000ull;

		its.it_value.tv_sec = (time_t)(at / 1000000000ull);
		its.it_value.tv_nsec = (long)(at % 1000000000ull);
		its.it_interval = its.it_value;
		if (timer_settime(id, TIMER_ABSTIME, &its, NULL))
			return -1;
	}
	t0 = cpu_ns() - t0;
	timer_delete(id);
	return (double)t0 / (double)n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	double pc, xc;

	if (n < 1)
		return 2;
	pc = perf_cost(n);
	xc = posix_cost(n);
	if (pc < 0)
		printf("perf unavailable\n");
	else
		printf("perf %.0f\n", pc);
	if (xc < 0)
		printf("posix unavailable\n");
	else
		printf("posix %.0f\n", xc);
	return 0;
}
