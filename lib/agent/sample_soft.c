// SPDX-License-Identifier: GPL-2.0-only
/*
 * The soft sample source: a task-clock timer samples each thread; the
 * handler decodes the instruction at the interrupted IP against the
 * signal's registers.
 *
 * Timer samples skid past the instruction that was slow (DESIGN.md: 95%
 * point after a missing load), and the instruction before the IP cannot
 * be decoded reliably nor its address recomputed once it has overwritten
 * its own registers.  So the sample is the NEXT memory access instead: the
 * instruction at the IP has not executed, its registers are exact inputs;
 * if it does not touch memory, the trap flag single-steps the thread
 * (cfg.max_steps at most) until one does.  Every address reported is thus
 * computed from the registers the access itself used.
 *
 * A single step costs a debug exception (11 us in a KVM guest, against
 * 2 us for the sample itself), so before stepping the decoder walks ahead
 * (decode_next_access): it computes simple integer arithmetic and flags,
 * follows jumps whose direction that decides (loop back-edges), and the
 * first memory instruction whose address registers it knows gets its
 * exact address, with no trap.  Stepping is left for what the walk cannot
 * compute (a register loaded from memory, an operation it does not compute, a
 * system call).
 *
 * A tool that wants where the time went (AGENT_TOOL_STALLS: comm, whose
 * contended lines are the slow ones) gets, where it can be known, the
 * access the sample stalled on instead: the one just before the IP, or
 * across the loop's back-edge when the IP heads a loop
 * (decode_stall_site).  Samples then fall on accesses in proportion to
 * the time they take, as the skid makes them.  Finding the site costs up
 * to a few hundred decodes, so it is kept per IP in a table shared by the
 * process's threads (soft_sites); a sample whose IP is in it decodes one
 * instruction.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include "lib/agent/agent.h"

#define SOFT_WALK 32 /* instructions walked ahead before stepping */
#define SOFT_SITES_LOG2 12
#define SOFT_RMW_WALK 4 /* instructions from the IP to the store of a load's RMW */

/*
 * Stall sites by sample IP, direct-mapped: (ip << 16) | (site - ip) as a
 * 16-bit offset, 0 for none.  One word an entry, so threads race on an
 * entry without tearing it: the worst is a site found twice.  User IPs
 * are below 2^47, so the IP is the key in full.
 */
static _Atomic uint64_t *soft_sites;

/*
 * The walk of a thread's sample, in its slot: steps_left, the sample's
 * time (soft_t0), the CPU clock when a timed sample's walk began
 * (soft_cpu0, 0 if it is not timed) and the interrupted IP (soft_ip0).
 */
int soft_stepping(const struct agent_thread *t)
{
	return t && t->steps_left > 0;
}

/* how: SAMPLE_F_STEP (stepped to), SAMPLE_F_BEHIND (the stall site) or 0. */
static void soft_emit(struct agent_thread *t, const struct insn_access *acc,
		      uint64_t time, unsigned how)
{
	struct rec_sample s = { 0 };

	s.h.size = sizeof(s);
	s.h.type = REC_SAMPLE;
	s.pid = (uint32_t)agent_g.pid;
	s.tid = (uint32_t)t->tid;
	s.time = time;
	s.ip = acc->ip;
	s.addr = acc->addr;
	s.cpu = (uint32_t)sched_getcpu();
	s.size = acc->size;
	s.kind = acc->kind;
	s.source = SRC_SOFT;
	s.flags = (uint8_t)((acc->flags & ACC_F_ADDR ? SAMPLE_F_ADDR : 0) |
			    (acc->flags & ACC_F_STACK ? SAMPLE_F_STACK : 0) |
			    how | (t->soft_pair ? SAMPLE_F_PAIR : 0) |
			    (!(how & SAMPLE_F_BEHIND) && ((how & SAMPLE_F_STEP) || acc->ip != t->soft_ip0) ?
				     SAMPLE_F_AHEAD : 0));
	t->st.mem_samples++;
	if (acc->flags & ACC_F_ADDR)
		objects_on_sample(t, acc->addr);
	if (agent_g.tool->sample)
		agent_g.tool->sample(t, &s);
}

/* A sample that found no memory access, to a tool that asks for them. */
static void soft_emit_nomem(struct agent_thread *t, uint64_t time)
{
	struct rec_sample s = { 0 };

	t->st.nomem++;
	if (!(agent_g.tool->flags & AGENT_TOOL_NOMEM) || !agent_g.tool->sample)
		return;
	s.h.size = sizeof(s);
	s.h.type = REC_SAMPLE;
	s.pid = (uint32_t)agent_g.pid;
	s.tid = (uint32_t)t->tid;
	s.time = time;
	s.ip = t->soft_ip0;
	s.cpu = (uint32_t)sched_getcpu();
	s.source = SRC_SOFT;
	s.flags = SAMPLE_F_NOMEM | (t->soft_pair ? SAMPLE_F_PAIR : 0);
	agent_g.tool->sample(t, &s);
}

