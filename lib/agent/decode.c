/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86-64 memory-access decoding on top of Zydis 4.
 *
 * What Zydis does and does not do for us (checked against libzydis 4.0):
 *  - ZydisCalcAbsoluteAddressEx adds base + index * scale + disp, reading
 *    register_context->values[] at the exact register named by the operand
 *    (eax, not rax, under an address-size prefix), truncates to the address
 *    width, and takes rip from its runtime_address argument.  It ignores
 *    segments, so fs:/gs: bases are added here.
 *  - Implicit stack operands (push, pop, call, ret, enter, leave, pushf...)
 *    come as HIDDEN memory operands [rsp] (or [rbp]) with segment SS and no
 *    displacement, i.e. the pre-execution rsp.  Writes through rsp
 *    pre-decrement, so this file subtracts the operand size for them.
 *  - String instructions list [rdi] (ES) and [rsi] (DS) as hidden memory
 *    operands, and rsi/rdi/rcx as hidden read-write registers.
 *  - xlat's hidden operand is [rbx] only; al is added here.
 *  - Gathers and scatters have mem.type VSIB; hint NOPs (0f 18..1f) decode
 *    as category WIDENOP, prefetches as PREFETCH.
 */
#include "lib/agent/decode.h"
#include "lib/wire/record.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <ucontext.h>

#include <Zydis/Zydis.h>

/* The decoder is configuration only (no buffers), shared read-only by all
 * threads once decode_init has run. */
static ZydisDecoder dec;
static atomic_int dec_ready;

/* decode_prev_access looks at most this far back for starting points. */
#define PREV_WINDOW 64
#define X86_MAX_INSN 15

_Static_assert(ZYDIS_REGISTER_R15 - ZYDIS_REGISTER_RAX == DR_R15 - DR_RAX &&
	       ZYDIS_REGISTER_RSP - ZYDIS_REGISTER_RAX == DR_RSP,
	       "Zydis 64-bit GPRs are in hardware encoding order, as enum decode_reg");
_Static_assert(PREV_WINDOW <= 127, "land[] holds offsets in int8_t");

int decode_init(void)
{
	if (atomic_load_explicit(&dec_ready, memory_order_acquire))
		return 0;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	atomic_store_explicit(&dec_ready, 1, memory_order_release);
	return 0;
}

/* Ready before any thread or handler exists.  A failure here shows up as
 * decode_init's error when the agent calls it, and as -1 from decoding. */
__attribute__((constructor)) static void decode_ctor(void)
{
	(void)decode_init();
}

static ZydisRegister reg_enclosing(ZydisRegister reg)
{
	return ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
}

/* Value of a general-purpose register of any width. */
static int reg_read(const struct decode_regs *r, ZydisRegister reg, uint64_t *v)
{
	ZydisRegister big = reg_enclosing(reg);
	uint64_t x;

	if (big < ZYDIS_REGISTER_RAX || big > ZYDIS_REGISTER_R15)
		return -1;
	x = r->gpr[big - ZYDIS_REGISTER_RAX];
	switch (ZydisRegisterGetClass(reg)) {
	case ZYDIS_REGCLASS_GPR64:
		break;
	case ZYDIS_REGCLASS_GPR32:
		x &= 0xffffffffu;
		break;
	case ZYDIS_REGCLASS_GPR16:
		x &= 0xffffu;
		break;
	case ZYDIS_REGCLASS_GPR8:
		if (reg >= ZYDIS_REGISTER_AH && reg <= ZYDIS_REGISTER_BH)
			x >>= 8;
		x &= 0xffu;
		break;
	default:
		return -1;
	}
	*v = x;
	return 0;
}

static bool insn_excluded(const ZydisDecodedInstruction *insn)
{
	/* Hints and cache maintenance name a line but move no data. */
	switch (insn->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_PREFETCHWT1:
	case ZYDIS_CATEGORY_CLDEMOTE:
	case ZYDIS_CATEGORY_CLFLUSHOPT:
	case ZYDIS_CATEGORY_CLWB:
		return true;
	default:
		return insn->mnemonic == ZYDIS_MNEMONIC_CLFLUSH;
	}
}

/*
 * The data operand to report.  Visible (explicit or implicit) operands win
 * over hidden ones, so `push [rax]` reports the load, not the stack store;
 * at equal visibility a writing operand wins, so movs reports its store to
 * [rdi] rather than its load from [rsi].
 */
