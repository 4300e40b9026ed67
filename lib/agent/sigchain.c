// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keeping cdt's signals handled by cdt and deliverable, without the
 * program seeing it.  cdt has two: SIGTRAP (perf events' traps, single
 * steps) and AGENT_SIGCLOCK, the POSIX sample clock's.  The clock's is a
 * real-time signal because standard signals do not queue: while a timer's
 * SIGTRAP was pending, a watchpoint's SIGTRAP was discarded (47 of 20000
 * lost in one run).
 *
 * The program's sigaction() and signal() calls for either are interposed:
 * its handler is stored and called for signals that are not cdt's (int3,
 * its own perf events or timers, raise()).  Blocking them is refused in
 * every mask the program hands libc: sigprocmask, pthread_sigmask, the
 * sa_mask of any handler, and the masks of sigsuspend, ppoll, pselect and
 * epoll_pwait.  A perf trap raised while SIGTRAP is blocked comes late,
 * away from its instruction (kernels 5.13 to 5.17 killed the program
 * instead), and the samples of a handler that blocks it would land after
 * it.  The program reads back the masks it set: each thread keeps what
 * it believes it blocked of cdt's signals, and every sigaction keeps
 * whether its sa_mask named them.
 *
 * Stacks the program chose: its alternate stack may be as small as the
 * kernel allows, one signal frame and a little.  cdt's handler leaves it
 * at once (handler.c), but a frame of cdt's nested on it, while a handler
 * of the program runs there, would not fit, and the kernel would kill the
 * program with SIGSEGV (5 runs in 90 did).  So a handler installed with
 * SA_ONSTACK is entered through sigchain_onstack, with cdt's signals
 * blocked by the kernel; if it runs on a stack of the program's, the
 * thread's sample clock and debug registers are paused (nothing of cdt's
 * can then come), what was pending is taken (a watchpoint's trap counted as
 * async, the rest queued again later), and they
 * resume when the handler returns or jumps out, with cdt's signals blocked
 * until the thread has left that stack: until the handler's sigreturn, or
 * the landing of a longjmp (jumps.c; glibc's own unblocks the saved mask
 * while still on the program's stack).  Samples due meanwhile come then.
 *
 * A program that bypasses libc (raw rt_sigaction) is caught by
 * sigchain_check().
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/agent/agent.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);

#define SIGCHAIN_N 2 /* SIGTRAP, AGENT_SIGCLOCK */
#define SIGCHAIN_NSIG 65

/* The program's own dispositions for cdt's signals, as it believes it set them. */
static struct sigaction prog_sa[SIGCHAIN_N] = {
	{ .sa_handler = SIG_DFL },
	{ .sa_handler = SIG_DFL },
};
/* Per signal: which of cdt's signals (bit i) the program put in its sa_mask. */
static unsigned char prog_mask_had[SIGCHAIN_NSIG];
/* The program's handlers installed with SA_ONSTACK, behind sigchain_onstack. */
static struct sigaction prog_onstack[SIGCHAIN_NSIG];
static void sigchain_onstack(int sig, siginfo_t *si, void *uc);
/*
 * Per thread, in its slot (struct agent_thread): which of cdt's signals
 * its program believes it blocked (believed); whether a handler of the
 * program runs on its own stack with cdt's events paused (held), its debug
 * registers too if a sibling let go of them in time (wpt_held); signals
 * of cdt's numbers taken meanwhile, to queue again on release (later).
 * A thread without a slot is not profiled: its masks are the program's.
 */

static int sigchain_sig(int i)
{
	return i ? AGENT_SIGCLOCK : SIGTRAP;
}

static int sigchain_index(int sig)
{
	return sig == SIGTRAP ? 0 : sig == AGENT_SIGCLOCK ? 1 : -1;
}

static sigaction_fn real_sigaction(void)
{
	static sigaction_fn fn;

	if (!fn)
		fn = (sigaction_fn)agent_next("sigaction");
	return fn;
}

static int sigchain_ours(void)
{
	return agent_g.active && !agent_g.broken;
}

/* Bit i for each of cdt's signals that set holds. */
static unsigned sigchain_bits(const sigset_t *set)
{
	unsigned b = 0;

	for (int i = 0; i < SIGCHAIN_N; i++)
		if (sigismember(set, sigchain_sig(i)) == 1)
			b |= 1u << i;
	return b;
}

