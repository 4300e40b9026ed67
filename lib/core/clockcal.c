// SPDX-License-Identifier: GPL-2.0-only
/*
 * Measuring what a sample costs beyond the handler (clockcal.h).  Each
 * figure is the median of several short trials, each the difference of
 * CPU time between the same work with and without the thing measured, so
 * what the rest of the machine does falls out of it:
 *   - the tick: a POSIX CPU timer far faster than any tick fires once a
 *     tick; the lower quartile of the wall times between its signals (a
 *     thread that lost its CPU meanwhile sees several ticks);
 *   - a POSIX clock's sample: a signal sent to the thread itself and
 *     delivered (the tick's interrupt is there with or without it);
 *   - a perf clock's sample: a fixed loop with and without a task-clock
 *     event at 20 kHz, per sample taken;
 *   - a switch: two threads on one CPU pass a byte back and forth through
 *     pipes, with and without a task-clock event at 2 kHz in each (its
 *     samples taken out), per context switch of a thread.
 * SIGTRAP is the agent's signal, so it is the one measured; the front
 * end's own action for it is put back after.
 */
#include "lib/core/clockcal.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/cache.h"
#include "lib/core/hash.h"
#include "lib/wire/perf_attr.h"

#define CAL_TRIALS 5
#define CAL_SIGNALS 1000     /* signals a POSIX-clock trial sends */
#define CAL_PERF_PERIOD 50000ull
#define CAL_SWITCH_PERIOD 500000ull
#define CAL_ROUNDS 500       /* round trips of a switch trial */
#define CAL_LOOP_NS 4000000ull
#define CAL_TICKS 16

static volatile sig_atomic_t cal_signals;
static volatile uint64_t cal_sink;

static void cal_on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	cal_signals++;
}

static uint64_t cal_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cal_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cal_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

