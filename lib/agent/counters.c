// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counting-mode events of one thread (agent_cfg.counter[]): one perf group
 * opened by the thread itself, read in one read() with the times enabled
 * and running, so a tool can take deltas between a sample and a trap, and
 * the agent hands the values to the tool every counter_interval_ns and
 * when the thread ends.  Software events (task-clock, page-faults,
 * context-switches) count without a PMU.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/agent/agent.h"

#define COUNT_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		      PERF_FORMAT_TOTAL_TIME_RUNNING)

int counters_open(struct agent_thread *t)
{
	struct perf_event_attr a;
	int err = 0;

	for (unsigned i = 0; i < AGENT_MAX_COUNTERS; i++)
		t->count_fd[i] = -1;
	for (unsigned i = 0; i < agent_g.cfg.ncounters && !err; i++) {
		const struct agent_event *ev = &agent_g.cfg.counter[i];
		int fd;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = ev->type;
		a.config = ev->config;
		a.config1 = ev->config1;
		a.config2 = ev->config2;
		a.read_format = COUNT_FORMAT;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? t->count_fd[0] : -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			err = -errno;
		else
			t->count_fd[i] = fd;
	}
	if (err)
		counters_close(t);
	return err;
}

void counters_close(struct agent_thread *t)
{
	/* Members first: closing the leader would orphan them. */
	for (unsigned i = AGENT_MAX_COUNTERS; i-- > 0;) {
		if (t->count_fd[i] >= 0)
			close(t->count_fd[i]);
		t->count_fd[i] = -1;
	}
}

int agent_counters_read(struct agent_thread *t, struct agent_counts *c)
{
	/* nr, time_enabled, time_running, then a value per member. */
	uint64_t buf[3 + AGENT_MAX_COUNTERS];
	ssize_t n;

	c->n = 0;
	if (!agent_g.cfg.ncounters || t->count_fd[0] < 0)
		return -ENOENT;
	n = read(t->count_fd[0], buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if (n < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] > AGENT_MAX_COUNTERS ||
	    (size_t)n < (3 + buf[0]) * sizeof(uint64_t))
		return -EIO;
	c->n = (uint32_t)buf[0];
	c->enabled = buf[1];
	c->running = buf[2];
	memcpy(c->v, buf + 3, c->n * sizeof(uint64_t));
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