static void sigchain_put(sigset_t *set, unsigned bits, int add)
{
	for (int i = 0; i < SIGCHAIN_N; i++)
		if (add && (bits & (1u << i)))
			sigaddset(set, sigchain_sig(i));
		else if (!add)
			sigdelset(set, sigchain_sig(i));
}

int sigchain_install(void)
{
	struct sigaction sa;

	if (!real_sigaction())
		return -ENOSYS;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = agent_on_signal;
	/* On cdt's stack where the program set none.  Every signal waits
	 * while the handler runs: it may run on a stack of cdt's that the
	 * kernel does not know of (handler.c), where no frame may land. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (int i = 0; i < SIGCHAIN_N; i++)
		if (real_sigaction()(sigchain_sig(i), &sa, &prog_sa[i]) < 0)
			return -errno;
	return 0;
}

int sigchain_check(void)
{
	struct sigaction cur;

	for (int i = 0; i < SIGCHAIN_N; i++) {
		if (real_sigaction()(sigchain_sig(i), NULL, &cur) < 0)
			return -errno;
		if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != agent_on_signal)
			return -EBUSY;
	}
	return 0;
}

int sigchain_program_handles(void)
{
	return prog_sa[0].sa_handler != SIG_DFL && prog_sa[0].sa_handler != SIG_IGN;
}

int sigchain_handler_entry(uint64_t ip)
{
	if (ip == (uint64_t)(uintptr_t)sigchain_onstack)
		return 1;
	for (int s = 1; s < SIGCHAIN_NSIG; s++)
		if ((uint64_t)(uintptr_t)prog_onstack[s].sa_handler == ip)
			return 1;
	return 0;
}

unsigned sigchain_believed_get(void)
{
	struct agent_thread *t = agent_self();

	return t ? t->believed : 0;
}

/* set without cdt's signals, in *copy if it had one; what to hand the kernel. */
static const sigset_t *sigchain_unblock(const sigset_t *set, sigset_t *copy)
{
	if (!set || !sigchain_ours() || !sigchain_bits(set))
		return set;
	*copy = *set;
	sigchain_put(copy, 0, 0);
	return copy;
}

/* Take what is pending of cdt's signals: they must not come on the
 * program's stack.  The program's own are queued again for it. */
static void sigchain_take_pending(struct agent_thread *t)
{
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	sigset_t set;

	sigemptyset(&set);
	sigchain_put(&set, ~0u, 1);
	while (syscall(SYS_rt_sigtimedwait, &set, &si, &zero, _NSIG / 8) > 0) {
		uint64_t data = si.si_code == TRAP_PERF ? agent_si_perf_data(&si) :
				(uint64_t)(uintptr_t)si.si_value.sival_ptr;

		/* A watchpoint's trap describes an instruction long gone. */
		if ((si.si_code == TRAP_PERF || si.si_code == SI_TIMER) &&
		    (data & SIGDATA_MASK) == SIGDATA_MAGIC &&
		    (data & SIGDATA_KIND_MASK) == SIGDATA_WPT)
			t->ext.async++;
		else if (t->nlater < SIGCHAIN_LATER)
			t->later[t->nlater++] = si;
	}
}

/* What was taken comes again, when cdt's signals are unblocked off the
 * program's stack: a sample due in the handler comes after it. */
static void sigchain_give_back(struct agent_thread *t)
{
	for (int i = 0; i < t->nlater; i++)
		syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), t->later[i].si_signo,
			&t->later[i]);
	t->nlater = 0;
}

/* On t's own stack (sigchain_aside): pause t's events.  The clock is
 * always held: unpaused, a sample pending at siglongjmp's unblocking would
 * come on the program's stack (a sibling that kept the debug registers
 * too long under stress-ng left it so: comm died one run in 250). */
static int sigchain_hold(int unused, siginfo_t *si, void *tp)
{
	struct agent_thread *t = tp;

	(void)unused;
	(void)si;
	clock_pause(t);
	pair_pause(t);
	t->wpt_held = !wpt_pause(&t->wp);
	sigchain_take_pending(t);
	t->held = 1;
	return 1;
}

