// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt membound` in the target.  Without a PMU (the soft estimate) each
 * sample's next load is probed: one load of its line timed with the TSC
 * (membound.h), which says whether the line was in L1/L2, L3 or DRAM at
 * the moment the thread was about to wait for it.  With a PMU the
 * counters leave every interval and samples only place the intervals in
 * the code.
 */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "lib/agent/agent.h"
#include "lib/tools/membound/membound.h"

static struct membound_params mb_p;
static ZydisDecoder mb_dec; /* allocation-free: fine in a handler */

static int mb_init(const void *params)
{
	mb_p = *(const struct membound_params *)params;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&mb_dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	return 0;
}

static ZydisRegister mb_reg64(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_NONE ? r :
	       ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
}

/*
 * A pointer chase: the instruction loads into a register its own address
 * is made of (mov rax, [rax]; mov rdi, [rdi+8]), so the next access
 * cannot start before this one ends, and latency, not bandwidth, is what
 * binds it.  A chase through a second register (two loads a link) is
 * not seen, and counts as a stream.
 */
static int mb_chases(uint64_t ip)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisRegister base = ZYDIS_REGISTER_NONE, index = ZYDIS_REGISTER_NONE;
	uint8_t code[ZYDIS_MAX_INSTRUCTION_LENGTH];
	size_t n = agent_read_code(ip, code, sizeof(code), 1);

	if (!n || !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&mb_dec, code, n, &in, op)))
		return 0;
	for (unsigned i = 0; i < in.operand_count_visible; i++)
		if (op[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    op[i].mem.type != ZYDIS_MEMOP_TYPE_AGEN) {
			base = mb_reg64(op[i].mem.base);
			index = mb_reg64(op[i].mem.index);
		}
	for (unsigned i = 0; i < in.operand_count_visible; i++) {
		ZydisRegister r;

		if (op[i].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    !(op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		r = mb_reg64(op[i].reg.value);
		if (r != ZYDIS_REGISTER_NONE && (r == base || r == index))
			return 1;
	}
	return 0;
}

static void mb_thread_start(struct agent_thread *t)
{
	struct rec_mb_floor r = { 0 };
	volatile uint64_t line = 0;

	if (!(mb_p.flags & MB_P_PROBE))
		return;
	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = agent_now();
	r.ticks = mb_probe_floor(&line, 16);
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_MB_FLOOR))
		t->st.dropped++;
}

/* The kernel's struct sigaction, for the raw system call (glibc's
 * sigaction may be the program's interposed one). */
struct mb_ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static int mb_handled(int sig)
{
	struct mb_ksigaction k;

	if (syscall(SYS_rt_sigaction, sig, NULL, &k, sizeof(k.mask)))
		return 1;
	return k.handler != (void *)SIG_DFL && k.handler != (void *)SIG_IGN;
}

/*
 * Probe only what the program is about to read itself: a load's or a
 * read-modify-write's operand, whose address the decoder computed from
 * the registers as they are, in user space.  If that read faults, the
 * program's own would have at the next instruction, and it dies the same
 * way, unless it handles SIGSEGV or SIGBUS (a garbage collector's
 * barrier, a guard page, a JIT's null check): such a handler would see a
 * fault at cdt's instruction, not its own, so then nothing is probed.
 * A store's line is never read: it may be a device's register.
 */
static void mb_sample(struct agent_thread *t, struct rec_sample *s)
{
	if ((mb_p.flags & MB_P_PROBE) && (s->flags & SAMPLE_F_ADDR) &&
	    (s->kind == MEM_LOAD || s->kind == MEM_RMW) && s->addr >= 4096 &&
	    s->addr < 0x800000000000ull && !mb_handled(SIGSEGV) && !mb_handled(SIGBUS))
		s->weight = 1 + mb_probe((const void *)(uintptr_t)s->addr);
	else
		s->weight = MB_WEIGHT_NONE;
	if ((s->flags & SAMPLE_F_ADDR) && s->kind == MEM_LOAD && mb_chases(s->ip))
		s->weight |= MB_WEIGHT_CHASE;
	if (arena_write(&agent_g.arena, s, sizeof(*s), REC_SAMPLE))
		t->st.dropped++;
}

static void mb_counters(struct agent_thread *t, const struct agent_counts *c)
{
	struct rec_mb_counts r = { 0 };

	if (!c->n)
		return;
	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = agent_now();
	r.n = c->n < MEMBOUND_MAX_COUNTERS ? c->n : MEMBOUND_MAX_COUNTERS;
	for (uint32_t k = 0; k < r.n; k++) {
		r.v[k] = c->v[k];
		r.enabled[k] = c->en[k];
		r.running[k] = c->run[k];
	}
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_MB_COUNTS))
		t->st.dropped++;
}

const struct agent_tool membound_agent = {
	.init = mb_init,
	.thread_start = mb_thread_start,
	.sample = mb_sample,
	.counters = mb_counters,
	/* Time away from memory is half the answer. */
	.flags = AGENT_TOOL_NOMEM,
};
