// SPDX-License-Identifier: GPL-2.0-only
/*
 * Non-local exits: longjmp and its kin, and the C++ exception unwinder,
 * wrapped so the running tool learns that frames are about to go
 * (agent_tool.jump) before the real function jumps.  Which frames go is
 * not known here: glibc mangles the stack pointer in a jmp_buf, and the
 * unwinder decides its landing frame as it goes.  The tool tells at the
 * thread's next sample or trap, from where its stack pointer is then.
 *
 * The real functions are looked up at start (jumps_init): siglongjmp is
 * often called from a signal handler, where a lookup (the loader lock) is not
 * safe.
 *
 * Out of a handler of the program's that runs on its own alternate stack
 * while cdt's events are held (sigchain.c), the jump is made here: glibc's
 * unblocks the saved mask while still on that stack, and a signal of
 * cdt's, or any, that came then would need a frame where there may be no
 * room (comm died so one run in 250).  jumps_land moves to the landing
 * stack first, then sets the mask.  It reads the jmp_buf as glibc's
 * __longjmp does on x86-64 (rbx rbp r12-r15 rsp pc, the three pointers
 * mangled with the thread's pointer guard at %fs:0x30), and skips what
 * glibc's longjmp does besides: cancellation cleanups of the frames jumped
 * over, and the shadow stack (neither is in use in such a handler here).
 */
#include <setjmp.h>
#include <signal.h>

#include "lib/agent/agent.h"

typedef void (*jump_fn)(struct __jmp_buf_tag *, int);
struct _Unwind_Exception;
typedef int (*raise_fn)(struct _Unwind_Exception *);

enum { J_LONGJMP, J__LONGJMP, J_SIGLONGJMP, J_LONGJMP_CHK, J_RAISE, J_N };
static const char *const jumps_name[J_N] = {
	"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "_Unwind_RaiseException",
};
static void *jumps_real[J_N];

void jumps_init(void)
{
	for (int i = 0; i < J_N; i++)
		jumps_real[i] = agent_next(jumps_name[i]);
}

static void *jumps_tell(int i, int how)
{
	struct agent_thread *t;

	/* Out of a handler on the program's stack: cdt's events go on. */
	sigchain_jump();
	t = agent_self();
	if (agent_g.active && t && agent_g.tool->jump)
		agent_g.tool->jump(t, how);
	/* Called before the agent started (another constructor): look now. */
	return jumps_real[i] ? jumps_real[i] : agent_next(jumps_name[i]);
}

/* jumps_land(r, val, mask): rbx rbp r12-r15 rsp pc from r[], the landing
 * stack first, then the mask, then pc with val (1 for 0) in rax. */
__attribute__((noreturn)) void jumps_land(const uint64_t r[8], int val, const sigset_t *mask);
__asm__(".text\n"
	".globl jumps_land\n"
	".hidden jumps_land\n"
	".type jumps_land, @function\n"
	".p2align 4\n"
	"jumps_land:\n"
	"	movl %esi, %r9d\n"
	"	movq %rdx, %rsi\n"
	"	movq 56(%rdi), %r8\n"
	"	movq 0(%rdi), %rbx\n"
	"	movq 8(%rdi), %rbp\n"
	"	movq 16(%rdi), %r12\n"
	"	movq 24(%rdi), %r13\n"
	"	movq 32(%rdi), %r14\n"
	"	movq 40(%rdi), %r15\n"
	"	movq 48(%rdi), %rsp\n"
	"	movl $14, %eax\n" /* rt_sigprocmask(SIG_SETMASK, mask, NULL, 8) */
	"	movl $2, %edi\n"
	"	xorl %edx, %edx\n"
	"	movl $8, %r10d\n"
	"	syscall\n"
	"	movl %r9d, %eax\n"
	"	testl %eax, %eax\n"
	"	jnz 1f\n"
	"	movl $1, %eax\n"
	"1:	jmp *%r8\n"
	".size jumps_land, .-jumps_land\n"
	".previous\n");

static uint64_t jumps_demangle(uint64_t v)
{
	uint64_t guard;

	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	return ((v >> 17) | (v << 47)) ^ guard;
}

/* restores: the function restores a saved mask (all but _longjmp). */
static __attribute__((noreturn)) void jumps_jump(int i, struct __jmp_buf_tag *env, int val,
						 int restores)
{
	const long *b = env->__jmpbuf;
	uint64_t r[8];
	sigset_t mask;
	jump_fn fn;

	if (sigchain_jump_prepare(&mask)) {
		struct agent_thread *t = agent_self();

		if (agent_g.active && t && agent_g.tool->jump)
			agent_g.tool->jump(t, AGENT_JUMP_LONGJMP);
		if (restores && env->__mask_was_saved)
			mask = env->__saved_mask;
		sigdelset(&mask, SIGTRAP);
		sigdelset(&mask, AGENT_SIGCLOCK);
		for (int k = 0; k < 8; k++)
			r[k] = k == 1 || k >= 6 ? jumps_demangle((uint64_t)b[k]) : (uint64_t)b[k];
		jumps_land(r, val, &mask);
	}
	fn = (jump_fn)jumps_tell(i, AGENT_JUMP_LONGJMP);
	if (fn)
		fn(env, val);
	__builtin_trap(); /* no libc to jump with */
}

#define JUMPS_WRAP(name, i, restores)                                               \
	AGENT_API __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val) \
	{                                                                           \
		jumps_jump(i, env, val, restores);                                  \
	}

JUMPS_WRAP(longjmp, J_LONGJMP, 1)
JUMPS_WRAP(_longjmp, J__LONGJMP, 0)
JUMPS_WRAP(siglongjmp, J_SIGLONGJMP, 1)
JUMPS_WRAP(__longjmp_chk, J_LONGJMP_CHK, 1)

/* libgcc's unwinder starts every C++ throw here, through the PLT. */
AGENT_API int _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	raise_fn fn = (raise_fn)jumps_tell(J_RAISE, AGENT_JUMP_THROW);

	return fn ? fn(e) : 5; /* _URC_END_OF_STACK: nothing catches it */
}