static const ZydisDecodedOperand *mem_pick(const ZydisDecodedInstruction *insn,
					   const ZydisDecodedOperand *ops)
{
	const ZydisDecodedOperand *best = NULL;
	int best_rank = -1;

	for (unsigned i = 0; i < insn->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		int rank;

		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_VSIB)
			continue;
		if (!(op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)))
			continue;
		rank = (op->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN ? 2 : 0) +
		       ((op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) ? 1 : 0);
		if (rank > best_rank) {
			best = op;
			best_rank = rank;
		}
	}
	return best;
}

static bool op_is_stack(const ZydisDecodedOperand *op)
{
	return op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
	       op->mem.segment == ZYDIS_REGISTER_SS;
}

/* Linear address of a MEM operand of the instruction at `ip`, from its
 * input registers. */
static int mem_address(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *op,
		       uint64_t ip, const struct decode_regs *r, uint64_t *addr)
{
	/* Only values[base] and values[index] are read, so only they are set:
	 * filling the whole 2 KiB context per sample would be wasted work. */
	ZydisRegisterContext ctx;
	ZyanU64 a;
	uint64_t v;

	if (op->mem.base != ZYDIS_REGISTER_NONE && op->mem.base != ZYDIS_REGISTER_RIP &&
	    op->mem.base != ZYDIS_REGISTER_EIP) {
		if (reg_read(r, op->mem.base, &v))
			return -1;
		ctx.values[op->mem.base] = v;
	}
	if (op->mem.index != ZYDIS_REGISTER_NONE) {
		if (reg_read(r, op->mem.index, &v))
			return -1;
		ctx.values[op->mem.index] = v;
	}
	if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(insn, op, ip, &ctx, &a)))
		return -1;

	if (insn->mnemonic == ZYDIS_MNEMONIC_XLAT)
		a += r->gpr[DR_RAX] & 0xffu;
	if (reg_enclosing(op->mem.base) == ZYDIS_REGISTER_RSP) {
		if (op_is_stack(op) && (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			a -= op->size / 8; /* push, call, enter: store below rsp */
		else if (!op_is_stack(op) && insn->mnemonic == ZYDIS_MNEMONIC_POP)
			a += op->size / 8; /* pop [rsp+d] addresses with the popped rsp */
	}
	if (op->mem.segment == ZYDIS_REGISTER_FS)
		a += r->fs_base;
	else if (op->mem.segment == ZYDIS_REGISTER_GS)
		a += r->gs_base;
	*addr = a;
	return 0;
}

/* Did the (executed) instruction overwrite a register its address uses? */
static bool mem_clobbered(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
			  const ZydisDecodedOperand *mem)
{
	ZydisRegister used[3];
	unsigned n = 0;

	if (mem->mem.base != ZYDIS_REGISTER_NONE && mem->mem.base != ZYDIS_REGISTER_RIP &&
	    mem->mem.base != ZYDIS_REGISTER_EIP)
		used[n++] = reg_enclosing(mem->mem.base);
	if (mem->mem.index != ZYDIS_REGISTER_NONE)
		used[n++] = reg_enclosing(mem->mem.index);
	if (insn->mnemonic == ZYDIS_MNEMONIC_XLAT)
		used[n++] = ZYDIS_REGISTER_RAX;

	for (unsigned i = 0; i < insn->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		ZydisRegister w;

		if (op->type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		w = reg_enclosing(op->reg.value);
		for (unsigned j = 0; j < n; j++)
			if (used[j] == w)
				return true;
	}
	return false;
}

/*
 * Fill *out for a decoded instruction at `ip`.  `executed` means the
 * registers are post-execution (decode_prev_access).
 */
static int access_fill(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
		       uint64_t ip, const struct decode_regs *regs, bool executed,
		       struct insn_access *out)
{
	const ZydisDecodedOperand *op;
	unsigned size;

	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->len = insn->length;
	if (insn_excluded(insn))
		return 0;
	op = mem_pick(insn, ops);
	if (!op)
		return 0;

	/* For rep string instructions this is one element, as wanted. */
	size = op->size / 8;
	out->size = size > 255 ? 255 : (uint8_t)size;
	if ((op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
	    (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
		out->kind = MEM_RMW;
	else if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
		out->kind = MEM_STORE;
	else
		out->kind = MEM_LOAD;
	if (op_is_stack(op))
		out->flags |= ACC_F_STACK;

	/* A vector of addresses has no single one to report. */
	if (op->mem.type == ZYDIS_MEMOP_TYPE_VSIB)
		return 1;
	if (executed && mem_clobbered(insn, ops, op)) {
		out->flags |= ACC_F_CLOBBERED;
		return 1;
	}
	if (mem_address(insn, op, ip, regs, &out->addr) == 0)
		out->flags |= ACC_F_ADDR;
	return 1;
}

int decode_access(const void *code, size_t avail, const struct decode_regs *regs,
		  struct insn_access *out)
{
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!atomic_load_explicit(&dec_ready, memory_order_acquire) || !code || !regs || !out)
		return -1;
	/* Fails with ZYDIS_STATUS_NO_MORE_DATA when `avail` cuts the
	 * instruction short, and with a decoding error on invalid bytes. */
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code, avail, &insn, ops)))
		return -1;
	return access_fill(&insn, ops, regs->rip, regs, false, out);
}

/* Does control leave the straight line here (or may it)? */
static bool insn_branches(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops)
{
	for (unsigned i = 0; i < insn->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    (ops[i].reg.value == ZYDIS_REGISTER_RIP || ops[i].reg.value == ZYDIS_REGISTER_EIP ||
		     ops[i].reg.value == ZYDIS_REGISTER_IP))
			return true;
	switch (insn->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSTEM:
		return true;
	default:
		/* Raises #UD: the code after it never runs. */
		return insn->mnemonic == ZYDIS_MNEMONIC_UD0 || insn->mnemonic == ZYDIS_MNEMONIC_UD1 ||
		       insn->mnemonic == ZYDIS_MNEMONIC_UD2;
	}
}

static uint32_t gpr_bit(ZydisRegister reg)
{
	ZydisRegister big = reg_enclosing(reg);

	if (big < ZYDIS_REGISTER_RAX || big > ZYDIS_REGISTER_R15)
		return 0;
	return 1u << (big - ZYDIS_REGISTER_RAX);
}

/* The walk's knowledge of the thread's state at the instruction it is at. */
struct walk {
	struct decode_regs r; /* exact wherever the register is not dirty */
	uint32_t dirty;       /* GPRs whose value the walk could not compute */
	bool flags_ok;        /* r.rflags' arithmetic flags are exact */
};

#define FL_CF 0x001u
#define FL_PF 0x004u
#define FL_ZF 0x040u
#define FL_SF 0x080u
#define FL_OF 0x800u
#define FL_ARITH (FL_CF | FL_PF | FL_ZF | FL_SF | FL_OF)

/* A source operand's value, if known: an immediate or a clean GPR. */
static bool emu_src(const ZydisDecodedOperand *op, const struct walk *w, uint64_t *v)
{
	if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		*v = op->imm.is_signed ? (uint64_t)op->imm.value.s : op->imm.value.u;
		return true;
	}
	if (op->type != ZYDIS_OPERAND_TYPE_REGISTER || !gpr_bit(op->reg.value) ||
	    (gpr_bit(op->reg.value) & w->dirty))
		return false;
	return reg_read(&w->r, op->reg.value, v) == 0;
}

