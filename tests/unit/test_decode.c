/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * decode: hand-assembled instructions (bytes checked against GNU as and
 * objdump) decoded with hand-built register states; every address, size,
 * kind and flag is computed by hand from the encoding.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <ucontext.h>

#include <cmocka.h>

#include "lib/agent/decode.h"
#include "lib/wire/record.h"

#define RIP 0x401000ull
#define FS_BASE 0x7f1234560000ull
#define GS_BASE 0x7f9876540000ull

/* Distinct, recognizable values: gpr[i] = 0x10000 * (i + 1). */
static struct decode_regs regs_std(void)
{
	struct decode_regs r;

	memset(&r, 0, sizeof(r));
	for (int i = 0; i < DR_NGPR; i++)
		r.gpr[i] = 0x10000ull * (uint64_t)(i + 1);
	r.rip = RIP;
	r.fs_base = FS_BASE;
	r.gs_base = GS_BASE;
	return r;
}

static int dec(const uint8_t *b, size_t n, const struct decode_regs *r, struct insn_access *a)
{
	memset(a, 0xa5, sizeof(*a)); /* the decoder must fill every field */
	return decode_access(b, n, r, a);
}

static void check_mem(const uint8_t *b, size_t n, const struct decode_regs *r, uint64_t addr,
		      unsigned size, unsigned kind, unsigned flags)
{
	struct insn_access a;

	assert_int_equal(dec(b, n, r, &a), 1);
	assert_int_equal(a.ip, r->rip);
	assert_int_equal(a.len, n);
	assert_int_equal(a.flags, flags);
	if (flags & ACC_F_ADDR)
		assert_int_equal(a.addr, addr);
	assert_int_equal(a.size, size);
	assert_int_equal(a.kind, kind);
}

static void check_nomem(const uint8_t *b, size_t n)
{
	struct decode_regs r = regs_std();
	struct insn_access a;

	assert_int_equal(dec(b, n, &r, &a), 0);
	assert_int_equal(a.ip, RIP);
	assert_int_equal(a.len, n);
	assert_int_equal(a.flags, 0);
}

#define CHECK_MEM(r, addr, size, kind, flags, ...)                                      \
	do {                                                                            \
		static const uint8_t b_[] = { __VA_ARGS__ };                            \
		check_mem(b_, sizeof(b_), (r), (addr), (size), (kind), (flags));        \
	} while (0)
#define CHECK_NOMEM(...)                                                                \
	do {                                                                            \
		static const uint8_t b_[] = { __VA_ARGS__ };                            \
		check_nomem(b_, sizeof(b_));                                            \
	} while (0)

static void test_init_idempotent(void **state)
{
	(void)state;
	assert_int_equal(decode_init(), 0);
	assert_int_equal(decode_init(), 0);
}

static void test_loads_stores(void **state)
{
	struct decode_regs r = regs_std();

	(void)state;
	/* mov rax, [rbx+rcx*8+0x10] */
	CHECK_MEM(&r, 0x40000 + 0x20000 * 8 + 0x10, 8, MEM_LOAD, ACC_F_ADDR,
		  0x48, 0x8b, 0x44, 0xcb, 0x10);
	/* mov [rdi], esi */
	CHECK_MEM(&r, 0x80000, 4, MEM_STORE, ACC_F_ADDR, 0x89, 0x37);
	/* movzx eax, byte [rsi+1] */
	CHECK_MEM(&r, 0x70001, 1, MEM_LOAD, ACC_F_ADDR, 0x0f, 0xb6, 0x46, 0x01);
	/* mov rax, [rbx-8]: negative displacement */
	CHECK_MEM(&r, 0x40000 - 8, 8, MEM_LOAD, ACC_F_ADDR, 0x48, 0x8b, 0x43, 0xf8);
	/* movzx eax, word [r12+r13*2+0x7fffffff] */
	CHECK_MEM(&r, 0xd0000 + 0xe0000 * 2 + 0x7fffffffull, 2, MEM_LOAD, ACC_F_ADDR,
		  0x43, 0x0f, 0xb7, 0x84, 0x6c, 0xff, 0xff, 0xff, 0x7f);
	/* movaps [rsp+0x10], xmm0 */
	CHECK_MEM(&r, 0x50000 + 0x10, 16, MEM_STORE, ACC_F_ADDR, 0x0f, 0x29, 0x44, 0x24, 0x10);
	/* vmovdqu ymm0, [rax] */
	CHECK_MEM(&r, 0x10000, 32, MEM_LOAD, ACC_F_ADDR, 0xc5, 0xfe, 0x6f, 0x00);
	/* vmovdqa64 [rax]{k1}, zmm0: merge-masked store, 64 bytes */
	CHECK_MEM(&r, 0x10000, 64, MEM_STORE, ACC_F_ADDR, 0x62, 0xf1, 0xfd, 0x49, 0x7f, 0x00);
	/* fxsave [rax]: 512 bytes, capped to what the field holds */
	CHECK_MEM(&r, 0x10000, 255, MEM_STORE, ACC_F_ADDR, 0x0f, 0xae, 0x00);
	/* cmp byte [rbx+8], 0 */
	CHECK_MEM(&r, 0x40008, 1, MEM_LOAD, ACC_F_ADDR, 0x80, 0x7b, 0x08, 0x00);
	/* push qword [rax]: the explicit load wins over the hidden stack store */
	CHECK_MEM(&r, 0x10000, 8, MEM_LOAD, ACC_F_ADDR, 0xff, 0x30);
}

