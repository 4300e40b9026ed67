// SPDX-License-Identifier: GPL-2.0-only
/*
 * Follow-up samples (AGENT_TOOL_PAIRS): a short, jittered stretch of the
 * thread's CPU time after each of its samples, one more, flagged
 * SAMPLE_F_PAIR.  Two samples that close apart show how far the thread's
 * accesses moved in a known CPU time: the speed of a stream, which a
 * lone sample every few milliseconds cannot tell (its stream has wrapped
 * around its data many times in between).
 *
 * One task-clock event per thread, not inherited, opened disabled; each
 * sample enables it, and its follow-up disables it again, so its hrtimer
 * runs only in that stretch.  Not PERF_EVENT_IOC_REFRESH: an arming
 * disabled before it fired (the program's handler on its own stack) left
 * its overflow owed, and the next arming fired twice, the second time in
 * the program's handler (e2e/altstack died of it).  The
 * stretch is drawn uniformly from 1/2 to 3/2 of PAIR_NS: a fixed one
 * could fall at the same phase of a loop each time, as a fixed sampling
 * period can.
 */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/agent/agent.h"

#define PAIR_NS 300000ull /* the mean stretch; drawn from half to 3/2 of it */

int pair_open(struct agent_thread *t)
{
	struct perf_event_attr a;
	int fd;

	t->pair_fd = -1;
	t->pair_armed = t->pair_fired = 0;
	t->pair_cpu0 = t->pair_seq = t->pair_count = 0;
	if (!(agent_g.tool->flags & AGENT_TOOL_PAIRS) || agent_g.cfg.source != SRC_SOFT)
		return 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = PAIR_NS;
	a.sigtrap = 1;
	a.remove_on_exec = 1;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sig_data = SIGDATA_MAGIC | SIGDATA_PAIR;
	fd = agent_perf_open(&a, 0, -1, &t->pair_id);
	if (fd < 0)
		return fd;
	t->pair_fd = fd;
	return 0;
}

void pair_close(struct agent_thread *t)
{
	agent_perf_close(&t->pair_fd, t->pair_id);
	t->pair_armed = t->pair_fired = 0;
}

/* No follow-up of the last sample; the event's count so far is not the
 * next one's.  0, or -1 if the event could not be stopped. */
static int pair_disarm(struct agent_thread *t)
{
	uint64_t count;

	if (ioctl(t->pair_fd, PERF_EVENT_IOC_DISABLE, 0))
		return -1;
	if (read(t->pair_fd, &count, sizeof(count)) == sizeof(count))
		t->pair_count = count;
	t->pair_armed = 0;
	return 0;
}

/*
 * While the program's handler runs on its own stack (sigchain.c), as the
 * clock is paused: a follow-up would put cdt's signal frame on a stack
 * the program chose, as small as one frame (e2e/altstack died of it).
 * The sample it follows goes without.
 */
void pair_pause(struct agent_thread *t)
{
	if (t->pair_fd >= 0 && t->pair_armed)
		pair_disarm(t);
}

/* After a sample of t's clock: its follow-up, and the CPU time since the
 * last one (pair_span: what this sample stands for). */
void pair_arm(struct agent_thread *t)
{
	uint64_t p, now;

	/* Held: a sample given back as the program's handler on its own
	 * stack ends; its follow-up would come there. */
	if (t->pair_fd < 0 || t->held)
		return;
	/* Still armed a whole sampling period later: its signal was lost
	 * (one SIGTRAP pending swallows another).  Armed afresh, or there
	 * would be no follow-up again. */
	if (t->pair_armed && pair_disarm(t))
		return;
	p = clock_jitter(PAIR_NS, &t->clk.rng);
	if (ioctl(t->pair_fd, PERF_EVENT_IOC_PERIOD, &p) ||
	    ioctl(t->pair_fd, PERF_EVENT_IOC_ENABLE, 0))
		return;
	now = agent_cpu_now();
	t->pair_armed = 1;
	t->pair_len = p;
	t->pair_seq++;
	t->pair_span = t->pair_cpu0 && now > t->pair_cpu0 ? now - t->pair_cpu0 : 0;
	t->pair_cpu0 = now;
}

/*
 * A sample of t's clock (pair 0) or its follow-up (pair 1) begins.  The
 * follow-up's dt is the stretch asked for: the event counts only while
 * armed, and its count runs past the stretch by what the interrupt and
 * the signal take (12-25 us here; the thread's CPU clock, 40-50 us),
 * time in which the program did not run.  A count past 3/2 of the
 * stretch is a timer that found the thread in the kernel and waited a
 * stretch more: then the count.
 */
void pair_on_sample(struct agent_thread *t, int pair)
{
	uint64_t count = 0, d;

	t->pair_fired = pair;
	if (!pair)
		return;
	t->pair_armed = 0;
	if (ioctl(t->pair_fd, PERF_EVENT_IOC_DISABLE, 0) ||
	    read(t->pair_fd, &count, sizeof(count)) != sizeof(count))
		count = t->pair_count;
	d = count > t->pair_count ? count - t->pair_count : 0;
	t->pair_count = count;
	t->pair_dt = d > t->pair_len * 3 / 2 ? d : t->pair_len;
}