/* ZF, SF and PF of a result `bits` wide; CF and OF come from the caller. */
static uint64_t flags_of(uint64_t res, unsigned bits, bool cf, bool of)
{
	uint64_t sign = 1ull << (bits - 1);
	uint64_t mask = sign | (sign - 1);
	uint64_t f = 0;

	if (!(res & mask))
		f |= FL_ZF;
	if (res & sign)
		f |= FL_SF;
	if (!__builtin_parity((unsigned)(res & 0xff)))
		f |= FL_PF;
	return f | (cf ? FL_CF : 0) | (of ? FL_OF : 0);
}

/*
 * Compute simple integer arithmetic exactly: the result in a 64- or 32-bit
 * GPR (32-bit results zero-extend) and the flags that conditional branches
 * test, so the walk sees through address arithmetic and loop control.
 * Anything else: false, and the caller marks what it writes unknown.
 */
static bool emulate(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
		    struct walk *w, uint64_t ip)
{
	const ZydisDecodedOperand *d = &ops[0];
	ZydisRegisterClass cls;
	unsigned bits = d->size;
	uint64_t a = 0, b = 0, res, sign, mask;
	bool a_ok, cf = false, of = false, write = true;
	enum { FLAGS_SET, FLAGS_KEPT, FLAGS_LOST } flags = FLAGS_SET;