static void test_rmw(void **state)
{
	struct decode_regs r = regs_std();

	(void)state;
	/* lock xadd [rdx], eax */
	CHECK_MEM(&r, 0x30000, 4, MEM_RMW, ACC_F_ADDR, 0xf0, 0x0f, 0xc1, 0x02);
	/* cmpxchg [rdx], rcx: conditional write still counts */
	CHECK_MEM(&r, 0x30000, 8, MEM_RMW, ACC_F_ADDR, 0x48, 0x0f, 0xb1, 0x0a);
	/* xchg [rbx], rax */
	CHECK_MEM(&r, 0x40000, 8, MEM_RMW, ACC_F_ADDR, 0x48, 0x87, 0x03);
	/* add qword [rip+0x100], 1: rip-relative from the end of the insn (8 bytes) */
	CHECK_MEM(&r, RIP + 8 + 0x100, 8, MEM_RMW, ACC_F_ADDR,
		  0x48, 0x83, 0x05, 0x00, 0x01, 0x00, 0x00, 0x01);
}

static void test_segments(void **state)
{
	struct decode_regs r = regs_std();

	(void)state;
	/* mov rax, fs:[0x28] */
	CHECK_MEM(&r, FS_BASE + 0x28, 8, MEM_LOAD, ACC_F_ADDR,
		  0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00);
	/* mov al, gs:[rbx] */
	CHECK_MEM(&r, GS_BASE + 0x40000, 1, MEM_LOAD, ACC_F_ADDR, 0x65, 0x8a, 0x03);
	/* mov eax, ds:[rbx]: ds (and es, ss, cs) have base 0 in long mode */
	CHECK_MEM(&r, 0x40000, 4, MEM_LOAD, ACC_F_ADDR, 0x3e, 0x8b, 0x03);
	/* mov rax, [0x1122334455667788] (moffs) */
	CHECK_MEM(&r, 0x1122334455667788ull, 8, MEM_LOAD, ACC_F_ADDR,
		  0x48, 0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11);
}

static void test_addr32(void **state)
{
	struct decode_regs r = regs_std();

	(void)state;
	/* mov eax, [ebx+4]: the upper half of rbx is ignored ... */
	r.gpr[DR_RBX] = 0xdead000000001000ull;
	CHECK_MEM(&r, 0x1004, 4, MEM_LOAD, ACC_F_ADDR, 0x67, 0x8b, 0x43, 0x04);
	/* ... and the sum wraps at 4 GiB */
	r.gpr[DR_RBX] = 0xfffffffeull;
	CHECK_MEM(&r, 0x2, 4, MEM_LOAD, ACC_F_ADDR, 0x67, 0x8b, 0x43, 0x04);
	/* mov eax, fs:[ebx]: truncate, then add the segment base */
	r.gpr[DR_RBX] = 0xffffffff00000100ull;
	CHECK_MEM(&r, FS_BASE + 0x100, 4, MEM_LOAD, ACC_F_ADDR, 0x64, 0x67, 0x8b, 0x03);
}

static void test_stack(void **state)
{
	struct decode_regs r = regs_std();
	const uint64_t rsp = 0x50000;

	(void)state;
	/* push rbx: stores below rsp */
	CHECK_MEM(&r, rsp - 8, 8, MEM_STORE, ACC_F_ADDR | ACC_F_STACK, 0x53);
	/* pop rbx / ret / ret 16: load at rsp */
	CHECK_MEM(&r, rsp, 8, MEM_LOAD, ACC_F_ADDR | ACC_F_STACK, 0x5b);
	CHECK_MEM(&r, rsp, 8, MEM_LOAD, ACC_F_ADDR | ACC_F_STACK, 0xc3);
	CHECK_MEM(&r, rsp, 8, MEM_LOAD, ACC_F_ADDR | ACC_F_STACK, 0xc2, 0x10, 0x00);
	/* call rel32: pushes the return address */
	CHECK_MEM(&r, rsp - 8, 8, MEM_STORE, ACC_F_ADDR | ACC_F_STACK,
		  0xe8, 0x00, 0x00, 0x00, 0x00);
	/* pushfq */
	CHECK_MEM(&r, rsp - 8, 8, MEM_STORE, ACC_F_ADDR | ACC_F_STACK, 0x9c);
	/* leave: loads the saved rbp at [rbp] */
	CHECK_MEM(&r, 0x60000, 8, MEM_LOAD, ACC_F_ADDR | ACC_F_STACK, 0xc9);
	/* pop qword [rsp+8]: addressed with the already incremented rsp */
	CHECK_MEM(&r, rsp + 8 + 8, 8, MEM_STORE, ACC_F_ADDR, 0x8f, 0x44, 0x24, 0x08);
	/* call [rip+0x100]: the explicit load of the target wins */
	CHECK_MEM(&r, RIP + 6 + 0x100, 8, MEM_LOAD, ACC_F_ADDR,
		  0xff, 0x15, 0x00, 0x01, 0x00, 0x00);
}

