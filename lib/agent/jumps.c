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
 * often called from a signal handler, where dlsym (the loader lock) is not
 * safe.
 */
#include <dlfcn.h>
#include <setjmp.h>

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
		jumps_real[i] = dlsym(RTLD_NEXT, jumps_name[i]);
}

static void *jumps_tell(int i, int how)
{
	/* Out of a handler on the program's stack: cdt's events go on. */
	sigchain_jump();
	if (agent_g.active && agent_self && agent_g.tool->jump)
		agent_g.tool->jump(agent_self, how);
	/* Called before the agent started (another constructor): look now. */
	return jumps_real[i] ? jumps_real[i] : dlsym(RTLD_NEXT, jumps_name[i]);
}

#define JUMPS_WRAP(name, i)                                                         \
	AGENT_API __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val) \
	{                                                                           \
		jump_fn fn = (jump_fn)jumps_tell(i, AGENT_JUMP_LONGJMP);            \
		if (fn)                                                             \
			fn(env, val);                                               \
		__builtin_trap(); /* no libc to jump with */                        \
	}

JUMPS_WRAP(longjmp, J_LONGJMP)
JUMPS_WRAP(_longjmp, J__LONGJMP)
JUMPS_WRAP(siglongjmp, J_SIGLONGJMP)
JUMPS_WRAP(__longjmp_chk, J_LONGJMP_CHK)

/* libgcc's unwinder starts every C++ throw here, through the PLT. */
AGENT_API int _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	raise_fn fn = (raise_fn)jumps_tell(J_RAISE, AGENT_JUMP_THROW);

	return fn ? fn(e) : 5; /* _URC_END_OF_STACK: nothing catches it */
}