	if (insn->mnemonic == ZYDIS_MNEMONIC_CDQE) {
		if (w->dirty & gpr_bit(ZYDIS_REGISTER_RAX))
			return false;
		w->r.gpr[DR_RAX] = (uint64_t)(int64_t)(int32_t)(uint32_t)w->r.gpr[DR_RAX];
		return true;
	}
	if (insn->operand_count_visible < 1 || d->type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    bits < 8 || bits > 64)
		return false;
	cls = ZydisRegisterGetClass(d->reg.value);
	sign = 1ull << (bits - 1);
	mask = sign | (sign - 1);
	a_ok = emu_src(d, w, &a);
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_MOV:
		if (insn->operand_count_visible != 2 || !emu_src(&ops[1], w, &res))
			return false;
		flags = FLAGS_KEPT;
		break;
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD: {
		unsigned sb = ops[1].size;

		if (insn->operand_count_visible != 2 || !emu_src(&ops[1], w, &res) || sb < 8 ||
		    sb > 32)
			return false;
		if (insn->mnemonic != ZYDIS_MNEMONIC_MOVZX && (res >> (sb - 1)) & 1)
			res |= ~0ull << sb; /* sign-extend */
		flags = FLAGS_KEPT;
		break;
	}
	case ZYDIS_MNEMONIC_IMUL:
		/* The two- and three-operand forms keep the low half; SF, ZF and
		 * PF are undefined after them. */
		if (insn->operand_count_visible == 2 && a_ok && emu_src(&ops[1], w, &b))
			res = a * b;
		else if (insn->operand_count_visible == 3 && emu_src(&ops[1], w, &a) &&
			 emu_src(&ops[2], w, &b))
			res = a * b;
		else
			return false;
		flags = FLAGS_LOST;
		break;
	case ZYDIS_MNEMONIC_NOT:
		if (!a_ok)
			return false;
		res = ~a;
		flags = FLAGS_KEPT;
		break;
	case ZYDIS_MNEMONIC_LEA:
		if (ops[1].type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    ((gpr_bit(ops[1].mem.base) | gpr_bit(ops[1].mem.index)) & w->dirty) ||
		    mem_address(insn, &ops[1], ip, &w->r, &res))
			return false;
		flags = FLAGS_KEPT;
		break;
	case ZYDIS_MNEMONIC_XOR:
		if (ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[1].reg.value == d->reg.value) {
			res = 0; /* the zeroing idiom: no input needed */
			break;
		}
		/* fall through */
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
	case ZYDIS_MNEMONIC_CMP:
	case ZYDIS_MNEMONIC_AND:
	case ZYDIS_MNEMONIC_TEST:
	case ZYDIS_MNEMONIC_OR:
		if (insn->operand_count_visible != 2 || !a_ok || !emu_src(&ops[1], w, &b))
			return false;
		switch (insn->mnemonic) {
		case ZYDIS_MNEMONIC_ADD:
			res = a + b;
			cf = ((a & b) | ((a | b) & ~res)) & sign; /* carry out of the top bit */
			of = ((a ^ res) & (b ^ res)) & sign;
			break;
		case ZYDIS_MNEMONIC_SUB:
		case ZYDIS_MNEMONIC_CMP:
			res = a - b;
			cf = (a & mask) < (b & mask);
			of = ((a ^ b) & (a ^ res)) & sign;
			write = insn->mnemonic == ZYDIS_MNEMONIC_SUB;
			break;
		case ZYDIS_MNEMONIC_AND:
		case ZYDIS_MNEMONIC_TEST:
			res = a & b;
			write = insn->mnemonic == ZYDIS_MNEMONIC_AND;
			break;
		case ZYDIS_MNEMONIC_OR:
			res = a | b;
			break;
		default:
			res = a ^ b;
			break;
		}
		break;
	case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_SHR:
	case ZYDIS_MNEMONIC_SAR:
		/* Shift flags depend on the count (0 keeps them): not tracked. */
		if (insn->operand_count_visible != 2 || !a_ok || !emu_src(&ops[1], w, &b) ||
		    (cls != ZYDIS_REGCLASS_GPR64 && cls != ZYDIS_REGCLASS_GPR32))
			return false;
		b &= cls == ZYDIS_REGCLASS_GPR64 ? 63 : 31; /* as the CPU masks it */
		if (insn->mnemonic == ZYDIS_MNEMONIC_SHL)
			res = a << b;
		else if (insn->mnemonic == ZYDIS_MNEMONIC_SHR)
			res = a >> b;
		else if (cls == ZYDIS_REGCLASS_GPR64)
			res = (uint64_t)((int64_t)a >> b);
		else
			res = (uint64_t)(uint32_t)((int32_t)(uint32_t)a >> b);
		flags = b ? FLAGS_LOST : FLAGS_KEPT;
		break;
	case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC:
		if (!a_ok)
			return false;
		res = insn->mnemonic == ZYDIS_MNEMONIC_INC ? a + 1 : a - 1;
		of = (insn->mnemonic == ZYDIS_MNEMONIC_INC ? res & mask : a & mask) == sign;
		cf = w->r.rflags & FL_CF; /* kept, so known only if it was */
		if (!w->flags_ok)
			flags = FLAGS_LOST;
		break;
	case ZYDIS_MNEMONIC_NEG:
		if (!a_ok)
			return false;
		res = 0 - a;
		cf = (a & mask) != 0;
		of = (a & mask) == sign;
		break;
	default:
		return false;
	}
	/* Partial writes of 8- and 16-bit registers are not tracked. */
	if (write && cls != ZYDIS_REGCLASS_GPR64 && cls != ZYDIS_REGCLASS_GPR32)
		return false;
	if (write) {
		if (cls == ZYDIS_REGCLASS_GPR32)
			res &= 0xffffffffu;
		w->r.gpr[reg_enclosing(d->reg.value) - ZYDIS_REGISTER_RAX] = res;
		w->dirty &= ~gpr_bit(d->reg.value);
	}
	if (flags == FLAGS_SET) {
		w->r.rflags = (w->r.rflags & ~(uint64_t)FL_ARITH) | flags_of(res, bits, cf, of);
		w->flags_ok = true;
	} else if (flags == FLAGS_LOST) {
		w->flags_ok = false;
	}
	return true;
}

