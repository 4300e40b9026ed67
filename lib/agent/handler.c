// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one handler of cdt's signals (sigchain.c): SIGTRAP and the POSIX
 * sample clock's.  It tells the agent's traps from the program's by
 * si_code and the tag in si_perf_data or si_value, and passes the rest on.
 * Async-signal-safe: it only decodes, reads perf rings and appends records.
 *
 * Its work runs on cdt's own stack of the thread (AGENT_ALTSTACK bytes,
 * where the kernel puts the frame unless the program set an alternate
 * stack of its own).  The kernel puts the signal frame on the program's
 * alternate stack if it set one, and that may be as small as one frame
 * (6 KiB stacks overflowed with cdt's decoding on them): the entry
 * switches to cdt's stack at once, and back before a signal is passed
 * on, so the program's handler runs where the kernel would have run it.
 * Every signal is blocked meanwhile (sigchain_install), so no frame can
 * land on a stack the kernel does not know is in use.
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
 * execute int1 (0xf1).  Where the program's int1 leaves the IP depends
 * on the host, which the front end probes (AGENT_F_INT1_AT): after it
 * (Intel KVM), or at it (an AMD KVM guest, where a handler that returns
 * runs it again).  "At" is exact: 0xf1 starts no other instruction.
 */
int handler_int1(const unsigned char code[2], int at)
{
	return at ? code[1] == 0xf1 : code[0] == 0xf1;
}

static int handler_lost_cause(struct agent_thread *t, const ucontext_t *uc)
{
	uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t page = (uint64_t)getpagesize();
	unsigned char code[2];

	if (!t || t->tid != gettid() || (!soft_stepping(t) && !wpt_armed(&t->wp)))
		return 0;
	if (agent_read_code(ip - 1, code, 2, (ip & (page - 1)) != 0) != 2)
		return 0;
	return !handler_int1(code, !!(agent_g.cfg.flags & AGENT_F_INT1_AT));
}

/* 1: the signal is the program's, to pass on; 0: it was cdt's. */
static int handler_body(int sig, siginfo_t *si, void *ucv)
{
	struct agent_thread *t = agent_self();
	ucontext_t *uc = ucv;

	if (sig == AGENT_SIGCLOCK && si->si_code != SI_TIMER)
		return 1;
	/* A perf event's, or the POSIX sample clock's (clock.c). */
	if ((sig == SIGTRAP && si->si_code == TRAP_PERF) || sig == AGENT_SIGCLOCK) {
		uint64_t data, now, cpu0 = 0, govern = 0;
		int kind, pair;

		data = si->si_code == TRAP_PERF ? agent_si_perf_data(si) :
		       (uint64_t)(uintptr_t)si->si_value.sival_ptr;

		if ((data & SIGDATA_MASK) != SIGDATA_MAGIC)
			return 1;
		/* A trap for a thread whose slot is gone: nothing to do. */
		if (!t || t->tid != gettid())
			return 0;
		now = agent_now();
		kind = (data & SIGDATA_KIND_MASK) == SIGDATA_WPT;
		pair = (data & SIGDATA_KIND_MASK) == SIGDATA_PAIR;
		if (!kind)
			pair_on_sample(t, pair);
		/* The governor reads the CPU clock at every sample: a thread
		 * that switches often must leave the perf clock within ms. */
		if (!kind && !pair && agent_g.cfg.clock.budget_ppm)
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
		} else if (si->si_code == SI_TIMER &&
			   (clock_in_syscall(uc) ||
			    sigchain_handler_entry((uint64_t)uc->uc_mcontext.gregs[REG_RIP]))) {
			/* A real-time signal comes after a standard one pending
			 * with it: a tick in raise() came at its handler's entry. */
			t->st.samples++;
			t->ext.in_syscall++;
		} else if (t->quiet ||
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
		if (!kind && !pair) {
			clock_sampled(t);
			pair_arm(t);
		}
		if (govern)
			clock_govern(t, govern);
		agent_thread_tick(t, now);
		counters_tick(t, now, 0);
		/* A trap while the thread single-steps returns to a set trap
		 * flag (soft_try says why it must not meet a system call). */
		if (soft_stepping(t))
			soft_guard(t, uc);
		return 0;
	}
	if (sig != SIGTRAP)
		return 1;
	if (si->si_code == TRAP_BRKPT && handler_lost_cause(t, uc)) {
		if (soft_stepping(t))
			soft_on_step(t, uc);
		else
			t->ext.stray++;
		return 0;
	}
	if (si->si_code == TRAP_TRACE && soft_stepping(t)) {
		soft_on_step(t, uc);
		return 0;
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
		return 0;
	}
	return 1;
}

/* handler_stack_call: the frame pointer keeps the way back, for unwinders too. */
__asm__(".text\n"
	".globl handler_stack_call\n"
	".hidden handler_stack_call\n"
	".type handler_stack_call, @function\n"
	".p2align 4\n"
	"handler_stack_call:\n"
	"	.cfi_startproc\n"
	"	pushq %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	movq %r8, %rsp\n"
	"	andq $-16, %rsp\n"
	"	movq %rdi, %rax\n"
	"	movl %esi, %edi\n"
	"	movq %rdx, %rsi\n"
	"	movq %rcx, %rdx\n"
	"	call *%rax\n"
	"	movq %rbp, %rsp\n"
	"	popq %rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size handler_stack_call, .-handler_stack_call\n"
	".previous\n");

void agent_on_signal(int sig, siginfo_t *si, void *uc)
{
	struct agent_thread *t = agent_self();
	char *sp = __builtin_frame_address(0);
	int saved = errno, pass;

	if (t && t->altstack && !agent_on_own_stack(t, sp))
		pass = handler_stack_call(handler_body, sig, si, uc,
					  (char *)t->altstack + AGENT_ALTSTACK);
	else
		pass = handler_body(sig, si, uc);
	if (pass)
		sigchain_forward(sig, si, uc);
	errno = saved;
}