static void test_strings(void **state)
{
	struct decode_regs r = regs_std();

	(void)state;
	/* rep stosq: one element, at rdi */
	CHECK_MEM(&r, 0x80000, 8, MEM_STORE, ACC_F_ADDR, 0xf3, 0x48, 0xab);
	/* movsb / movsq: the store to [rdi] is reported, not the load from [rsi] */
	CHECK_MEM(&r, 0x80000, 1, MEM_STORE, ACC_F_ADDR, 0xa4);
	CHECK_MEM(&r, 0x80000, 8, MEM_STORE, ACC_F_ADDR, 0x48, 0xa5);
	/* cmpsb: two loads, the first ([rsi]) is reported */
	CHECK_MEM(&r, 0x70000, 1, MEM_LOAD, ACC_F_ADDR, 0xa6);
	/* fs: overrides the source of movsb, so the [rdi] store stays at es:0 */
	CHECK_MEM(&r, 0x80000, 1, MEM_STORE, ACC_F_ADDR, 0x64, 0xa4);
	/* xlat: [rbx + al] */
	r.gpr[DR_RAX] = 0x1234ff15;
	CHECK_MEM(&r, 0x40000 + 0x15, 1, MEM_LOAD, ACC_F_ADDR, 0xd7);
}

static void test_vsib(void **state)
{
	struct decode_regs r = regs_std();

	(void)state;
	/* vpgatherdd ymm0, [rax+ymm1*4], ymm2: no single address */
	CHECK_MEM(&r, 0, 4, MEM_LOAD, 0, 0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88);
	/* vpscatterdd [rax+zmm1*4]{k1}, zmm0 */
	CHECK_MEM(&r, 0, 4, MEM_STORE, 0, 0x62, 0xf2, 0x7d, 0x49, 0xa0, 0x04, 0x88);
}

static void test_no_memory(void **state)
{
	(void)state;
	CHECK_NOMEM(0x48, 0x8d, 0x43, 0x08);             /* lea rax, [rbx+8] */
	CHECK_NOMEM(0x90);                               /* nop */
	CHECK_NOMEM(0x01, 0xd8);                         /* add eax, ebx */
	CHECK_NOMEM(0x0f, 0x1f, 0x44, 0x00, 0x00);       /* nop dword [rax+rax] */
	CHECK_NOMEM(0x0f, 0x18, 0x08);                   /* prefetcht0 [rax] */
	CHECK_NOMEM(0x0f, 0x0d, 0x08);                   /* prefetchw [rax] */
	CHECK_NOMEM(0x0f, 0xae, 0x38);                   /* clflush [rax] */
	CHECK_NOMEM(0x66, 0x0f, 0xae, 0x30);             /* clwb [rax] */
	CHECK_NOMEM(0x74, 0x1e);                         /* je +0x1e */
	CHECK_NOMEM(0x0f, 0x0b);                         /* ud2 */
	CHECK_NOMEM(0xf3, 0x0f, 0x1e, 0xfa);             /* endbr64 */
}

static void test_undecodable(void **state)
{
	static const uint8_t full[] = { 0x48, 0x8b, 0x44, 0xcb, 0x10 };
	static const uint8_t push_es[] = { 0x06 };         /* invalid in 64-bit mode */
	static const uint8_t lock_nop[] = { 0xf0, 0x90 };  /* lock on a non-memory insn */
	static const uint8_t ff_ff[] = { 0xff, 0xff };     /* reserved /7 */
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	/* the instruction crosses the end of the readable bytes */
	for (size_t n = 0; n < sizeof(full); n++)
		assert_int_equal(dec(full, n, &r, &a), -1);
	assert_int_equal(dec(full, sizeof(full), &r, &a), 1);
	assert_int_equal(dec(push_es, sizeof(push_es), &r, &a), -1);
	assert_int_equal(dec(lock_nop, sizeof(lock_nop), &r, &a), -1);
	assert_int_equal(dec(ff_ff, sizeof(ff_ff), &r, &a), -1);
	assert_int_equal(decode_access(NULL, 15, &r, &a), -1);
}