/* Whether the conditional branch is taken; false if that is not known. */
static bool cond_taken(ZydisMnemonic m, const struct walk *w, bool *taken)
{
	uint64_t f = w->r.rflags;
	bool cf = f & FL_CF, zf = f & FL_ZF, sf = f & FL_SF, of = f & FL_OF, pf = f & FL_PF;

	if (!w->flags_ok)
		return false;
	switch (m) {
	case ZYDIS_MNEMONIC_JO: *taken = of; break;
	case ZYDIS_MNEMONIC_JNO: *taken = !of; break;
	case ZYDIS_MNEMONIC_JB: *taken = cf; break;
	case ZYDIS_MNEMONIC_JNB: *taken = !cf; break;
	case ZYDIS_MNEMONIC_JZ: *taken = zf; break;
	case ZYDIS_MNEMONIC_JNZ: *taken = !zf; break;
	case ZYDIS_MNEMONIC_JBE: *taken = cf || zf; break;
	case ZYDIS_MNEMONIC_JNBE: *taken = !cf && !zf; break;
	case ZYDIS_MNEMONIC_JS: *taken = sf; break;
	case ZYDIS_MNEMONIC_JNS: *taken = !sf; break;
	case ZYDIS_MNEMONIC_JP: *taken = pf; break;
	case ZYDIS_MNEMONIC_JNP: *taken = !pf; break;
	case ZYDIS_MNEMONIC_JL: *taken = sf != of; break;
	case ZYDIS_MNEMONIC_JNL: *taken = sf == of; break;
	case ZYDIS_MNEMONIC_JLE: *taken = zf || sf != of; break;
	case ZYDIS_MNEMONIC_JNLE: *taken = !zf && sf == of; break;
	default: return false;
	}
	return true;
}

/*
 * Where control goes after a branch that does not touch memory: direct
 * jumps, conditional jumps whose flags the walk knows, and jumps through a
 * known register.  false: not known (or a system instruction).
 */
static bool branch_next(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
			const struct walk *w, uint64_t ip, uint64_t *next)
{
	ZyanU64 target;
	bool taken = true;

	if (insn->meta.category == ZYDIS_CATEGORY_COND_BR) {
		if (!cond_taken(insn->mnemonic, w, &taken))
			return false;
	} else if (insn->meta.category != ZYDIS_CATEGORY_UNCOND_BR) {
		return false;
	}
	if (!taken) {
		*next = ip + insn->length;
		return true;
	}
	if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative) {
		if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(insn, &ops[0], ip, &target)))
			return false;
		*next = target;
		return true;
	}
	if (ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    ZydisRegisterGetClass(ops[0].reg.value) == ZYDIS_REGCLASS_GPR64)
		return emu_src(&ops[0], w, next);
	return false;
}

