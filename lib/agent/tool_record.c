// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt record`: every sample and trap becomes a record.  With --watch,
 * each thread arms debug register 0 on the watched variable or function
 * when it starts.
 */
#include <link.h>

#include "agent.h"

static uint64_t tool_exe_bias(void)
{
	uint64_t bias = 0;
	struct link_map *lm = _r_debug.r_map;

	if (lm)
		bias = lm->l_addr; /* the first link map entry is the program */
	return bias;
}

void record_thread_start(struct agent_thread *t)
{
	const uint64_t *p = agent_g.cfg.tool_param;
	uint64_t addr = p[RECORD_P_WATCH_ADDR];
	int err;

	if (!p[RECORD_P_WATCH_TYPE])
		return;
	if (p[RECORD_P_WATCH_FLAGS] & WATCH_F_EXE_RELATIVE)
		addr += tool_exe_bias();
	err = wpt_arm(&t->wp, 0, addr, (unsigned)p[RECORD_P_WATCH_LEN],
		      (enum wpt_type)p[RECORD_P_WATCH_TYPE], addr);
	if (err)
		agent_error(-err, "agent: cannot arm the --watch watchpoint in a thread");
}

void record_sample(struct agent_thread *t, struct rec_sample *s)
{
	if (arena_write(&agent_g.arena, s, sizeof(*s), REC_SAMPLE))
		t->st.dropped++;
}

void record_trap(struct agent_thread *t, struct rec_trap *tr)
{
	if (arena_write(&agent_g.arena, tr, sizeof(*tr), REC_TRAP))
		t->st.dropped++;
}
