// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counting-mode events of one thread (agent_cfg.counter[]), opened by the
 * thread itself and read with the times enabled and running, so a tool
 * can take deltas between a sample and a trap; the agent also hands the
 * values to the tool every counter_interval_ns and when the thread ends.
 * Software events (task-clock, page-faults, context-switches) count
 * without a PMU.
 *
 * Hardware events form groups by agent_event.group (one group unless the
 * tool numbers more), so a group's values come from the same moments on
 * the PMU even when the kernel multiplexes it; groups that do not fit
 * the PMU together take turns, and each counter's times are its group's,
 * so a tool scales each by its own.  Software
 * events are opened alone: they never multiplex, and task-clock or
 * cpu-clock in a group with another software event makes the member read
 * 0 on Linux 6.18 (tests/unit/agent_counters.c).
 *
 * The hardware group is read with rdpmc where the kernel allows it in user
 * space (cap_user_rdpmc of each event's mmap page): no system call, a few
 * dozen cycles, under the page's sequence lock.  A member not on the PMU
 * at that moment (multiplexed out) or a kernel that does not allow it
 * sends the read to read(2) of the group, which is always right.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/agent/agent.h"
#include "lib/wire/perf_attr.h"

#define COUNT_ALONE (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define COUNT_GROUP (PERF_FORMAT_GROUP | COUNT_ALONE)

static int counters_grouped(const struct agent_event *ev)
{
	return ev->type != PERF_TYPE_SOFTWARE;
}

/* The leader of counter i's group among the counters before it, or i. */
static int counters_leader(const struct agent_thread *t, unsigned i)
{
	const struct agent_event *ev = &agent_g.cfg.counter[i];

	for (unsigned j = 0; j < i; j++)
		if (counters_grouped(&agent_g.cfg.counter[j]) &&
		    agent_g.cfg.counter[j].group == ev->group)
			return t->count_glead[j];
	return (int)i;
}

int counters_open(struct agent_thread *t)
{
	struct perf_event_attr a;
	int err = 0;

	t->count_lead = -1;
	for (unsigned i = 0; i < AGENT_MAX_COUNTERS; i++) {
		t->count_fd[i] = -1;
		t->count_page[i] = NULL;
		t->count_glead[i] = -1;
	}
	for (unsigned i = 0; i < agent_g.cfg.ncounters && !err; i++) {
		const struct agent_event *ev = &agent_g.cfg.counter[i];
		int grouped = counters_grouped(ev), fd, lead = -1;

		if (grouped) {
			lead = counters_leader(t, i);
			t->count_glead[i] = lead;
		}
		perf_attr_init(ev, &a);
		a.read_format = grouped ? COUNT_GROUP : COUNT_ALONE;
		fd = agent_perf_open(&a, 0, grouped && lead != (int)i ? t->count_fd[lead] : -1,
				     &t->count_id[i]);
		if (fd < 0) {
			err = fd;
			break;
		}
		t->count_fd[i] = fd;
		if (grouped && t->count_lead < 0)
			t->count_lead = (int)i;
		/* Without its page the group is read with read(2). */
		if (grouped) {
			void *pg = mmap(NULL, (size_t)getpagesize(), PROT_READ, MAP_SHARED, fd, 0);

			t->count_page[i] = pg == MAP_FAILED ? NULL : pg;
		}
	}
	if (err)
		counters_close(t);
	return err;
}

void counters_close(struct agent_thread *t)
{
	/* Members first: closing the leader would orphan them. */
	for (unsigned i = AGENT_MAX_COUNTERS; i-- > 0;) {
		if (t->count_page[i])
			munmap(t->count_page[i], (size_t)getpagesize());
		t->count_page[i] = NULL;
		agent_perf_close(&t->count_fd[i], t->count_id[i]);
	}
	t->count_lead = -1;
}

static uint64_t counters_rdpmc_insn(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

/*
 * One event of this thread from its mmap page, as the kernel documents it
 * (struct perf_event_mmap_page): offset plus the live counter, and the
 * times brought up to now with the TSC.  0, or -EAGAIN to read(2) instead.
 */
static int counters_rdpmc(const volatile struct perf_event_mmap_page *pc, uint64_t *value,
			  uint64_t *enabled, uint64_t *running)
{
	for (int tries = 0; tries < 4; tries++) {
		uint32_t seq = pc->lock, idx, width;
		uint64_t count, en, run;

		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		idx = pc->index;
		if (!pc->cap_user_rdpmc || !idx)
			return -EAGAIN;
		en = pc->time_enabled;
		run = pc->time_running;
		width = pc->pmc_width;
		count = counters_rdpmc_insn(idx - 1);
		if (width && width < 64) /* sign-extend the counter's width */
			count = (uint64_t)((int64_t)(count << (64 - width)) >> (64 - width));
		count += (uint64_t)pc->offset;
		if (pc->cap_user_time) {
			uint64_t cyc = __builtin_ia32_rdtsc(), shift = pc->time_shift;
			uint64_t mult = pc->time_mult, quot = cyc >> shift;
			uint64_t rem = cyc & (((uint64_t)1 << shift) - 1);
			uint64_t delta = pc->time_offset + quot * mult + ((rem * mult) >> shift);

			en += delta;
			run += delta;
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (pc->lock == seq) {
			*value = count;
			*enabled = en;
			*running = run;
			return 0;
		}
	}
	return -EAGAIN;
}

/* The hardware groups with rdpmc; 0, or -EAGAIN. */
static int counters_read_user(const struct agent_thread *t, struct agent_counts *c)
{
	unsigned n = agent_g.cfg.ncounters;
	uint64_t v[AGENT_MAX_COUNTERS], en[AGENT_MAX_COUNTERS], run[AGENT_MAX_COUNTERS];

	for (unsigned i = 0; i < n; i++) {
		if (!counters_grouped(&agent_g.cfg.counter[i]))
			continue;
		if (!t->count_page[i] || counters_rdpmc(t->count_page[i], &v[i], &en[i], &run[i]))
			return -EAGAIN;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!counters_grouped(&agent_g.cfg.counter[i]))
			continue;
		c->v[i] = v[i];
		/* Members report their leader's times, as read(2) of the group does. */
		c->en[i] = en[t->count_glead[i]];
		c->run[i] = run[t->count_glead[i]];
	}
	c->enabled = en[t->count_lead];
	c->running = run[t->count_lead];
	return 0;
}

/* The hardware group led by counter lead with read(2); 0 or -errno. */
static int counters_read_group(const struct agent_thread *t, int lead, struct agent_counts *c)
{
	/* nr, time_enabled, time_running, then a value per member. */
	uint64_t buf[3 + AGENT_MAX_COUNTERS];
	unsigned n = agent_g.cfg.ncounters, k = 0;
	ssize_t r = read(t->count_fd[lead], buf, sizeof(buf));

	if (r < 0)
		return -errno;
	if (r < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] > AGENT_MAX_COUNTERS ||
	    (size_t)r < (3 + buf[0]) * sizeof(uint64_t))
		return -EIO;
	/* Members in the order they were opened, which is counter order. */
	for (unsigned i = 0; i < n; i++)
		if (t->count_glead[i] == lead && k < buf[0]) {
			c->v[i] = buf[3 + k++];
			c->en[i] = buf[1];
			c->run[i] = buf[2];
		}
	return 0;
}

int agent_counters_read(struct agent_thread *t, struct agent_counts *c)
{
	uint64_t buf[3];
	unsigned n = agent_g.cfg.ncounters;
	int timed = 0, err;
	ssize_t r;

	c->n = 0;
	if (!n || t->count_fd[0] < 0)
		return -ENOENT;
	if (t->count_lead >= 0 && !counters_read_user(t, c)) {
		timed = 1;
	} else if (t->count_lead >= 0) {
		for (unsigned i = 0; i < n; i++)
			if (t->count_glead[i] == (int)i && (err = counters_read_group(t, (int)i, c)))
				return err;
		c->enabled = c->en[t->count_lead];
		c->running = c->run[t->count_lead];
		timed = 1;
	}
	for (unsigned i = 0; i < n; i++) {
		if (counters_grouped(&agent_g.cfg.counter[i]))
			continue;
		r = read(t->count_fd[i], buf, sizeof(buf));
		if (r < 0)
			return -errno;
		if (r != sizeof(buf))
			return -EIO;
		c->v[i] = buf[0];
		c->en[i] = buf[1];
		c->run[i] = buf[2];
		if (!timed) {
			c->enabled = buf[1];
			c->running = buf[2];
			timed = 1;
		}
	}
	c->n = n;
	return 0;
}

void counters_tick(struct agent_thread *t, uint64_t now, int final)
{
	uint64_t every = agent_g.cfg.counter_interval_ns;
	struct agent_counts c;

	if (!agent_g.tool->counters || t->count_fd[0] < 0)
		return;
	if (!final && (!every || now - t->count_time < every))
		return;
	t->count_time = now;
	if (!agent_counters_read(t, &c))
		agent_g.tool->counters(t, &c);
}