int decode_next_access(const struct decode_code *code, const struct decode_regs *regs,
		       unsigned max_insns, struct insn_access *out)
{
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint8_t win[DECODE_WALK_WINDOW];
	uint64_t base = 0, ip;
	size_t have = 0;
	struct walk w;

	if (!atomic_load_explicit(&dec_ready, memory_order_acquire) || !code || !code->read ||
	    !regs || !out)
		return -1;
	w.r = *regs;
	w.dirty = 0;
	w.flags_ok = true;
	ip = regs->rip;
	out->flags = 0;
	for (unsigned n = 0; n < max_insns; n++) {
		const ZydisDecodedOperand *mem;
		uint64_t next;

		/* Refill at ip when it left the window, or when the window's
		 * tail may cut an instruction short. */
		if (ip < base || ip >= base + have ||
		    (base + have - ip < X86_MAX_INSN && have == sizeof(win))) {
			base = ip;
			have = code->read(ip, win, sizeof(win), code->arg);
			if (!have)
				return n ? 0 : -1;
		}
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, win + (ip - base),
							 have - (size_t)(ip - base), &insn, ops)))
			return n ? 0 : -1;
		if (!n && (insn.meta.category == ZYDIS_CATEGORY_SYSCALL ||
			   insn.meta.category == ZYDIS_CATEGORY_INTERRUPT))
			out->flags = ACC_F_KERNEL;
		mem = insn_excluded(&insn) ? NULL : mem_pick(&insn, ops);
		if (mem) {
			uint32_t uses = 0;

			if (mem->mem.base != ZYDIS_REGISTER_RIP && mem->mem.base != ZYDIS_REGISTER_EIP)
				uses |= gpr_bit(mem->mem.base);
			uses |= gpr_bit(mem->mem.index);
			if (insn.mnemonic == ZYDIS_MNEMONIC_XLAT)
				uses |= gpr_bit(ZYDIS_REGISTER_RAX);
			if (uses & w.dirty)
				return 0; /* its address depends on values not known yet */
			w.r.rip = ip;
			return access_fill(&insn, ops, ip, &w.r, false, out);
		}
		if (insn_branches(&insn, ops)) {
			if (!branch_next(&insn, ops, &w, ip, &next))
				return 0;
			ip = next;
			continue;
		}
		if (!emulate(&insn, ops, &w, ip)) {
			for (unsigned i = 0; i < insn.operand_count; i++)
				if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
				    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
					w.dirty |= gpr_bit(ops[i].reg.value);
			if (insn.cpu_flags && (insn.cpu_flags->modified | insn.cpu_flags->set_0 |
					       insn.cpu_flags->set_1 | insn.cpu_flags->undefined) & FL_ARITH)
				w.flags_ok = false;
		}
		ip += insn.length;
	}
	return 0;
}

/* The length with the most votes; 0 if none or tied. */
static unsigned vote_winner(const unsigned votes[X86_MAX_INSN + 1])
{
	unsigned best = 0, best_votes = 0;
	bool tie = false;

	for (unsigned len = 1; len <= X86_MAX_INSN; len++) {
		if (votes[len] > best_votes) {
			best = len;
			best_votes = votes[len];
			tie = false;
		} else if (votes[len] && votes[len] == best_votes) {
			tie = true;
		}
	}
	return tie ? 0 : best;
}

/*
 * Length of the instruction that ends at win_p + win, by vote.  Every
 * offset o in [0, win) is decoded once; decoding forward from o either
 * lands exactly on win or not.  land[o] memoizes where the last instruction
 * of that walk starts.  Walks that start inside an instruction usually fall
 * into step with the real boundaries within a few instructions, so the real
 * last instruction collects most votes.  Starts within 15 bytes of the end
 * have no room to fall into step (the tails of a long instruction vote for
 * themselves), so they only decide when no farther start lands.  `total`
 * bytes are readable from win_p; those past win let Zydis see that an
 * instruction straddles the end.  Returns 0 when undecided.
 */
static unsigned prev_len_vote(const uint8_t *win_p, size_t win, size_t total)
{
	int8_t land[PREV_WINDOW];
	unsigned far[X86_MAX_INSN + 1] = { 0 }, near[X86_MAX_INSN + 1] = { 0 };
	bool any_far = false;

	for (size_t o = win; o-- > 0;) {
		ZydisDecodedInstruction insn;
		size_t next;

		land[o] = -1;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, win_p + o, total - o,
								 &insn)))
			continue;
		next = o + insn.length;
		if (next == win)
			land[o] = (int8_t)o;
		else if (next < win)
			land[o] = land[next];
		if (land[o] < 0)
			continue;
		if (win - o > X86_MAX_INSN) {
			far[win - (size_t)land[o]]++;
			any_far = true;
		} else {
			near[win - (size_t)land[o]]++;
		}
	}
	return vote_winner(any_far ? far : near);
}

int decode_prev_access(const void *code, size_t before, size_t after,
		       const struct decode_regs *regs, struct insn_access *out)
{
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	const uint8_t *rip_p;
	size_t win;
	unsigned len;

	if (!atomic_load_explicit(&dec_ready, memory_order_acquire) || !code || !regs || !out ||
	    before == 0)
		return -1;
	win = before < PREV_WINDOW ? before : PREV_WINDOW;
	rip_p = (const uint8_t *)code + before;
	len = prev_len_vote(rip_p - win, win, win + after);
	if (len == 0)
		return -1;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, rip_p - len, len, &insn, ops)) ||
	    insn.length != len)
		return -1;
	return access_fill(&insn, ops, regs->rip - len, regs, true, out);
}