/*
 * A function prologue and body (GNU as output):
 *   0: 55                      push rbp
 *   1: 48 89 e5                mov rbp, rsp
 *   4: 41 57                   push r15
 *   6: 41 56                   push r14
 *   8: 53                      push rbx
 *   9: 48 83 ec 48             sub rsp, 0x48
 *   d: 49 89 fe                mov r14, rdi
 *  10: 64 48 8b 04 25 28 0 0 0 mov rax, fs:[0x28]
 *  19: 48 89 44 24 40          mov [rsp+0x40], rax
 *  1e: 31 c0                   xor eax, eax
 *  20: 48 8d 3d 34 12 00 00    lea rdi, [rip+0x1234]
 *  27: 41 8b 4e 10             mov ecx, [r14+0x10]
 *  2b: 85 c9                   test ecx, ecx
 *  2d: 74 1e                   je 0x4d
 *  2f: 48 63 d1                movsxd rdx, ecx
 *  32: 48 6b d2 38             imul rdx, rdx, 0x38
 *  36: 41 0f 10 44 16 20       movups xmm0, [r14+rdx+0x20]
 *  3c: 0f 29 44 24 10          movaps [rsp+0x10], xmm0
 *  41: 80 7b 08 00             cmp byte [rbx+8], 0
 *  45: 0f 85 fa 00 00 00       jne 0x145
 *  4b: 48 8b 58 08             mov rbx, [rax+8]
 *  4f: 01 d8                   add eax, ebx
 *  51: c5 fe 6f 4c 8e c0       vmovdqu ymm1, [rsi+rcx*4-0x40]
 *  57: f0 0f c1 02             lock xadd [rdx], eax
 *  5b: 48 c7 44 24 38 78 56 34 12  mov qword [rsp+0x38], 0x12345678
 *  64: e8 fb 0f 00 00          call 0x1064
 *  69: 43 0f b7 84 6c ff ff ff 7f  movzx eax, word [r12+r13*2+0x7fffffff]
 *  72: 0f 1f 04 00             nop dword [rax+rax]
 *  76: 48 8b 00                mov rax, [rax]
 *  79: c3                      ret
 *  7a: 8b 05 10 00 00 00       mov eax, [rip+0x10]
 *  80: a4                      movsb
 *  81:
 */
static const uint8_t blob[] = {
	0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x41, 0x56, 0x53, 0x48, 0x83, 0xec, 0x48,
	0x49, 0x89, 0xfe, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00,
	0x48, 0x89, 0x44, 0x24, 0x40, 0x31, 0xc0, 0x48, 0x8d, 0x3d, 0x34, 0x12, 0x00, 0x00,
	0x41, 0x8b, 0x4e, 0x10, 0x85, 0xc9, 0x74, 0x1e, 0x48, 0x63, 0xd1,
	0x48, 0x6b, 0xd2, 0x38, 0x41, 0x0f, 0x10, 0x44, 0x16, 0x20,
	0x0f, 0x29, 0x44, 0x24, 0x10, 0x80, 0x7b, 0x08, 0x00,
	0x0f, 0x85, 0xfa, 0x00, 0x00, 0x00, 0x48, 0x8b, 0x58, 0x08, 0x01, 0xd8,
	0xc5, 0xfe, 0x6f, 0x4c, 0x8e, 0xc0, 0xf0, 0x0f, 0xc1, 0x02,
	0x48, 0xc7, 0x44, 0x24, 0x38, 0x78, 0x56, 0x34, 0x12, 0xe8, 0xfb, 0x0f, 0x00, 0x00,
	0x43, 0x0f, 0xb7, 0x84, 0x6c, 0xff, 0xff, 0xff, 0x7f, 0x0f, 0x1f, 0x04, 0x00,
	0x48, 0x8b, 0x00, 0xc3, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00, 0xa4,
};
static const uint8_t blob_starts[] = {
	0x00, 0x01, 0x04, 0x06, 0x08, 0x09, 0x0d, 0x10, 0x19, 0x1e, 0x20, 0x27, 0x2b, 0x2d,
	0x2f, 0x32, 0x36, 0x3c, 0x41, 0x45, 0x4b, 0x4f, 0x51, 0x57, 0x5b, 0x64, 0x69, 0x72,
	0x76, 0x79, 0x7a, 0x80, sizeof(blob),
};

/* Registers after the instruction ending at `end`; rip = that end. */
static int prev(size_t end, size_t before, struct decode_regs *r, struct insn_access *a)
{
	r->rip = RIP + end;
	memset(a, 0xa5, sizeof(*a));
	return decode_prev_access(blob + end - before, before, sizeof(blob) - end, r, a);
}

static void test_prev_every_boundary(void **state)
{
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	/* With at least 16 bytes of history every instruction is found. */
	for (size_t i = 1; i < sizeof(blob_starts); i++) {
		size_t end = blob_starts[i], len = end - blob_starts[i - 1];

		if (end < 16)
			continue;
		assert_in_range(prev(end, end, &r, &a), 0, 1);
		assert_int_equal(a.ip, RIP + blob_starts[i - 1]);
		assert_int_equal(a.len, len);
	}
}

static void test_prev_short_history(void **state)
{
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	/* mov qword [rsp+0x38], 0x12345678 (9 bytes) has tails that end at
	 * rip too ("c7 44 24 38 ..", "34 12"); starts from 16+ bytes back
	 * must outvote them. */
	for (size_t before = 16; before <= 24; before++) {
		assert_int_equal(prev(0x64, before, &r, &a), 1);
		assert_int_equal(a.ip, RIP + 0x5b);
		assert_int_equal(a.len, 9);
		assert_int_equal(a.kind, MEM_STORE);
		assert_int_equal(a.size, 8);
		assert_int_equal(a.addr, 0x50000 + 0x38);
	}
	/* From 16 bytes before "mov eax, [rip+0x10]" the only far start hits
	 * "ff 7f" (invalid); the near starts decide. */
	assert_int_equal(prev(0x80, 16, &r, &a), 1);
	assert_int_equal(a.ip, RIP + 0x7a);
	assert_int_equal(a.len, 6);
}

