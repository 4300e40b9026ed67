/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86-64 instruction decoding for the soft sample source and for traps:
 * which memory an instruction accesses, given a register state.
 *
 * Runs inside the agent's signal handlers: no allocation, no locks, no
 * stdio.  Built on Zydis (libzydis), whose decoder is allocation-free.
 */
#ifndef CDT_DECODE_H
#define CDT_DECODE_H

#include <stddef.h>
#include <stdint.h>

/* General-purpose registers in hardware encoding order, plus rip and the
 * segment bases that fs:/gs: operands need (ucontext does not carry them). */
enum decode_reg {
	DR_RAX, DR_RCX, DR_RDX, DR_RBX, DR_RSP, DR_RBP, DR_RSI, DR_RDI,
	DR_R8, DR_R9, DR_R10, DR_R11, DR_R12, DR_R13, DR_R14, DR_R15,
	DR_NGPR
};

struct decode_regs {
	uint64_t gpr[DR_NGPR];
	uint64_t rip;
	uint64_t rflags;
	uint64_t fs_base, gs_base;
};

/* Code bytes for decode_next_access, which follows branches: `read`
 * copies up to len bytes at addr and returns how many it could (0 if
 * none); it must not fault, since the walk runs in signal handlers. */
struct decode_code {
	size_t (*read)(uint64_t addr, void *buf, size_t len, void *arg);
	void *arg;
};

/* Bytes decode_next_access asks `read` for at a time. */
#define DECODE_WALK_WINDOW 64

/* struct insn_access.flags */
#define ACC_F_ADDR  0x01 /* addr is valid */
#define ACC_F_STACK 0x02 /* implicit stack operand (push, pop, call, ret, ...) */
#define ACC_F_CLOBBERED 0x04 /* decode_prev: the insn wrote a register its address uses */
#define ACC_F_KERNEL 0x08 /* decode_next gave 0: the insn at rip enters the kernel */

struct insn_access {
	uint64_t ip;    /* start of the instruction */
	uint64_t addr;  /* first byte accessed */
	uint8_t len;    /* instruction length */
	uint8_t size;   /* bytes accessed by the memory operand */
	uint8_t kind;   /* enum mem_kind (record.h) */
	uint8_t flags;  /* ACC_F_* */
};


/* Prepare the decoder once per process (not in a handler). */
int decode_init(void);

/*
 * Decode the instruction at regs->rip, which has NOT executed yet (the
 * registers are its inputs).  `code` points at its bytes, `avail` is how
 * many are readable there (fewer than 15 is fine; an instruction that
 * does not fit gives -1).
 * Returns 1 and fills *out if it accesses data memory, 0 if it does not
 * (ip and len still filled, flags 0), -1 if it cannot be decoded.
 *  - Not data accesses: LEA and other address-only operands, hint NOPs,
 *    prefetches, clflush/clflushopt/clwb/cldemote.
 *  - One operand is reported: a visible one before a hidden one (push [m]
 *    reports the load of [m]), then a written one before a read one (movs
 *    reports its store to [rdi]; cmps its load from [rsi]).
 *  - kind: read and (possibly conditionally) written is MEM_RMW (lock add,
 *    xadd, xchg, cmpxchg); masked and rep stores are MEM_STORE.
 *  - size: the operand in bytes, capped at 255 (fxsave); for rep string
 *    instructions one element.
 *  - Implicit stack operands set ACC_F_STACK; push/call store at rsp - 8.
 *  - Gathers and scatters (vector index) give 1 without ACC_F_ADDR.
 * Needs about 7 KiB of stack (Zydis structures and register context), so
 * a handler on a sigaltstack wants one of 32 KiB or more.
 */
int decode_access(const void *code, size_t avail, const struct decode_regs *regs,
		  struct insn_access *out);

