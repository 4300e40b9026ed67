// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one SIGTRAP handler.  It tells the agent's traps from the program's
 * by si_code and the tag in si_perf_data, and passes the rest on.
 * Async-signal-safe: it only decodes, reads perf rings and appends records.
 */
#include <errno.h>
#include <unistd.h>

#include "lib/agent/agent.h"

#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif

/*
 * A debug exception whose DR6 names no cause is taken by the kernel for an
 * int1 instruction, and forced on the thread as TRAP_BRKPT.  Under load,
 * this KVM guest now and then loses DR6 between a trap and the guest's
 * handler: a single step or a watchpoint hit of cdt's then arrives like
 * that (the cores of four killed runs showed it, each at the instruction
 * after a step or a watched access).  It is cdt's if cdt steps the thread
 * or has a debug register armed on it, and the program did not just
 * execute int1 (0xf1).
 */
static int handler_lost_cause(struct agent_thread *t, const ucontext_t *uc)
{
	uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t page = (uint64_t)getpagesize();
	unsigned char prev;

	if (!t || t->tid != gettid() || (!soft_stepping() && !wpt_armed(&t->wp)))
		return 0;
	return agent_read_code(ip - 1, &prev, 1, (ip & (page - 1)) != 0) == 1 && prev != 0xf1;
}

void agent_on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
	struct agent_thread *t = agent_self;
	ucontext_t *uc = ucv;
	int saved = errno;

	/* A perf event's, or the POSIX sample clock's (clock.c). */
	if (si->si_code == TRAP_PERF || si->si_code == SI_TIMER) {
		uint64_t data, now, cpu0 = 0, govern = 0;
		int kind;

		data = si->si_code == TRAP_PERF ? agent_si_perf_data(si) :
		       (uint64_t)(uintptr_t)si->si_value.sival_ptr;

		if ((data & SIGDATA_MASK) != SIGDATA_MAGIC)
			goto chain;
		/* A trap for a thread whose slot is gone: nothing to do. */
		if (!t || t->tid != gettid())
			goto out;
		now = agent_now();
		kind = (data & SIGDATA_KIND_MASK) == SIGDATA_WPT;
		/* The governor reads the CPU clock at every sample: a thread
		 * that switches often must leave the perf clock within ms. */
		if (!kind && agent_g.cfg.clock.budget_ppm)
			govern = agent_cpu_now();
		if (++t->cost_tick[kind] % AGENT_COST_EVERY == 0)
			cpu0 = govern ? govern : agent_cpu_now();
		if (!kind && si->si_code == SI_TIMER)
			t->ext.posix_n++;
		/* Raised while SIGTRAP was blocked (a raw system call the
		 * interposed masks did not see), so delivered away from the
		 * instruction that caused it: its registers describe nothing. */
		if (si->si_code == TRAP_PERF && (agent_si_perf_flags(si) & TRAP_PERF_FLAG_ASYNC)) {
			t->ext.async++;
		} else if (kind) {
			wpt_on_trap(t, (int)(data & SIGDATA_INDEX_MASK), si, uc, now);
		} else if (si->si_code == SI_TIMER && clock_in_syscall(uc)) {
			t->st.samples++;
			t->ext.in_syscall++;
		} else if (agent_quiet ||
			   agent_own_addr((uint64_t)uc->uc_mcontext.gregs[REG_RIP])) {
			t->st.samples++; /* cdt's own work: counted, not the program's */
			t->ext.own++;
		} else if (agent_g.tool->tick) {
			t->st.samples++;
			agent_g.tool->tick(t, uc, now);
			t->st.handler_ns += agent_now() - now;
		} else if (agent_g.cfg.source == SRC_SOFT) {
			soft_on_sample(t, uc, now, cpu0);
			cpu0 = 0; /* the walk, steps included, times itself */
		} else {
			pmu_on_sample(t, (int)(data & SIGDATA_INDEX_MASK), now);
		}
		if (cpu0 && kind) {
			t->ext.trap_cpu_ns += agent_cpu_now() - cpu0;
			t->ext.trap_cpu_n++;
		} else if (cpu0) {
			t->ext.sample_cpu_ns += agent_cpu_now() - cpu0;
			t->ext.sample_cpu_n++;
		}
		if (govern)
			clock_govern(t, govern);
		agent_thread_tick(t, now);
		counters_tick(t, now, 0);
		/* A trap while the thread single-steps returns to a set trap
		 * flag (soft_try says why it must not meet a system call). */
		if (soft_stepping())
			soft_guard(t, uc);
		goto out;
	}
	if (si->si_code == TRAP_BRKPT && handler_lost_cause(t, uc)) {
		if (soft_stepping())
			soft_on_step(t, uc);
		else
			t->ext.stray++;
		goto out;
	}
	if (si->si_code == TRAP_TRACE && soft_stepping()) {
		soft_on_step(t, uc);
		goto out;
	}
	/*
	 * A step trap past cdt's stepping: a handler of the program ran while
	 * the thread stepped (the kernel clears the flag for it), a sample in
	 * it ended the stepping, and its return restored the flag cdt had
	 * set.  Passed on, it would kill a program without a SIGTRAP handler.
	 * Only a program with a handler of its own can be stepping itself.
	 */
	if (si->si_code == TRAP_TRACE && agent_g.cfg.source == SRC_SOFT &&
	    agent_g.cfg.max_steps && !sigchain_program_handles()) {
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)X86_EFLAGS_TF;
		if (t && t->tid == gettid())
			t->ext.stray++;
		goto out;
	}
chain:
	sigchain_forward(sig, si, ucv);
out:
	errno = saved;
}