static int sigchain_release(int unused, siginfo_t *si, void *tp)
{
	struct agent_thread *t = tp;

	(void)unused;
	(void)si;
	if (t->wpt_held)
		wpt_resume(&t->wp);
	t->wpt_held = 0;
	/* A POSIX clock paused this often may not reach a tick expired, and
	 * the governor, which would move the thread to the perf clock, runs
	 * at samples: it runs here too (e2e/altstack had none in a run). */
	if (agent_g.cfg.clock.budget_ppm)
		clock_govern(t, agent_cpu_now());
	clock_resume(t);
	sigchain_give_back(t);
	t->held = 0;
	return 0;
}

/*
 * fn(t) on t's own stack, every signal blocked meanwhile: the program's
 * stack may have no room for it (system calls through the PLT, the
 * kernel's own frames), and no frame may land on the program's stack
 * while the thread is away from it.  keep: cdt's signals stay blocked
 * after (until the handler's sigreturn leaves the program's stack).
 */
static int sigchain_aside(int (*fn)(int, siginfo_t *, void *), struct agent_thread *t, int keep)
{
	sigset_t all, old;
	int r;

	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, _NSIG / 8);
	r = handler_stack_call(fn, 0, NULL, t, (char *)t->altstack + AGENT_ALTSTACK);
	if (keep)
		sigchain_put(&old, ~0u, 1);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
	return r;
}

void sigchain_jump(void)
{
	struct agent_thread *t = agent_self();

	if (t && t->held)
		sigchain_aside(sigchain_release, t, 0);
}

int sigchain_jump_prepare(sigset_t *before)
{
	struct agent_thread *t = agent_self();
	sigset_t all;

	if (!t || !t->held)
		return 0;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, before, _NSIG / 8);
	handler_stack_call(sigchain_release, 0, NULL, t, (char *)t->altstack + AGENT_ALTSTACK);
	return 1;
}

/*
 * The program's handler prog, for sig, from a handler of cdt's (which
 * blocks every signal) or sigchain_onstack: with the mask the kernel would
 * have given it, and cdt's events paused while it runs on a stack of the
 * program's.
 */
static void sigchain_call(const struct sigaction *prog, int sig, siginfo_t *si, void *uc)
{
	struct agent_thread *t = agent_self();
	char *sp = __builtin_frame_address(0);
	int hold = 0;
	sigset_t m, add;

	if ((prog->sa_flags & SA_ONSTACK) && t && !t->held && t->altstack &&
	    sigchain_ours() && !agent_on_own_stack(t, sp))
		hold = sigchain_aside(sigchain_hold, t, 0);
	m = ((ucontext_t *)uc)->uc_sigmask;
	add = prog->sa_mask;
	sigchain_put(&add, 0, 0);
	sigorset(&m, &m, &add);
	sigchain_put(&m, 0, 0);
	if (!(prog->sa_flags & SA_NODEFER))
		sigaddset(&m, sig);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, _NSIG / 8);
	if (prog->sa_flags & SA_SIGINFO)
		prog->sa_sigaction(sig, si, uc);
	else
		prog->sa_handler(sig);
	if (hold && t->held)
		sigchain_aside(sigchain_release, t, 1);
}

/* The kernel's entry to a program's handler installed with SA_ONSTACK. */
static void sigchain_onstack(int sig, siginfo_t *si, void *uc)
{
	struct sigaction prog;

	if (sig <= 0 || sig >= SIGCHAIN_NSIG)
		return;
	prog = prog_onstack[sig];
	if (prog.sa_flags & SA_RESETHAND)
		prog_onstack[sig].sa_handler = SIG_DFL;
	if (prog.sa_handler != SIG_DFL && prog.sa_handler != SIG_IGN)
		sigchain_call(&prog, sig, si, uc);
}

void sigchain_forward(int sig, siginfo_t *si, void *uc)
{
	int i = sigchain_index(sig);
	struct sigaction sa, prog;

	if (i < 0)
		return;
	prog = prog_sa[i];
	if (prog.sa_handler == SIG_IGN)
		return;
	if (prog.sa_handler == SIG_DFL) {
		/* Die of it as the program would: default action, re-raise. */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		real_sigaction()(sig, &sa, NULL);
		syscall(SYS_tgkill, getpid(), gettid(), sig);
		return;
	}
	if (prog.sa_flags & SA_RESETHAND)
		prog_sa[i].sa_handler = SIG_DFL;
	sigchain_call(&prog, sig, si, uc);
}