static void test_prev_access(void **state)
{
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	/* mov rbx, [rax+8]: rbx written, rax intact */
	assert_int_equal(prev(0x4f, 0x4f, &r, &a), 1);
	assert_int_equal(a.ip, RIP + 0x4b);
	assert_int_equal(a.len, 4);
	assert_int_equal(a.flags, ACC_F_ADDR);
	assert_int_equal(a.addr, 0x10000 + 8);
	assert_int_equal(a.size, 8);
	assert_int_equal(a.kind, MEM_LOAD);

	/* mov rax, [rax]: the address register was overwritten */
	assert_int_equal(prev(0x79, 0x79, &r, &a), 1);
	assert_int_equal(a.ip, RIP + 0x76);
	assert_int_equal(a.flags, ACC_F_CLOBBERED);
	assert_int_equal(a.size, 8);
	assert_int_equal(a.kind, MEM_LOAD);

	/* lock xadd [rdx], eax: writes eax, not rdx */
	assert_int_equal(prev(0x5b, 0x5b, &r, &a), 1);
	assert_int_equal(a.flags, ACC_F_ADDR);
	assert_int_equal(a.addr, 0x30000);
	assert_int_equal(a.kind, MEM_RMW);
	assert_int_equal(a.size, 4);

	/* mov eax, [rip+0x10]: rip-relative to the end, which is rip now */
	assert_int_equal(prev(0x80, 0x80, &r, &a), 1);
	assert_int_equal(a.ip, RIP + 0x7a);
	assert_int_equal(a.flags, ACC_F_ADDR);
	assert_int_equal(a.addr, RIP + 0x80 + 0x10);

	/* mov rax, fs:[0x28] */
	assert_int_equal(prev(0x19, 0x19, &r, &a), 1);
	assert_int_equal(a.flags, ACC_F_ADDR);
	assert_int_equal(a.addr, FS_BASE + 0x28);

	/* movups xmm0, [r14+rdx+0x20]; before limited to 20 bytes */
	assert_int_equal(prev(0x3c, 20, &r, &a), 1);
	assert_int_equal(a.ip, RIP + 0x36);
	assert_int_equal(a.addr, 0xf0000 + 0x30000 + 0x20);
	assert_int_equal(a.size, 16);

	/* call, ret, movsb: rsp or rsi/rdi moved */
	assert_int_equal(prev(0x69, 0x69, &r, &a), 1);
	assert_int_equal(a.flags, ACC_F_STACK | ACC_F_CLOBBERED);
	assert_int_equal(a.kind, MEM_STORE);
	assert_int_equal(prev(0x7a, 0x7a, &r, &a), 1);
	assert_int_equal(a.flags, ACC_F_STACK | ACC_F_CLOBBERED);
	assert_int_equal(a.kind, MEM_LOAD);
	assert_int_equal(prev(sizeof(blob), sizeof(blob), &r, &a), 1);
	assert_int_equal(a.flags, ACC_F_CLOBBERED);
	assert_int_equal(a.kind, MEM_STORE);
	assert_int_equal(a.size, 1);
}

static void test_prev_nomem(void **state)
{
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	/* add eax, ebx */
	assert_int_equal(prev(0x51, 0x51, &r, &a), 0);
	assert_int_equal(a.ip, RIP + 0x4f);
	assert_int_equal(a.len, 2);
	assert_int_equal(a.flags, 0);
	/* lea rdi, [rip+0x1234] */
	assert_int_equal(prev(0x27, 0x27, &r, &a), 0);
	assert_int_equal(a.ip, RIP + 0x20);
	/* nop dword [rax+rax] */
	assert_int_equal(prev(0x76, 0x76, &r, &a), 0);
	assert_int_equal(a.len, 4);
}

static void test_prev_ambiguous(void **state)
{
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	/* Only "48 8b 58 08" is visible: it and its tail "8b 58 08"
	 * (mov ebx, [rax+8]) both end at rip, one vote each. */
	assert_int_equal(prev(0x4f, 4, &r, &a), -1);
	/* Nothing before rip at all. */
	assert_int_equal(prev(0x4f, 0, &r, &a), -1);
	/* Only "08" precedes rip, and "08 01" runs past it. */
	assert_int_equal(prev(0x4f, 1, &r, &a), -1);
}

/* Code for decode_next_access: `n` bytes placed at RIP. */
struct buf_code {
	const uint8_t *b;
	size_t n;
};

static size_t buf_read(uint64_t addr, void *dst, size_t len, void *arg)
{
	const struct buf_code *c = arg;

	if (addr < RIP || addr >= RIP + c->n)
		return 0;
	if (len > RIP + c->n - addr)
		len = (size_t)(RIP + c->n - addr);
	memcpy(dst, c->b + (addr - RIP), len);
	return len;
}

static int next(const uint8_t *b, size_t n, const struct decode_regs *r, unsigned max,
		struct insn_access *a)
{
	struct buf_code c = { b, n };
	struct decode_code code = { buf_read, &c };

	return decode_next_access(&code, r, max, a);
}

/* The walk says when the instruction at the IP enters the kernel, which
 * the soft source must not single-step (a system call may block SIGTRAP). */