/* The page of the interrupted IP is mapped; other code the walk reaches
 * (a jump target) is read with a fault check. */
static size_t soft_read(uint64_t addr, void *buf, size_t len, void *arg)
{
	uint64_t rip = *(const uint64_t *)arg;
	uint64_t page = (uint64_t)getpagesize();

	return agent_read_code(addr, buf, len, (addr & ~(page - 1)) == (rip & ~(page - 1)));
}

/*
 * A step trap is forced on the thread, so it must never find SIGTRAP
 * blocked: not after a system call (below), and not where the context
 * returned to has it blocked.  A signal taken inside sigsuspend, ppoll,
 * pselect or epoll_pwait returns to the mask from before the call, which
 * may block everything.
 */
static int soft_may_step(const ucontext_t *uc, const struct insn_access *acc)
{
	return !(acc->flags & ACC_F_KERNEL) && !sigismember(&uc->uc_sigmask, SIGTRAP);
}

/*
 * 1: memory access found and emitted; 0: not reached, step on; -1:
 * undecodable; SOFT_KERNEL: the next instruction enters the kernel, and
 * must not be stepped: a system call such as the raw rt_sigprocmask in
 * glibc's pthread_create blocks SIGTRAP, and a step trap that follows it
 * is forced on the thread and kills the program.
 */
#define SOFT_KERNEL 2

static int soft_try(struct agent_thread *t, ucontext_t *uc, uint64_t time, int stepped)
{
	struct decode_regs regs;
	struct decode_code code = { soft_read, &regs.rip };
	struct insn_access acc;
	int r;

	decode_regs_from_ucontext(&regs, uc, t->fs_base, 0);
	r = decode_next_access(&code, &regs, SOFT_WALK, &acc);
	if (r == 1)
		soft_emit(t, &acc, time, stepped ? SAMPLE_F_STEP : 0);
	return r == 0 && !soft_may_step(uc, &acc) ? SOFT_KERNEL : r;
}

/* The walk is over: t pays for it. */
static void soft_walk_end(struct agent_thread *t)
{
	if (t->soft_cpu0) {
		t->ext.sample_cpu_ns += agent_cpu_now() - t->soft_cpu0;
		t->ext.sample_cpu_n++;
	}
	t->soft_cpu0 = 0;
}

/* t: NULL if the thread's slot is gone. */
static void soft_stop_stepping(struct agent_thread *t, ucontext_t *uc)
{
	uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)X86_EFLAGS_TF;
	if (!t)
		return;
	t->steps_left = 0;
	soft_walk_end(t);
}

void soft_thread_stop(struct agent_thread *t)
{
	if (!soft_stepping(t))
		return;
	/* The trap flag off now: a step after the slot is free would find
	 * no walk, and go to the program's SIGTRAP handler. */
	__builtin_ia32_writeeflags_u64(__builtin_ia32_readeflags_u64() &
				       ~(unsigned long long)X86_EFLAGS_TF);
	t->steps_left = 0;
	soft_walk_end(t);
}

