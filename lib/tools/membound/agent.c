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

/* The streams of the loops of recent follow-ups, by IP: a scan decodes
 * up to 200 instructions (tens of microseconds), and a hot loop's IPs
 * come again and again. */
#define MB_LOOP_CACHE 32

struct mb_loop_seen {
	uint64_t ip;
	uint16_t streams, written;
};

/* Per thread (agent_thread.state): its last lead, for the follow-up. */
struct mb_state {
	uint64_t seq;  /* agent_thread.pair_seq when the lead was taken */
	uint64_t addr; /* its address, 0 none */
	struct mb_loop_seen seen[MB_LOOP_CACHE];
};

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
 * The streams of the loop around ip, for a follow-up: how many bytes the
 * loop moves for each byte one of its streams advances.  The loop is the
 * nearest back-edge after ip (a jump to at or before ip, within
 * MB_LOOP_BYTES); its memory operands are grouped by base, index, scale
 * and displacements less than MB_LOOP_NEAR apart, the stack's (rsp) left
 * out.  One group is one stream: what one of its operands brings in,
 * the others touch again while it is still cached (an unrolled loop's
 * b[i], b[i+4]; a stencil's rows; glibc's large memcpy, which copies
 * four pages side by side, each operand a page ahead of the last, and so
 * moves its source at the rate of all four together).  a[i] and c[i] of
 * two arrays, through two registers or two distant displacements, are
 * two.  A stream both read and written counts twice (a[i] += x moves its
 * line in and out).  0 when no loop is found: straight-line code, a loop
 * longer than the window, or one with an indirect jump.
 */
#define MB_LOOP_BYTES 384
#define MB_LOOP_INSNS 96
#define MB_LOOP_GROUPS 16
#define MB_LOOP_NEAR (1 << 20)

struct mb_group {
	ZydisRegister base, index;
	uint8_t scale;
	uint8_t rw; /* 1 read, 2 written */
	int64_t disp;
};

static int mb_insn(const uint8_t *code, size_t n, ZydisDecodedInstruction *in,
		   ZydisDecodedOperand *op)
{
	return n && ZYAN_SUCCESS(ZydisDecoderDecodeFull(&mb_dec, code, n, in, op));
}

/* The back-edge's target and the loop's end, or 0. */
static int mb_loop_find(uint64_t ip, uint64_t *top, uint64_t *end)
{
	uint8_t code[MB_LOOP_BYTES];
	size_t n = agent_read_code(ip, code, sizeof(code), 1), off = 0;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];

	for (int k = 0; k < MB_LOOP_INSNS && off < n; k++, off += in.length) {
		uint64_t at = ip + off, to;

		if (!mb_insn(code + off, n - off, &in, op))
			return 0;
		if (in.meta.category == ZYDIS_CATEGORY_RET ||
		    in.mnemonic == ZYDIS_MNEMONIC_SYSCALL)
			return 0;
		if ((in.meta.category != ZYDIS_CATEGORY_COND_BR &&
		     in.meta.category != ZYDIS_CATEGORY_UNCOND_BR) ||
		    !(in.attributes & ZYDIS_ATTRIB_IS_RELATIVE)) {
			if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR)
				return 0; /* indirect */
			continue;
		}
		if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &op[0], at, &to)))
			return 0;
		if (to <= ip && ip - to <= MB_LOOP_BYTES) {
			*top = to;
			*end = at + in.length;
			return 1;
		}
		if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR && to > at)
			off = to - ip - in.length; /* forward jump: follow it */
	}
	return 0;
}

static void mb_streams(uint64_t ip, uint16_t *streams, uint16_t *written)
{
	uint8_t code[2 * MB_LOOP_BYTES];
	struct mb_group g[MB_LOOP_GROUPS];
	uint64_t top, end;
	size_t n, off = 0;
	int ng = 0;

	*streams = *written = 0;
	if (!mb_loop_find(ip, &top, &end) || end - top > sizeof(code))
		return;
	n = agent_read_code(top, code, end - top, 0);
	for (int k = 0; k < MB_LOOP_INSNS && off < n;) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];

		if (!mb_insn(code + off, n - off, &in, op))
			return;
		for (unsigned i = 0; i < in.operand_count_visible; i++) {
			const ZydisDecodedOperand *o = &op[i];
			struct mb_group x = { 0 };
			int j;

			if (o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.type == ZYDIS_MEMOP_TYPE_AGEN ||
			    mb_reg64(o->mem.base) == ZYDIS_REGISTER_RSP)
				continue;
			x.base = mb_reg64(o->mem.base);
			x.index = mb_reg64(o->mem.index);
			x.scale = o->mem.scale;
			x.disp = o->mem.disp.has_displacement ? o->mem.disp.value : 0;
			if (x.base == ZYDIS_REGISTER_RIP)
				x.disp += (int64_t)(top + off + in.length);
			x.rw = (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE ? 2 : 0) |
			       (o->actions & ZYDIS_OPERAND_ACTION_MASK_READ ? 1 : 0);
			for (j = 0; j < ng; j++)
				if (g[j].base == x.base && g[j].index == x.index &&
				    g[j].scale == x.scale && x.disp - g[j].disp < MB_LOOP_NEAR &&
				    g[j].disp - x.disp < MB_LOOP_NEAR)
					break;
			if (j == ng) {
				if (ng == MB_LOOP_GROUPS)
					continue;
				g[ng++] = (struct mb_group){ x.base, x.index, x.scale, 0, x.disp };
			}
			g[j].rw |= x.rw;
		}
		off += in.length;
		k++;
	}
	for (int j = 0; j < ng; j++) {
		*streams += (g[j].rw & 1) + !!(g[j].rw & 2);
		*written += !!(g[j].rw & 2);
	}
}

/* A lead kept, or with its follow-up, the pair's record. */
static void mb_pair(struct agent_thread *t, const struct rec_sample *s)
{
	struct mb_state *st = t->state;
	uint64_t addr = (s->flags & SAMPLE_F_ADDR) && !(s->flags & SAMPLE_F_STACK) ? s->addr : 0;
	struct rec_mb_pair r = { 0 };

	if (!st)
		return;
	if (!(s->flags & SAMPLE_F_PAIR)) {
		st->seq = t->pair_seq;
		st->addr = addr;
		return;
	}
	/* The follow-up of the lead before the last arming only. */
	if (st->seq + 1 != t->pair_seq)
		return;
	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = s->time;
	r.lead_addr = st->addr;
	r.addr = addr;
	r.dt_ns = t->pair_dt;
	r.span_ns = t->pair_span;
	if (addr && st->addr) {
		struct mb_loop_seen *e = &st->seen[(s->ip ^ s->ip >> 7) % MB_LOOP_CACHE];

		if (e->ip != s->ip) {
			e->ip = s->ip;
			mb_streams(s->ip, &e->streams, &e->written);
		}
		r.streams = e->streams;
		r.wstreams = e->written;
	}
	st->seq = 0;
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_MB_PAIR))
		t->st.dropped++;
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
	mb_pair(t, s);
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
	.state_size = sizeof(struct mb_state),
	.init = mb_init,
	.thread_start = mb_thread_start,
	.sample = mb_sample,
	.counters = mb_counters,
	/* Time away from memory is half the answer; the speed of a stream
	 * is the other (pairs). */
	.flags = AGENT_TOOL_NOMEM | AGENT_TOOL_PAIRS,
};