/*
 * The next memory access from regs->rip on, found without executing
 * anything: walk at most max_insns instructions, computing what simple
 * integer arithmetic does to the GPRs and to the flags.  Direct jumps are
 * followed, and so are conditional ones whose flags the walk computed (or
 * that test regs->rflags untouched), which carries it round loop
 * back-edges; calls, returns and memory-indirect jumps are themselves
 * accesses.  The first memory instruction whose address registers all hold
 * computed values gets its address exactly.
 * Returns 1 with *out (out->ip is that instruction), 0 if no such access
 * is reachable that way (an unknown register or condition, a system
 * instruction, the budget), -1 if the instruction at rip cannot be read
 * or decoded.  On 0, out->flags is ACC_F_KERNEL if the instruction at rip
 * enters the kernel (syscall, sysenter, int), else 0.
 */
int decode_next_access(const struct decode_code *code, const struct decode_regs *regs,
		       unsigned max_insns, struct insn_access *out);

/*
 * Find the instruction that ENDS at regs->rip and has already executed
 * (data breakpoints trap after the access).  `code` points at the byte at
 * rip - before, with `before` readable bytes preceding rip and `after`
 * bytes from rip on.  x86 cannot be decoded backwards exactly, so this
 * decodes forward from several earlier offsets and keeps the instruction
 * boundary they agree on.  If the instruction overwrote a register its
 * address depends on, the address is not computed (ACC_F_CLOBBERED, no
 * ACC_F_ADDR).
 * Up to 64 bytes before rip are used (about 64 decodes, 3-4 us).  Over
 * every instruction end in libc and gdb the right instruction was found
 * 99.99% of the time with 64 bytes of history, 99.8% with 32, 96% with
 * 16.  RIP-relative operands use rip as the end of the instruction.
 * Returns 1 with *out filled if that instruction accesses memory, 0 if it
 * does not (ip and len still filled), -1 if no boundary could be
 * established (no vote, or a tie).
 * Note: a data breakpoint hit inside a rep string instruction that has
 * iterations left traps with rip still AT that instruction; callers
 * should check decode_access at rip for a rep prefix first.
 */
int decode_prev_access(const void *code, size_t before, size_t after,
		       const struct decode_regs *regs, struct insn_access *out);

/*
 * Is ret a return address: does a call instruction end there?  `code`
 * points at the byte at ret - before (up to 7 are used).  1: a direct
 * call, *target its callee; 2: an indirect call (callee unknown); 0: no
 * call ends at ret; -1: the decoder is not ready.
 */
int decode_call_before(const void *code, size_t before, uint64_t ret, uint64_t *target);
/*
 * Where a timer sample taken at `ip` most likely stalled.  A timer
 * interrupt is taken when the instruction holding up retirement is done,
 * so it lands just past a slow one (the instruction after a contended
 * `lock add`: 97% of samples on Cascade Lake under KVM).  That slow
 * instruction is the access to blame:
 *  - if a direct branch within the next 48 instructions jumps back to
 *    ip, ip heads a loop and was reached from that branch: the site is
 *    the last access at most 3 instructions before the branch, unless ip
 *    is also reached by falling through past an access (or a branch) just
 *    before it: which way it came is not known, so there is no site;
 *  - otherwise the straight line before ip: the nearest access at most
 *    3 instructions back (instruction ends found by decode_prev_access's
 *    vote), over instructions that neither branch nor access memory.
 * The site must be an access whose address registers nothing after it
 * (up to ip) wrote, so that decode_access_done can compute its address
 * from the registers at ip.  Implicit stack operands are never sites.
 * Costs up to a few hundred decodes: callers cache it by ip.
 * Returns 0 with *site (0: no such access), -1 if the code at ip cannot
 * be read.
 */
int decode_stall_site(const struct decode_code *code, uint64_t ip, uint64_t *site);

/* decode_access for an instruction at `ip` that has executed: the
 * registers are after it (ACC_F_CLOBBERED if it overwrote its address
 * registers; a site of decode_stall_site never has). */
int decode_access_done(const void *code, size_t avail, uint64_t ip,
		       const struct decode_regs *regs, struct insn_access *out);

/* Build decode_regs from a ucontext_t (void * to keep this header light). */
void decode_regs_from_ucontext(struct decode_regs *r, const void *uc,
			       uint64_t fs_base, uint64_t gs_base);

#endif