int soft_init(void)
{
	void *p;

	if (!(agent_g.tool->flags & AGENT_TOOL_STALLS) || soft_sites)
		return 0;
	p = mmap(NULL, sizeof(*soft_sites) << SOFT_SITES_LOG2, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	soft_sites = p;
	return 0;
}

void soft_forget(void)
{
	if (!soft_sites)
		return;
	for (size_t i = 0; i < (size_t)1 << SOFT_SITES_LOG2; i++)
		atomic_store_explicit(&soft_sites[i], 0, memory_order_relaxed);
}

/* The stall site of ip, found once (decode_stall_site); 0 if none. */
static uint64_t soft_site(uint64_t ip)
{
	_Atomic uint64_t *slot = &soft_sites[(ip * 0x9e3779b97f4a7c15ull) >> (64 - SOFT_SITES_LOG2)];
	uint64_t e = atomic_load_explicit(slot, memory_order_relaxed), site;
	struct decode_code code = { soft_read, &ip };
	int64_t off;

	if (e >> 16 == ip)
		return (e & 0xffff) ? ip + (uint64_t)(int64_t)(int16_t)(e & 0xffff) : 0;
	if (decode_stall_site(&code, ip, &site) < 0)
		return 0; /* not kept: unreadable code is not worth a slot */
	off = site ? (int64_t)(site - ip) : 0;
	if (off < INT16_MIN || off > INT16_MAX)
		site = 0, off = 0;
	atomic_store_explicit(slot, ip << 16 | (uint16_t)off, memory_order_relaxed);
	return site;
}

/*
 * Does the next access store back where the stalled load read, with no
 * access between?  x = x + 1 compiled as a load, an add and a store is a
 * read-modify-write of x.  Its store never stalls (the store buffer takes
 * it), so the samples fall after the load and a stall site alone would
 * only ever see a reader: comm would not know the line was written.
 */
static int soft_stores_back(const struct decode_regs *regs, const struct insn_access *ld)
{
	struct decode_code code = { soft_read, (void *)&regs->rip };
	struct insn_access st;

	return decode_next_access(&code, regs, SOFT_RMW_WALK, &st) == 1 &&
	       (st.flags & ACC_F_ADDR) && (st.kind == MEM_STORE || st.kind == MEM_RMW) &&
	       st.addr == ld->addr && st.size == ld->size;
}

/* The access the sample stalled on, emitted: 1; 0 if there is none. */
static int soft_stalled(struct agent_thread *t, ucontext_t *uc, uint64_t time)
{
	uint64_t ip = t->soft_ip0, page = (uint64_t)getpagesize(), site;
	struct decode_regs regs;
	struct insn_access acc;
	uint8_t code[15];
	size_t n;

	if (!soft_sites || ip >= 1ull << 47 || !(site = soft_site(ip)))
		return 0;
	n = agent_read_code(site, code, sizeof(code), (site & ~(page - 1)) == (ip & ~(page - 1)));
	decode_regs_from_ucontext(&regs, uc, t->fs_base, 0);
	if (decode_access_done(code, n, site, &regs, &acc) != 1 || !(acc.flags & ACC_F_ADDR) ||
	    (acc.flags & ACC_F_STACK) || (site < ip && site + acc.len > ip))
		return 0; /* code replaced since the site was found */
	if (acc.kind == MEM_LOAD && soft_stores_back(&regs, &acc))
		acc.kind = MEM_RMW;
	soft_emit(t, &acc, time, SAMPLE_F_BEHIND);
	return 1;
}

void soft_on_sample(struct agent_thread *t, ucontext_t *uc, uint64_t t0, uint64_t cpu0)
{
	int r;

	t->st.samples++;
	/* A sample while stepping starts afresh: the old walk ends here. */
	if (soft_stepping(t))
		soft_stop_stepping(t, uc);
	t->soft_cpu0 = cpu0;
	t->soft_ip0 = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	t->soft_pair = t->pair_fired;
	r = soft_stalled(t, uc, t0) ? 1 : soft_try(t, uc, t0, 0);
	if (r == 0 && agent_g.cfg.max_steps) {
		/* Not a memory access: step to the next instruction. */
		t->steps_left = (int)agent_g.cfg.max_steps;
		t->soft_t0 = t0;
		uc->uc_mcontext.gregs[REG_EFL] |= X86_EFLAGS_TF;
	} else if (r < 0) {
		t->st.decode_fail++;
	} else if (r != 1) {
		soft_emit_nomem(t, t0);
	}
	if (!soft_stepping(t))
		soft_walk_end(t);
	t->st.handler_ns += agent_now() - t0;
}

void soft_guard(struct agent_thread *t, ucontext_t *uc)
{
	struct decode_regs regs;
	struct decode_code code = { soft_read, &regs.rip };
	struct insn_access acc = { 0 };

	decode_regs_from_ucontext(&regs, uc, t->fs_base, 0);
	if (decode_next_access(&code, &regs, 1, &acc) < 0 || !soft_may_step(uc, &acc))
		soft_stop_stepping(t, uc);
}

void soft_on_step(struct agent_thread *t, ucontext_t *uc)
{
	uint64_t now = agent_now();
	int r;

	if (!t || t->tid != gettid()) {
		soft_stop_stepping(NULL, uc);
		return;
	}
	t->st.steps++;
	r = soft_try(t, uc, t->soft_t0, 1);
	if (r != 0) {
		if (r < 0)
			t->st.decode_fail++;
		else if (r == SOFT_KERNEL)
			soft_emit_nomem(t, t->soft_t0);
		soft_stop_stepping(t, uc);
	} else if (--t->steps_left == 0) {
		soft_emit_nomem(t, t->soft_t0);
		soft_stop_stepping(t, uc);
	}
	t->st.handler_ns += agent_now() - now;
}
