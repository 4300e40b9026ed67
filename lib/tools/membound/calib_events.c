// SPDX-License-Identifier: GPL-2.0-only
/*
 * On a PMU host: each indicator event's maximal rate under the kernel
 * that stresses its level (the paper's Tables 2 and 3), the reference
 * for 100% utilization.  Counting mode on the calling thread (already
 * pinned); an uncore event, which perf cannot count per task, on the
 * calling thread's CPU (it needs perf_event_paranoid <= 0 or
 * CAP_PERFMON; a refusal skips that event with a warning).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/pmu_events.h"
#include "lib/tools/membound/calib_parts.h"
#include "lib/tools/membound/events.h"

#define MSG "cdt membound: "
#define EVENT_NS 50000000ull /* each event counts 50 ms of its kernel */

/* The level and direction whose kernel stresses each transfer role. */
static const struct {
	enum mb_role role;
	int level, write;
} calib_stress[] = {
	{ MB_R_L1_RD, MB_L1, 0 },     { MB_R_L1_WR, MB_L1, 1 },
	{ MB_R_L2_RD, MB_L2, 0 },     { MB_R_L2_WR, MB_L2, 1 },
	{ MB_R_L3_RD, MB_L3, 0 },     { MB_R_L3_WR, MB_L3, 1 },
	{ MB_R_DRAM_RD, MB_DRAM, 0 }, { MB_R_RDRAM_RD, MB_RDRAM, 0 },
};

/*
 * The events of libpfm4 PMU `pmu`, from membound's per-PMU table
 * (events.c): each term of each transfer role, under the kernel of its
 * level and direction.  A role's peak is then the sum of its terms'
 * rates (calib_peak).  The stall roles need none: they are shares of
 * cycles.
 */
size_t calib_event_specs(const char *pmu, struct calib_evspec *out, size_t max)
{
	const struct mb_event_row *row = mb_events_row(pmu);
	size_t n = 0;

	for (size_t i = 0; row && i < sizeof(calib_stress) / sizeof(calib_stress[0]); i++)
		for (int k = 0; k < MB_TERMS && row->role[calib_stress[i].role].ev[k] && n < max;
		     k++)
			out[n++] = (struct calib_evspec){ row->role[calib_stress[i].role].ev[k],
							  calib_stress[i].level,
							  calib_stress[i].write };
	return n;
}

double calib_peak(const struct calib *c, const struct mb_event_row *row, int role)
{
	double sum = 0;

	for (size_t i = 0; row && i < sizeof(calib_stress) / sizeof(calib_stress[0]); i++) {
		if ((int)calib_stress[i].role != role)
			continue;
		for (int k = 0; k < MB_TERMS && row->role[role].ev[k]; k++)
			for (size_t e = 0; e < c->nevents; e++)
				if (c->ev[e].level == calib_stress[i].level &&
				    c->ev[e].write == calib_stress[i].write &&
				    !strcmp(c->ev[e].name, row->role[role].ev[k]))
					sum += c->ev[e].rate;
	}
	return sum;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Open ev counting for this thread, or for this CPU if perf refuses a
 * per-task count (uncore PMUs).  fd or -errno. */
static int event_open(const struct agent_event *ev)
{
	struct perf_event_attr attr;
	int fd;

	events_attr(ev, &attr);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = events_perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd == -EINVAL || fd == -EOPNOTSUPP) {
		attr.exclude_kernel = 0; /* a CPU-wide uncore count has no user/kernel split */
		fd = events_perf_open(&attr, -1, sched_getcpu(), -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

int calib_events_measure(struct calib *c, const struct calib_evspec *spec, size_t n)
{
	struct calib_kern k;
	size_t bytes = 0;
	void *buf = NULL;
	int r = 0;

	calib_kern_pick(&k, 0);
	for (size_t i = 0; i < n; i++)
		if (spec[i].level >= 0 && spec[i].level < MB_NLEVELS &&
		    c->lvl[spec[i].level].work > bytes)
			bytes = c->lvl[spec[i].level].work;
	if (!bytes)
		return 0;
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		r = -errno;
		fprintf(stderr, MSG "events: allocating %zu bytes: %s\n", bytes, strerror(errno));
		buf = NULL;
		goto out;
	}
	(void)madvise(buf, bytes, MADV_HUGEPAGE);
	memset(buf, 1, bytes);
	for (size_t i = 0; i < n && c->nevents < CALIB_MAX_EVENTS; i++) {
		const struct calib_evspec *s = &spec[i];
		struct agent_event ev;
		uint64_t v[3] = { 0 }, t0, t;
		size_t work;
		char err[256];
		int fd;

		if (s->level < 0 || s->level >= MB_NLEVELS || !(work = c->lvl[s->level].work))
			continue;
		if (events_encode(s->name, 0, &ev, err, sizeof(err)) < 0) {
			fprintf(stderr, MSG "warning: %s; its rate is not measured\n", err);
			continue;
		}
		if ((fd = event_open(&ev)) < 0) {
			fprintf(stderr, MSG "warning: perf_event_open %s: %s; its rate is not measured\n",
				s->name, strerror(-fd));
			continue;
		}
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		t0 = mono_ns();
		do {
			if (s->write)
				k.wr(buf, work, 1, 7);
			else
				(void)k.rd(buf, work, 1);
		} while ((t = mono_ns() - t0) < EVENT_NS);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v) || !v[2]) {
			fprintf(stderr, MSG "warning: reading %s: %s\n", s->name,
				v[2] ? strerror(errno) : "never scheduled");
			close(fd);
			continue;
		}
		close(fd);
		/* Scaled by the time it was on the PMU, should it have shared. */
		snprintf(c->ev[c->nevents].name, sizeof(c->ev[0].name), "%s", s->name);
		c->ev[c->nevents].level = s->level;
		c->ev[c->nevents].write = !!s->write;
		c->ev[c->nevents].rate = (double)v[0] * ((double)v[1] / (double)v[2]) /
					 ((double)t / 1e9);
		c->nevents++;
	}
out:
	if (buf)
		munmap(buf, bytes);
	return r;
}

void calib_events_host(struct calib *c)
{
	struct events_host h;
	struct calib_evspec spec[CALIB_MAX_EVENTS];
	size_t n;

	events_host_detect(&h);
	if (!h.hw_pmu) {
		snprintf(c->events_why, sizeof(c->events_why), "no hardware PMU (%s)", h.hw_detail);
		fprintf(stderr, MSG "indicator event rates not measured: %s\n", c->events_why);
		return;
	}
	n = calib_event_specs(h.pmu, spec, CALIB_MAX_EVENTS);
	if (!n) {
		snprintf(c->events_why, sizeof(c->events_why),
			 "no indicator events known for PMU '%s'", h.pmu[0] ? h.pmu : "unknown");
		fprintf(stderr, MSG "indicator event rates not measured: %s\n", c->events_why);
		return;
	}
	fprintf(stderr, MSG "indicator event rates (%zu events, PMU %s)\n", n, h.pmu);
	if (calib_events_measure(c, spec, n) < 0)
		snprintf(c->events_why, sizeof(c->events_why), "measuring the events failed");
}