static void test_next_kernel(void **state)
{
	static const uint8_t sys[] = { 0x0f, 0x05 };        /* syscall */
	static const uint8_t int80[] = { 0xcd, 0x80 };      /* int 0x80 */
	static const uint8_t later[] = { 0x90, 0x0f, 0x05 }; /* nop ; syscall */
	static const uint8_t cpuid[] = { 0x0f, 0xa2 };      /* cpuid: no memory, stays in user */
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	assert_int_equal(next(sys, sizeof(sys), &r, 16, &a), 0);
	assert_int_equal(a.flags, ACC_F_KERNEL);
	assert_int_equal(next(int80, sizeof(int80), &r, 16, &a), 0);
	assert_int_equal(a.flags, ACC_F_KERNEL);
	/* Not yet: the nop is stepped, and the next step looks again. */
	assert_int_equal(next(later, sizeof(later), &r, 16, &a), 0);
	assert_int_equal(a.flags, 0);
	assert_int_equal(next(later, sizeof(later), &r, 1, &a), 0);
	assert_int_equal(a.flags, 0);
	assert_int_equal(next(cpuid, sizeof(cpuid), &r, 16, &a), 0);
	assert_int_equal(a.flags, 0);
}

/* decode_next_access: the walk ahead of an unexecuted IP. */
static void test_next_walk(void **state)
{
	/* add rdx,1 ; mov rcx,[rbx+8] : the load's registers are untouched */
	static const uint8_t straight[] = { 0x48, 0x83, 0xc2, 0x01, 0x48, 0x8b, 0x4b, 0x08 };
	/* add rbx,8 ; mov rcx,[rbx] : rbx changes before the load, exactly */
	static const uint8_t dirty[] = { 0x48, 0x83, 0xc3, 0x08, 0x48, 0x8b, 0x0b };
	/* imul rcx,rcx,3 ; jne .+0 ; mov [rbx],rax : flags not computed stop the walk */
	static const uint8_t branch[] = { 0x48, 0x6b, 0xc9, 0x03, 0x75, 0x00, 0x48, 0x89, 0x03 };
	/* add rdx,1 ; ret : the return's stack load is the next access */
	static const uint8_t ret[] = { 0x48, 0x83, 0xc2, 0x01, 0xc3 };
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	assert_int_equal(next(straight, sizeof(straight), &r, 16, &a), 1);
	assert_int_equal(a.ip, RIP + 4);
	assert_int_equal(a.addr, r.gpr[DR_RBX] + 8);
	assert_int_equal(a.kind, MEM_LOAD);
	assert_int_equal(a.size, 8);
	assert_true(a.flags & ACC_F_ADDR);
	assert_int_equal(next(dirty, sizeof(dirty), &r, 16, &a), 1);
	assert_int_equal(a.addr, r.gpr[DR_RBX] + 8);
	assert_int_equal(next(branch, sizeof(branch), &r, 16, &a), 0);
	assert_int_equal(next(ret, sizeof(ret), &r, 16, &a), 1);
	assert_int_equal(a.addr, r.gpr[DR_RSP]);
	assert_true(a.flags & ACC_F_STACK);
	/* The budget and the bytes bound the walk. */
	assert_int_equal(next(straight, sizeof(straight), &r, 1, &a), 0);
	assert_int_equal(next(straight, 4, &r, 16, &a), 0);
	/* Address arithmetic before the access is computed, not guessed:
	 * lea rax,[rbx+rcx*8] ; add rax,0x10 ; mov edx,[rax] */
	{
		static const uint8_t arith[] = { 0x48, 0x8d, 0x04, 0xcb, 0x48, 0x83, 0xc0, 0x10,
						 0x8b, 0x10 };
		/* shl rcx,3 ; mov rdx,[rbx+rcx] ; and: imul is not computed */
		static const uint8_t shl[] = { 0x48, 0xc1, 0xe1, 0x03, 0x48, 0x8b, 0x14, 0x0b };
		static const uint8_t imul[] = { 0x48, 0x6b, 0xc9, 0x03, 0x48, 0x8b, 0x14, 0x0b };
		/* movsxd rcx,ecx ; mov rdx,[rbx+rcx] with ecx negative */
		static const uint8_t sxd[] = { 0x48, 0x63, 0xc9, 0x48, 0x8b, 0x14, 0x0b };
		/* popcnt rcx,rcx ; mov rdx,[rbx+rcx] : not computed */
		static const uint8_t popcnt[] = { 0xf3, 0x48, 0x0f, 0xb8, 0xc9, 0x48, 0x8b, 0x14, 0x0b };

		assert_int_equal(next(arith, sizeof(arith), &r, 16, &a), 1);
		assert_int_equal(a.addr, r.gpr[DR_RBX] + r.gpr[DR_RCX] * 8 + 0x10);
		assert_int_equal(a.size, 4);
		assert_int_equal(next(shl, sizeof(shl), &r, 16, &a), 1);
		assert_int_equal(a.addr, r.gpr[DR_RBX] + (r.gpr[DR_RCX] << 3));
		assert_int_equal(next(imul, sizeof(imul), &r, 16, &a), 1);
		assert_int_equal(a.addr, r.gpr[DR_RBX] + r.gpr[DR_RCX] * 3);
		assert_int_equal(next(popcnt, sizeof(popcnt), &r, 16, &a), 0);
		r.gpr[DR_RCX] = 0xfffffff0u;
		assert_int_equal(next(sxd, sizeof(sxd), &r, 16, &a), 1);
		assert_int_equal(a.addr, r.gpr[DR_RBX] - 16);
		r = regs_std();
	}
	/* An undecodable first instruction is an error, not "no access". */
	assert_int_equal(next(straight, 2, &r, 16, &a), -1);
}