AGENT_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int i = sigchain_index(sig), r;
	unsigned had = 0;

	if (!real_sigaction()) {
		errno = ENOSYS;
		return -1;
	}
	if (i < 0 || !sigchain_ours()) {
		struct sigaction copy, saved;

		if (!sigchain_ours() || sig <= 0 || sig >= SIGCHAIN_NSIG)
			return real_sigaction()(sig, act, old);
		saved = prog_onstack[sig];
		if (act) {
			had = sigchain_bits(&act->sa_mask);
			prog_onstack[sig] = *act;
			copy = *act;
			sigchain_put(&copy.sa_mask, 0, 0);
			if ((act->sa_flags & SA_ONSTACK) && act->sa_handler != SIG_DFL &&
			    act->sa_handler != SIG_IGN) {
				/* Blocked until sigchain_call has paused cdt's events. */
				sigchain_put(&copy.sa_mask, ~0u, 1);
				copy.sa_sigaction = sigchain_onstack;
				copy.sa_flags |= SA_SIGINFO;
			}
			act = &copy;
		}
		r = real_sigaction()(sig, act, old);
		if (r) {
			prog_onstack[sig] = saved;
			return r;
		}
		if (old && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction == sigchain_onstack) {
			/* As the program gave it, as the kernel keeps it. */
			*old = saved;
			sigdelset(&old->sa_mask, SIGKILL);
			sigdelset(&old->sa_mask, SIGSTOP);
		} else if (old) {
			sigchain_put(&old->sa_mask, 0, 0);
			sigchain_put(&old->sa_mask, prog_mask_had[sig], 1);
		}
		if (act)
			prog_mask_had[sig] = (unsigned char)had;
		return r;
	}
	if (old)
		*old = prog_sa[i];
	if (act)
		prog_sa[i] = *act;
	return 0;
}

AGENT_API sighandler_t signal(int sig, sighandler_t fn)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* What the thread's program believes after `how` with set. */
static unsigned sigchain_believe(int how, const sigset_t *set, unsigned was)
{
	unsigned b = sigchain_bits(set);

	switch (how) {
	case SIG_BLOCK:
		return was | b;
	case SIG_UNBLOCK:
		return was & ~b;
	case SIG_SETMASK:
		return b;
	default:
		return was;
	}
}

/* The real call's result: 0 on success for both kinds. */
static int sigchain_mask(sigmask_fn real, int how, const sigset_t *set, sigset_t *old)
{
	struct agent_thread *t = agent_self();
	unsigned was = t ? t->believed : 0;
	sigset_t copy;
	int r;

	r = real(how, how == SIG_UNBLOCK ? set : sigchain_unblock(set, &copy), old);
	if (r || !sigchain_ours() || !t)
		return r;
	if (old) {
		sigchain_put(old, 0, 0);
		sigchain_put(old, was, 1);
	}
	if (set)
		t->believed = sigchain_believe(how, set, was);
	return 0;
}

AGENT_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn real;

	if (!real)
		real = (sigmask_fn)agent_next("sigprocmask");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return sigchain_mask(real, how, set, old);
}

AGENT_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn real;

	if (!real)
		real = (sigmask_fn)agent_next("pthread_sigmask");
	/* pthread_sigmask reports errors by value, not errno. */
	return real ? sigchain_mask(real, how, set, old) : ENOSYS;
}

/* The calls that wait with a mask of their own. */
#define SIGCHAIN_REAL(name) \
	static __typeof__(name) *real; \
	if (!real) \
		real = (__typeof__(name) *)agent_next(#name); \
	if (!real) { \
		errno = ENOSYS; \
		return -1; \
	}

AGENT_API int sigsuspend(const sigset_t *mask)
{
	sigset_t copy;
	SIGCHAIN_REAL(sigsuspend)
	return real(sigchain_unblock(mask, &copy));
}

AGENT_API int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		    const sigset_t *mask)
{
	sigset_t copy;
	SIGCHAIN_REAL(ppoll)
	return real(fds, n, tmo, sigchain_unblock(mask, &copy));
}

AGENT_API int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *tmo,
		      const sigset_t *mask)
{
	sigset_t copy;
	SIGCHAIN_REAL(pselect)
	return real(n, r, w, e, tmo, sigchain_unblock(mask, &copy));
}

AGENT_API int epoll_pwait(int fd, struct epoll_event *ev, int max, int tmo,
			  const sigset_t *mask)
{
	sigset_t copy;
	SIGCHAIN_REAL(epoll_pwait)
	return real(fd, ev, max, tmo, sigchain_unblock(mask, &copy));
}