void decode_regs_from_ucontext(struct decode_regs *r, const void *uc,
			       uint64_t fs_base, uint64_t gs_base)
{
	static const int greg[DR_NGPR] = {
		[DR_RAX] = REG_RAX, [DR_RCX] = REG_RCX, [DR_RDX] = REG_RDX, [DR_RBX] = REG_RBX,
		[DR_RSP] = REG_RSP, [DR_RBP] = REG_RBP, [DR_RSI] = REG_RSI, [DR_RDI] = REG_RDI,
		[DR_R8] = REG_R8,   [DR_R9] = REG_R9,   [DR_R10] = REG_R10, [DR_R11] = REG_R11,
		[DR_R12] = REG_R12, [DR_R13] = REG_R13, [DR_R14] = REG_R14, [DR_R15] = REG_R15,
	};
	const mcontext_t *mc = &((const ucontext_t *)uc)->uc_mcontext;

	for (int i = 0; i < DR_NGPR; i++)
		r->gpr[i] = (uint64_t)mc->gregs[greg[i]];
	r->rip = (uint64_t)mc->gregs[REG_RIP];
	r->rflags = (uint64_t)mc->gregs[REG_EFL];
	r->fs_base = fs_base;
	r->gs_base = gs_base;
}

int decode_call_before(const void *code, size_t before, uint64_t ret, uint64_t *target)
{
	const unsigned char *end = (const unsigned char *)code + before;
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!atomic_load_explicit(&dec_ready, memory_order_acquire))
		return -1;
	/* A call is 2 (call reg) to 7 bytes (call [base+index*s+disp32]).
	 * The direct call (5) is tried first: it is the usual one, and the
	 * tail of a longer instruction can look like a short call. */
	static const unsigned char lens[] = { 5, 2, 3, 4, 6, 7 };

	for (size_t k = 0; k < sizeof(lens); k++) {
		size_t len = lens[k];

		if (len > before)
			continue;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, end - len, len, &insn, ops)) ||
		    insn.length != len || insn.mnemonic != ZYDIS_MNEMONIC_CALL)
			continue;
		if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			ZyanU64 a;

			if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&insn, &ops[0], ret - len, &a)))
				return -1;
			*target = a;
			return 1;
		}
		return 2;
	}
	return 0;
}

/* decode_stall_site's reach. */
#define STALL_SCAN 48   /* instructions after ip searched for a branch back to ip */
#define STALL_BACK 3    /* instructions a stalled access may lie before the dynamic ip */
#define STALL_AHEAD 768 /* code bytes read after ip */
#define STALL_BEHIND (PREV_WINDOW + STALL_BACK * X86_MAX_INSN)

/* GPRs an executed instruction wrote (decode_reg bits). */
static uint32_t gpr_written(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops)
{
	uint32_t w = 0;

	for (unsigned i = 0; i < insn->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			w |= gpr_bit(ops[i].reg.value);
	return w;
}

/*
 * 1 if the instruction is a data access (not an implicit stack one) whose
 * address can still be computed after it executed and after instructions
 * that wrote `later` did: its address registers are none of them, nor
 * written by itself.  0 if it is not such an access.
 */
static int stall_candidate(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
			   uint32_t later)
{
	const ZydisDecodedOperand *mem;
	uint32_t uses = 0;

	if (insn_excluded(insn) || !(mem = mem_pick(insn, ops)) || op_is_stack(mem) ||
	    mem->mem.type == ZYDIS_MEMOP_TYPE_VSIB)
		return 0;
	if (mem->mem.base != ZYDIS_REGISTER_RIP && mem->mem.base != ZYDIS_REGISTER_EIP)
		uses |= gpr_bit(mem->mem.base);
	uses |= gpr_bit(mem->mem.index);
	if (insn->mnemonic == ZYDIS_MNEMONIC_XLAT)
		uses |= gpr_bit(ZYDIS_REGISTER_RAX);
	return !(uses & (later | gpr_written(insn, ops))) && !mem_clobbered(insn, ops, mem);
}

/* Is this a branch to exactly `target` (a direct jump or jcc)? */
static bool branch_to(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
		      uint64_t ip, uint64_t target)
{
	ZyanU64 a;

	return (insn->meta.category == ZYDIS_CATEGORY_COND_BR ||
		insn->meta.category == ZYDIS_CATEGORY_UNCOND_BR) &&
	       ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative &&
	       ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(insn, &ops[0], ip, &a)) && a == target;
}

/*
 * ip heads a loop: a branch within STALL_SCAN instructions jumps back to
 * it.  Then the instructions before ip were the loop's last ones: the
 * site is the last access at most STALL_BACK instructions before that
 * branch (or none: 0).  -1: ip heads no loop found that way.
 */