/* The walk follows branches whose direction it computed. */
static void test_next_branches(void **state)
{
	/* 0: mov rcx,[rbx] ; 3: add rbx,8 ; 7: sub edx,1 ; 10: jne 0 ; 12: mov [rbx],rax */
	static const uint8_t loop[] = { 0x48, 0x8b, 0x0b, 0x48, 0x83, 0xc3, 0x08, 0x83, 0xea,
					0x01, 0x75, 0xf4, 0x48, 0x89, 0x03 };
	/* cmp eax,5 ; jl +3 ; mov [rcx],eax ; mov [rdx],eax   (signed) */
	static const uint8_t jl[] = { 0x83, 0xf8, 0x05, 0x7c, 0x02, 0x89, 0x01, 0x89, 0x02 };
	/* cmp eax,5 ; jb +3 ; mov [rcx],eax ; mov [rdx],eax   (unsigned) */
	static const uint8_t jb[] = { 0x83, 0xf8, 0x05, 0x72, 0x02, 0x89, 0x01, 0x89, 0x02 };
	/* jmp +2 ; ud2 ; mov rax,[rsi] */
	static const uint8_t jmp[] = { 0xeb, 0x02, 0x0f, 0x0b, 0x48, 0x8b, 0x06 };
	/* jz +2 ; ud2 ; mov rax,[rsi] : decided by the interrupted flags */
	static const uint8_t jz[] = { 0x74, 0x02, 0x0f, 0x0b, 0x48, 0x8b, 0x06 };
	/* jmp -100 : out of the readable code */
	static const uint8_t away[] = { 0xeb, 0x9a, 0x48, 0x8b, 0x06 };
	struct decode_regs r = regs_std();
	struct insn_access a;
	struct buf_code c = { loop, sizeof(loop) };
	struct decode_code code = { buf_read, &c };

	(void)state;
	/* Sampled just after the load (skid): round the back-edge to it. */
	r.rip = RIP + 3;
	assert_int_equal(decode_next_access(&code, &r, 16, &a), 1);
	assert_int_equal(a.ip, RIP);
	assert_int_equal(a.addr, r.gpr[DR_RBX] + 8);
	assert_int_equal(a.kind, MEM_LOAD);
	/* Last iteration: the loop exits to the store. */
	r.gpr[DR_RDX] = 1;
	assert_int_equal(decode_next_access(&code, &r, 16, &a), 1);
	assert_int_equal(a.ip, RIP + 12);
	assert_int_equal(a.addr, r.gpr[DR_RBX] + 8);
	assert_int_equal(a.kind, MEM_STORE);

	/* -1 < 5 signed, 0xffffffff > 5 unsigned: CF, SF and OF all count. */
	r = regs_std();
	r.gpr[DR_RAX] = 0xffffffffu;
	assert_int_equal(next(jl, sizeof(jl), &r, 16, &a), 1);
	assert_int_equal(a.addr, r.gpr[DR_RDX]);
	assert_int_equal(next(jb, sizeof(jb), &r, 16, &a), 1);
	assert_int_equal(a.addr, r.gpr[DR_RCX]);
	r.gpr[DR_RAX] = 4;
	assert_int_equal(next(jb, sizeof(jb), &r, 16, &a), 1);
	assert_int_equal(a.addr, r.gpr[DR_RDX]);

	assert_int_equal(next(jmp, sizeof(jmp), &r, 16, &a), 1);
	assert_int_equal(a.addr, r.gpr[DR_RSI]);
	assert_int_equal(a.ip, RIP + 4);
	r.rflags = 0x40; /* ZF */
	assert_int_equal(next(jz, sizeof(jz), &r, 16, &a), 1);
	assert_int_equal(a.addr, r.gpr[DR_RSI]);
	r.rflags = 0;
	assert_int_equal(next(jz, sizeof(jz), &r, 16, &a), 0); /* falls into ud2 */
	assert_int_equal(next(away, sizeof(away), &r, 16, &a), 0);
}

static void test_regs_from_ucontext(void **state)
{
	static const int greg[DR_NGPR] = {
		REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
		REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
	};
	ucontext_t uc;
	struct decode_regs r;

	(void)state;
	memset(&uc, 0, sizeof(uc));
	for (int i = 0; i < DR_NGPR; i++)
		uc.uc_mcontext.gregs[greg[i]] = 0x1000 + i;
	uc.uc_mcontext.gregs[REG_RIP] = 0x401234;
	uc.uc_mcontext.gregs[REG_EFL] = 0x246;
	decode_regs_from_ucontext(&r, &uc, FS_BASE, GS_BASE);
	for (int i = 0; i < DR_NGPR; i++)
		assert_int_equal(r.gpr[i], 0x1000 + i);
	assert_int_equal(r.rip, 0x401234);
	assert_int_equal(r.fs_base, FS_BASE);
	assert_int_equal(r.gs_base, GS_BASE);
}

