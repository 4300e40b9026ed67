// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counting-mode events of one thread (agent_cfg.counter[]), opened by the
 * thread itself and read with the times enabled and running, so a tool
 * can take deltas between a sample and a trap; the agent also hands the
 * values to the tool every counter_interval_ns and when the thread ends.
 * Software events (task-clock, page-faults, context-switches) count
 * without a PMU.
 *
 * Hardware events form one group, so their values come from the same
 * moments on the PMU even when the kernel multiplexes it.  Software
 * events are opened alone: they never multiplex, and task-clock or
 * cpu-clock in a group with another software event makes the member read
 * 0 on Linux 6.18 (tests/unit/agent_counters.c).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
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

int counters_open(struct agent_thread *t)
{
	struct perf_event_attr a;
	int err = 0;

	t->count_lead = -1;
	for (unsigned i = 0; i < AGENT_MAX_COUNTERS; i++)
		t->count_fd[i] = -1;
	for (unsigned i = 0; i < agent_g.cfg.ncounters && !err; i++) {
		const struct agent_event *ev = &agent_g.cfg.counter[i];
		int grouped = counters_grouped(ev), fd;

		perf_attr_init(ev, &a);
		a.read_format = grouped ? COUNT_GROUP : COUNT_ALONE;
		fd = agent_perf_open(&a, 0, grouped && t->count_lead >= 0 ?
					    t->count_fd[t->count_lead] : -1, &t->count_id[i]);
		if (fd < 0) {
			err = fd;
			break;
		}
		t->count_fd[i] = fd;
		if (grouped && t->count_lead < 0)
			t->count_lead = (int)i;
	}
	if (err)
		counters_close(t);
	return err;
}

void counters_close(struct agent_thread *t)
{
	/* Members first: closing the leader would orphan them. */
	for (unsigned i = AGENT_MAX_COUNTERS; i-- > 0;)
		agent_perf_close(&t->count_fd[i], t->count_id[i]);
	t->count_lead = -1;
}

int agent_counters_read(struct agent_thread *t, struct agent_counts *c)
{
	/* nr, time_enabled, time_running, then a value per member; alone:
	 * value, time_enabled, time_running. */
	uint64_t buf[3 + AGENT_MAX_COUNTERS];
	unsigned n = agent_g.cfg.ncounters, k = 0;
	int timed = 0;
	ssize_t r;

	c->n = 0;
	if (!n || t->count_fd[0] < 0)
		return -ENOENT;
	if (t->count_lead >= 0) {
		r = read(t->count_fd[t->count_lead], buf, sizeof(buf));
		if (r < 0)
			return -errno;
		if (r < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] > AGENT_MAX_COUNTERS ||
		    (size_t)r < (3 + buf[0]) * sizeof(uint64_t))
			return -EIO;
		c->enabled = buf[1];
		c->running = buf[2];
		timed = 1;
		for (unsigned i = 0; i < n; i++)
			if (counters_grouped(&agent_g.cfg.counter[i]) && k < buf[0])
				c->v[i] = buf[3 + k++];
	}
	for (unsigned i = 0; i < n; i++) {
		if (counters_grouped(&agent_g.cfg.counter[i]))
			continue;
		r = read(t->count_fd[i], buf, 3 * sizeof(uint64_t));
		if (r < 0)
			return -errno;
		if (r != 3 * sizeof(uint64_t))
			return -EIO;
		c->v[i] = buf[0];
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