static int stall_loop(const uint8_t *code, size_t have, uint64_t ip, uint64_t *site)
{
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint16_t at[STALL_SCAN];
	size_t off = 0;
	unsigned n;

	for (n = 0; n < STALL_SCAN; n++) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + off, have - off, &insn, ops)))
			return -1;
		at[n] = (uint16_t)off;
		if (branch_to(&insn, ops, ip + off, ip))
			break;
		if (insn.meta.category == ZYDIS_CATEGORY_RET ||
		    insn.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		    insn.meta.category == ZYDIS_CATEGORY_INTERRUPT ||
		    insn.meta.category == ZYDIS_CATEGORY_SYSCALL)
			return -1; /* the straight line ends before any branch back */
		off += insn.length;
	}
	if (n == STALL_SCAN)
		return -1;
	*site = 0;
	/* Back from the branch (n): what the accesses after it wrote. */
	for (uint32_t later = 0, k = 1; k <= STALL_BACK && k <= n; k++) {
		size_t o = at[n - k];

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + o, have - o, &insn, ops)))
			break;
		if (insn_branches(&insn, ops))
			break;
		if (stall_candidate(&insn, ops, later)) {
			*site = ip + o;
			break;
		}
		if (mem_pick(&insn, ops) && !insn_excluded(&insn))
			break; /* an access, but not one whose address is known */
		later |= gpr_written(&insn, ops);
	}
	return 0;
}

/* What stall_line found before ip. */
enum stall_line {
	LINE_UNKNOWN = -1, /* no telling: no vote, a call or jcc, an access with no address */
	LINE_NONE = 0,     /* no access within reach: STALL_BACK plain instructions */
	LINE_FOUND = 1,    /* *site */
	LINE_NOFALL = 2,   /* the instruction before ip does not fall through to it */
};

/* The straight line before ip: the nearest access, back over at most
 * STALL_BACK instructions that neither branch nor access memory. */
static enum stall_line stall_line(const uint8_t *code, size_t before, size_t after, uint64_t ip,
				  uint64_t *site)
{
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint32_t later = 0;
	size_t end = before; /* offset in code of the current instruction end */

	*site = 0;
	for (unsigned k = 0; k < STALL_BACK; k++) {
		size_t win = end < PREV_WINDOW ? end : PREV_WINDOW;
		unsigned len = win ? prev_len_vote(code + end - win, win, win + before + after - end) : 0;

		if (!len || !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + end - len, len, &insn,
								  ops)) || insn.length != len)
			return LINE_UNKNOWN;
		end -= len;
		if (!k && (insn.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
			   insn.meta.category == ZYDIS_CATEGORY_RET))
			return LINE_NOFALL;
		if (insn_branches(&insn, ops))
			return LINE_UNKNOWN; /* ip follows a call, or the line was entered by a jump */
		if (stall_candidate(&insn, ops, later)) {
			*site = ip - (before - end);
			return LINE_FOUND;
		}
		if (mem_pick(&insn, ops) && !insn_excluded(&insn))
			return LINE_UNKNOWN;
		later |= gpr_written(&insn, ops);
	}
	return LINE_NONE;
}

int decode_stall_site(const struct decode_code *code, uint64_t ip, uint64_t *site)
{
	uint8_t buf[STALL_BEHIND + STALL_AHEAD];
	size_t before = STALL_BEHIND, have;
	enum stall_line line;
	uint64_t fall;

	if (!atomic_load_explicit(&dec_ready, memory_order_acquire) || !code || !code->read ||
	    !site)
		return -1;
	if (ip < before)
		before = (size_t)ip;
	have = code->read(ip - before, buf, before + STALL_AHEAD, code->arg);
	if (have <= before) { /* the page before ip may be unmapped */
		before = (size_t)(ip & 4095u) < before ? (size_t)(ip & 4095u) : before;
		have = code->read(ip - before, buf, before + STALL_AHEAD, code->arg);
		if (have <= before)
			return -1;
	}
	line = stall_line(buf, before, have - before, ip, &fall);
	if (stall_loop(buf + before, have - before, ip, site) < 0)
		*site = line == LINE_FOUND ? fall : 0;
	else if (line != LINE_NOFALL && line != LINE_NONE)
		*site = 0; /* the head is also reached by falling through, past an access */
	return 0;
}

int decode_access_done(const void *code, size_t avail, uint64_t ip,
		       const struct decode_regs *regs, struct insn_access *out)
{
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!atomic_load_explicit(&dec_ready, memory_order_acquire) || !code || !regs || !out ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code, avail, &insn, ops)))
		return -1;
	return access_fill(&insn, ops, ip, regs, true, out);
}