static uint64_t stall(const uint8_t *b, size_t n, size_t ip_off)
{
	struct buf_code c = { b, n };
	struct decode_code code = { buf_read, &c };
	uint64_t site = 1;

	assert_int_equal(decode_stall_site(&code, RIP + ip_off, &site), 0);
	return site;
}

/* decode_stall_site: the access a timer sample at ip stalled on. */
static void test_stall_site(void **state)
{
#define NOPS16 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, \
	       0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90
#define LOOP 0x48, 0x8b, 0x07, 0xf0, 0x48, 0x83, 0x04, 0xd0, 0x01, 0x83, 0xe9, 0x01, 0x75, 0xf2
	/* 16 nops (history for the vote), then
	 * head: mov rax,[rdi] ; lock add qword [rax+rdx*8],1 ; sub ecx,1 ; jne head */
	static const uint8_t loop[] = { NOPS16, LOOP };
	/* mov rcx,[rbx] ; head: the same loop: reached by falling through a load too */
	static const uint8_t entered[] = { NOPS16, 0x48, 0x8b, 0x0b, LOOP };
	/* ret ; head: ... : nothing falls through to the head */
	static const uint8_t jumped[] = { NOPS16, 0xc3, LOOP };
	/* head: lock add qword [rax],1 ; add ecx,1 (x3) ; jne head: too far back */
	static const uint8_t far[] = { NOPS16, 0xf0, 0x48, 0x83, 0x00, 0x01, 0x83, 0xc1, 0x01, 0x83,
				       0xc1, 0x01, 0x83, 0xc1, 0x01, 0x75, 0xf0 };
	/* mov rax,[rbx] ; add ecx,1 ; | ret */
	static const uint8_t line[] = { NOPS16, 0x48, 0x8b, 0x03, 0x83, 0xc1, 0x01, 0xc3 };
	/* mov rax,[rax] ; | ret : the load overwrote its own address */
	static const uint8_t own[] = { NOPS16, 0x48, 0x8b, 0x00, 0xc3 };
	/* mov rdx,[rbx] ; add rbx,8 ; | ret : its address changed since */
	static const uint8_t moved[] = { NOPS16, 0x48, 0x8b, 0x13, 0x48, 0x83, 0xc3, 0x08, 0xc3 };
	/* call .+5 ; | ret : ip follows a call */
	static const uint8_t call[] = { NOPS16, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3 };
	/* push rax ; | ret : stack operands are never sites */
	static const uint8_t push[] = { NOPS16, 0x50, 0xc3 };
#undef LOOP
#undef NOPS16
	struct decode_regs r = regs_std();
	struct insn_access a;

	(void)state;
	/* At the loop's head the last iteration ran before: the lock add. */
	assert_int_equal(stall(loop, sizeof(loop), 16), RIP + 16 + 3);
	assert_int_equal(stall(jumped, sizeof(jumped), 16 + 1), RIP + 16 + 1 + 3);
	/* Which way it came, from the load or round the loop, is not known. */
	assert_int_equal(stall(entered, sizeof(entered), 16 + 3), 0);
	/* Inside the body, the straight line before. */
	assert_int_equal(stall(loop, sizeof(loop), 16 + 9), RIP + 16 + 3);
	assert_int_equal(stall(far, sizeof(far), 16), 0);
	assert_int_equal(stall(line, sizeof(line), 16 + 6), RIP + 16);
	assert_int_equal(stall(own, sizeof(own), 16 + 3), 0);
	assert_int_equal(stall(moved, sizeof(moved), 16 + 7), 0);
	assert_int_equal(stall(call, sizeof(call), 16 + 5), 0);
	assert_int_equal(stall(push, sizeof(push), 16 + 1), 0);
	/* The site's address from the registers after it ran. */
	assert_int_equal(decode_access_done(loop + 16 + 3, sizeof(loop) - 16 - 3, RIP + 16 + 3, &r, &a), 1);
	assert_true(a.flags & ACC_F_ADDR);
	assert_int_equal(a.addr, r.gpr[DR_RAX] + 8 * r.gpr[DR_RDX]);
	assert_int_equal(a.kind, MEM_RMW);
	assert_int_equal(a.size, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_idempotent),
		cmocka_unit_test(test_next_kernel),
		cmocka_unit_test(test_next_walk),
		cmocka_unit_test(test_next_branches),
		cmocka_unit_test(test_loads_stores),
		cmocka_unit_test(test_rmw),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_addr32),
		cmocka_unit_test(test_stack),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_vsib),
		cmocka_unit_test(test_no_memory),
		cmocka_unit_test(test_undecodable),
		cmocka_unit_test(test_prev_every_boundary),
		cmocka_unit_test(test_prev_short_history),
		cmocka_unit_test(test_prev_access),
		cmocka_unit_test(test_prev_nomem),
		cmocka_unit_test(test_prev_ambiguous),
		cmocka_unit_test(test_regs_from_ucontext),
		cmocka_unit_test(test_stall_site),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
