// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt numa` in the target: every memory sample leaves as it is (the
 * front end maps its page to a node), the counters of a pmu host leave
 * every interval, and with --bind each thread pins itself as it starts.
 * Page faults and migrations are watched from outside by the front end
 * (faults.c): they cost the program no signal.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>

#include "lib/agent/agent.h"
#include "lib/tools/numa/numa.h"

static struct numa_params numa_p;
static atomic_uint numa_next; /* the next thread's place in bind_cpu */

static int numa_init(const void *params)
{
	numa_p = *(const struct numa_params *)params;
	if (numa_p.nbind > NUMA_BIND_MAX)
		numa_p.nbind = NUMA_BIND_MAX;
	/* A fork child numbers its own threads from its first. */
	atomic_store(&numa_next, 0);
	return 0;
}

/*
 * Threads take CPUs in the order they start running, which is the order
 * they were created when the creator waits for each (the workloads do);
 * the front end's --predict places threads by creation order the same
 * way.  A system call, so safe where thread_start runs.
 */
static void numa_thread_start(struct agent_thread *t)
{
	cpu_set_t set;
	unsigned i;
	int err;

	(void)t;
	if (numa_p.bind == NUMA_BIND_NONE || !numa_p.nbind)
		return;
	i = atomic_fetch_add(&numa_next, 1) % numa_p.nbind;
	CPU_ZERO(&set);
	CPU_SET(numa_p.bind_cpu[i], &set);
	err = sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
	if (err)
		agent_error(err, "agent: --bind cannot pin a thread to its CPU");
}

static void numa_sample(struct agent_thread *t, struct rec_sample *s)
{
	if (arena_write(&agent_g.arena, s, sizeof(*s), REC_SAMPLE))
		t->st.dropped++;
}

static void numa_counters(struct agent_thread *t, const struct agent_counts *c)
{
	struct rec_numa_counts r = { 0 };

	if (!c->n)
		return;
	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = agent_now();
	r.enabled = c->enabled;
	r.running = c->running;
	r.n = c->n < NUMA_MAX_EVENTS ? c->n : NUMA_MAX_EVENTS;
	for (uint32_t k = 0; k < r.n; k++)
		r.v[k] = c->v[k];
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_NUMA_COUNTS))
		t->st.dropped++;
}

const struct agent_tool numa_agent = {
	.init = numa_init,
	.thread_start = numa_thread_start,
	.sample = numa_sample,
	.counters = numa_counters,
};
