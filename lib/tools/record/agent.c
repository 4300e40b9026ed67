// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt record`: every sample and trap becomes a record.  With --watch,
 * each thread arms debug register 0 on the watched variable or function
 * when it starts.
 */
#include <link.h>

#include "lib/agent/agent.h"
#include "lib/tools/record/record.h"

static struct record_params record_p;

static int record_init(const void *params)
{
	record_p = *(const struct record_params *)params;
	return 0;
}

static uint64_t tool_exe_bias(void)
{
	uint64_t bias = 0;
	struct link_map *lm = _r_debug.r_map;

	if (lm)
		bias = lm->l_addr; /* the first link map entry is the program */
	return bias;
}

static void record_thread_start(struct agent_thread *t)
{
	uint64_t addr = record_p.watch_addr;
	int err;

	if (!record_p.watch_type)
		return;
	if (record_p.watch_flags & WATCH_F_EXE_RELATIVE)
		addr += tool_exe_bias();
	err = wpt_arm(&t->wp, 0, addr, record_p.watch_len, (enum wpt_type)record_p.watch_type,
		      addr);
	if (err)
		agent_error(-err, "agent: cannot arm the --watch watchpoint in a thread");
}

static void record_sample(struct agent_thread *t, struct rec_sample *s)
{
	if (arena_write(&agent_g.arena, s, sizeof(*s), REC_SAMPLE))
		t->st.dropped++;
}

static void record_trap(struct agent_thread *t, struct rec_trap *tr, ucontext_t *uc)
{
	(void)uc;
	if (tr->flags & TRAP_F_LATE)
		return;
	if (arena_write(&agent_g.arena, tr, sizeof(*tr), REC_TRAP))
		t->st.dropped++;
}

const struct agent_tool record_agent = {
	.init = record_init,
	.thread_start = record_thread_start,
	.sample = record_sample,
	.trap = record_trap,
};
