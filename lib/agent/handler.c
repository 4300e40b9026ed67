// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one SIGTRAP handler.  It tells the agent's traps from the program's
 * by si_code and the tag in si_perf_data, and passes the rest on.
 * Async-signal-safe: it only decodes, reads perf rings and appends records.
 */
#include <errno.h>

#include "lib/agent/agent.h"

#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif

void agent_on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
	struct agent_thread *t = agent_self;
	ucontext_t *uc = ucv;
	int saved = errno;

	if (si->si_code == TRAP_PERF) {
		uint64_t data = agent_si_perf_data(si), now;

		if ((data & SIGDATA_MASK) != SIGDATA_MAGIC)
			goto chain;
		/* A trap for a thread whose slot is gone: nothing to do. */
		if (!t || t->tid != gettid())
			goto out;
		now = agent_now();
		if ((data & SIGDATA_KIND_MASK) == SIGDATA_WPT)
			wpt_on_trap(t, (int)(data & SIGDATA_INDEX_MASK), si, uc, now);
		else if (agent_quiet)
			t->st.samples++;
		else if (agent_g.cfg.source == SRC_SOFT)
			soft_on_sample(t, uc, now);
		else
			pmu_on_sample(t, (int)(data & SIGDATA_INDEX_MASK), now);
		agent_thread_tick(t, now);
		counters_tick(t, now, 0);
		/* A trap while the thread single-steps returns to a set trap
		 * flag (soft_try says why it must not meet a system call). */
		if (soft_stepping())
			soft_guard(t, uc);
		goto out;
	}
	if (si->si_code == TRAP_TRACE && soft_stepping()) {
		soft_on_step(t, uc);
		goto out;
	}
chain:
	sigchain_forward(sig, si, ucv);
out:
	errno = saved;
}