static void cal_loop(uint64_t iters)
{
	uint64_t x = cal_sink;

	for (uint64_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	cal_sink = x;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* A task-clock sampling event of the calling thread, as the agent opens it. */
static int cal_perf_open(uint64_t period)
{
	struct agent_event ev = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
				  .period = period };
	struct perf_event_attr a;

	perf_attr_init(&ev, &a);
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int cal_tick(uint64_t *tick)
{
	struct sigevent ev;
	struct itimerspec its = { { 0, 100000 }, { 0, 100000 } };
	uint64_t t0, gap[CAL_TICKS];
	size_t n = 0;
	int id, r = 0;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGTRAP;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (syscall(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, &ev, &id))
		return -errno;
	cal_signals = 0;
	if (syscall(SYS_timer_settime, id, 0, &its, NULL)) {
		r = -errno;
		goto out;
	}
	/* The wall time between signals: a tick, or several when the thread
	 * lost the CPU meanwhile. */
	t0 = cal_now();
	for (sig_atomic_t seen = cal_signals; n < CAL_TICKS && cal_now() - t0 < 1000000000ull;) {
		cal_loop(100);
		if (cal_signals != seen) {
			uint64_t now = cal_now();

			if (seen)
				gap[n++] = now - t0;
			seen = cal_signals;
			t0 = now;
		}
	}
	if (n < CAL_TICKS / 2) {
		r = -EIO;
		goto out;
	}
	qsort(gap, n, sizeof(*gap), cmp_u64);
	*tick = gap[n / 4];
out:
	syscall(SYS_timer_delete, id);
	return r;
}

static void cal_posix(uint64_t *sig)
{
	uint64_t v[CAL_TRIALS];
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);

	for (int k = 0; k < CAL_TRIALS; k++) {
		uint64_t t0 = cal_cpu();

		for (int i = 0; i < CAL_SIGNALS; i++)
			syscall(SYS_tgkill, pid, tid, SIGTRAP);
		v[k] = (cal_cpu() - t0) / CAL_SIGNALS;
	}
	*sig = median(v, CAL_TRIALS);
}

static int cal_perf(uint64_t *sig)
{
	uint64_t v[CAL_TRIALS], iters = 0, t0;

	/* The loop for CAL_LOOP_NS of CPU. */
	t0 = cal_cpu();
	while (cal_cpu() - t0 < CAL_LOOP_NS / 4) {
		cal_loop(10000);
		iters += 10000;
	}
	iters *= 4;
	for (int k = 0; k < CAL_TRIALS; k++) {
		uint64_t plain, with;
		int fd;

		t0 = cal_cpu();
		cal_loop(iters);
		plain = cal_cpu() - t0;
		if ((fd = cal_perf_open(CAL_PERF_PERIOD)) < 0)
			return -errno;
		cal_signals = 0;
		t0 = cal_cpu();
		cal_loop(iters);
		with = cal_cpu() - t0;
		close(fd);
		v[k] = cal_signals && with > plain ? (with - plain) / (uint64_t)cal_signals : 0;
	}
	*sig = median(v, CAL_TRIALS);
	return 0;
}

struct cal_pong {
	int in, out;     /* read a byte here, write it there */
	int perf;        /* open a task-clock event */
	int err;
	uint64_t cpu, switches;
};

static void *cal_pong_run(void *arg)
{
	struct cal_pong *p = arg;
	uint64_t cpu0 = cal_cpu(), sw0 = cal_switches();
	int fd = -1;
	char b = 0;

	if (p->perf && (fd = cal_perf_open(CAL_SWITCH_PERIOD)) < 0) {
		p->err = -errno;
		/* The partner waits for its byte: it still gets them. */
	}
	for (int i = 0; i < CAL_ROUNDS; i++)
		if (read(p->in, &b, 1) != 1 || write(p->out, &b, 1) != 1) {
			p->err = -EIO;
			break;
		}
	if (fd >= 0)
		close(fd);
	p->cpu = cal_cpu() - cpu0;
	p->switches = cal_switches() - sw0;
	return NULL;
}

/* One trial: CPU ns, switches and samples of both threads. */
static int cal_pingpong(int perf, uint64_t *cpu, uint64_t *switches, uint64_t *samples)
{
	struct cal_pong p[2] = { { 0 } };
	int ab[2] = { -1, -1 }, ba[2] = { -1, -1 }, r = 0, started = 0;
	pthread_t th[2];
	pthread_attr_t attr;
	cpu_set_t one;
	char go = 0;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	if (pthread_attr_init(&attr))
		return -ENOMEM;
	if (pipe(ab) || pipe(ba)) {
		r = -errno;
		goto out;
	}
	/* Both on one CPU: each byte passed is a switch. */
	pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	p[0] = (struct cal_pong){ .in = ba[0], .out = ab[1], .perf = perf };
	p[1] = (struct cal_pong){ .in = ab[0], .out = ba[1], .perf = perf };
	cal_signals = 0;
	for (; started < 2; started++)
		if ((r = -pthread_create(&th[started], &attr, cal_pong_run, &p[started])))
			break;
	if (!r && write(ba[1], &go, 1) != 1)
		r = -EIO;
	if (r) { /* a thread that started ends with its pipe */
		close(ab[1]);
		close(ba[1]);
		ab[1] = ba[1] = -1;
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (!r)
		r = p[0].err ? p[0].err : p[1].err;
	*cpu = p[0].cpu + p[1].cpu;
	*switches = p[0].switches + p[1].switches;
	*samples = (uint64_t)cal_signals;
out:
	for (int i = 0; i < 2; i++) {
		if (ab[i] >= 0)
			close(ab[i]);
		if (ba[i] >= 0)
			close(ba[i]);
	}
	pthread_attr_destroy(&attr);
	return r;
}

static int cal_switch(uint64_t perf_sig, uint64_t *sw)
{
	uint64_t v[CAL_TRIALS];

	for (int k = 0; k < CAL_TRIALS; k++) {
		uint64_t plain, with, s0, s1, n0, n1;
		int r;

		if ((r = cal_pingpong(0, &plain, &s0, &n0)) ||
		    (r = cal_pingpong(1, &with, &s1, &n1)))
			return r;
		with = with > n1 * perf_sig ? with - n1 * perf_sig : 0;
		v[k] = s1 && with > plain ? (with - plain) / s1 : 0;
	}
	*sw = median(v, CAL_TRIALS);
	return 0;
}

int clockcal_measure(struct clockcal *c)
{
	struct sigaction sa, old;
	int r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = cal_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old))
		return -errno;
	memset(c, 0, sizeof(*c));
	if (!(r = cal_tick(&c->tick_ns)) && !(r = cal_perf(&c->perf_sig_ns))) {
		cal_posix(&c->posix_sig_ns);
		r = cal_switch(c->perf_sig_ns, &c->switch_ns);
	}
	sigaction(SIGTRAP, &old, NULL);
	return r;
}

/* The key: the kernel and the CPU, which the costs are of. */
static uint64_t clockcal_key(void)
{
	char text[1024] = "", line[512];
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t n;

	if (!uname(&u))
		snprintf(text, sizeof(text), "%s %s %s %ld ", u.release, u.version, u.machine,
			 sysconf(_SC_NPROCESSORS_ONLN));
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10)) {
			n = strlen(text);
			snprintf(text + n, sizeof(text) - n, "%s", line);
			break;
		}
	if (f)
		fclose(f);
	return hash_bytes(text, strlen(text));
}

int clockcal_path(char *buf, size_t len)
{
	char name[64];

	snprintf(name, sizeof(name), "clock-%016" PRIx64 ".txt", clockcal_key());
	return cache_path(name, buf, len);
}

struct clockcal_file {
	const struct clockcal *c;
	uint64_t key;
	int64_t when;
};

static int clockcal_write(FILE *f, const void *arg)
{
	const struct clockcal_file *w = arg;

	fprintf(f, "# cdt: what a sample costs on this machine beyond its handler (ns)\n"
		"key %016" PRIx64 "\nwhen %" PRId64 "\ntick_ns %" PRIu64 "\nperf_sig_ns %" PRIu64
		"\nposix_sig_ns %" PRIu64 "\nswitch_ns %" PRIu64 "\n", w->key, w->when,
		w->c->tick_ns, w->c->perf_sig_ns, w->c->posix_sig_ns, w->c->switch_ns);
	return ferror(f) ? -EIO : 0;
}

int clockcal_parse(const char *text, int64_t now, struct clockcal *c)
{
	struct {
		const char *name;
		uint64_t *v, max;
	} f[] = {
		{ "tick_ns", &c->tick_ns, 1000000000ull },
		{ "perf_sig_ns", &c->perf_sig_ns, 100000000ull },
		{ "posix_sig_ns", &c->posix_sig_ns, 100000000ull },
		{ "switch_ns", &c->switch_ns, 100000000ull },
	};
	unsigned seen = 0;
	uint64_t key = 0;
	int64_t when = -1;
	char name[32], *end;
	unsigned long long v;
	int used;

	memset(c, 0, sizeof(*c));
	for (const char *s = text; *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s)) {
		if (*s == '#' || *s == '\n')
			continue;
		if (sscanf(s, "%31s %n", name, &used) != 1)
			return -EINVAL;
		/* One number to the end of the line, nothing else. */
		errno = 0;
		v = strtoull(s + used, &end, strcmp(name, "key") ? 10 : 16);
		if (errno || end == s + used || (*end && *end != '\n') || s[used] == '-' ||
		    s[used] == '+' || s[used] == ' ')
			return -EINVAL;
		if (!strcmp(name, "key")) {
			key = v;
			continue;
		}
		if (!strcmp(name, "when")) {
			when = v > (unsigned long long)INT64_MAX ? -1 : (int64_t)v;
			continue;
		}
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (!strcmp(name, f[i].name)) {
				if (v > f[i].max)
					return -EINVAL;
				*f[i].v = v;
				seen |= 1u << i;
			}
	}
	if (seen != 0xf || !c->tick_ns || key != clockcal_key() || when < 0 ||
	    when > now + 86400 || now - when > CLOCKCAL_MAX_AGE)
		return -EINVAL;
	return 0;
}

static int clockcal_load(const char *path, struct clockcal *c)
{
	char text[1024];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return clockcal_parse(text, (int64_t)time(NULL), c);
}

int clockcal_get(struct clockcal *c, FILE *say, int *measured)
{
	struct clockcal_file w = { c, clockcal_key(), (int64_t)time(NULL) };
	char path[4096];
	int have_path = clockcal_path(path, sizeof(path)) == 0, r;

	*measured = 0;
	if (have_path && clockcal_load(path, c) == 0)
		return 0;
	if (say)
		fprintf(say, "cdt: measuring what a sample costs on this machine (once, about half "
			"a second; kept in %s)\n", have_path ? path : "no cache: set HOME");
	if ((r = clockcal_measure(c)))
		return r;
	*measured = 1;
	if (have_path)
		cache_save(path, clockcal_write, &w, "cdt: keeping the sample clock's calibration: ");
	return 0;
}

void clockcal_to_cfg(const struct clockcal *c, struct agent_clock *k)
{
	k->tick_ns = c->tick_ns;
	k->perf_sig_ns = c->perf_sig_ns;
	k->posix_sig_ns = c->posix_sig_ns;
	k->switch_ns = c->switch_ns;
}
