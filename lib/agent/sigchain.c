// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keeping the agent's SIGTRAP handler in place and SIGTRAP unblocked.  The
 * program's sigaction() and signal() calls for SIGTRAP are interposed: its
 * handler is stored and called for traps that are not the agent's (int3,
 * its own perf events, raise()).  Blocking SIGTRAP is refused in every mask
 * the program hands libc: sigprocmask, pthread_sigmask, the sa_mask of any
 * handler, and the masks of sigsuspend, ppoll, pselect and epoll_pwait.  A
 * perf trap raised while SIGTRAP is blocked comes late, away from its
 * instruction (kernels 5.13 to 5.17 killed the program instead), and the
 * samples of a handler that blocks it would land after it.  The program
 * reads back the masks the kernel holds, without SIGTRAP.  A program that
 * bypasses libc (raw rt_sigaction) is caught by sigchain_check().
 */
#include <dlfcn.h>
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

/* The program's own disposition for SIGTRAP, as it believes it set it. */
static struct sigaction prog_sa = { .sa_handler = SIG_DFL };

static sigaction_fn real_sigaction(void)
{
	static sigaction_fn fn;

	if (!fn)
		fn = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	return fn;
}

static int sigchain_ours(void)
{
	return agent_g.active && !agent_g.broken;
}

int sigchain_install(void)
{
	struct sigaction sa;

	if (!real_sigaction())
		return -ENOSYS;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = agent_on_sigtrap;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (real_sigaction()(SIGTRAP, &sa, &prog_sa) < 0)
		return -errno;
	return 0;
}

int sigchain_check(void)
{
	struct sigaction cur;

	if (real_sigaction()(SIGTRAP, NULL, &cur) < 0)
		return -errno;
	if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != agent_on_sigtrap)
		return -EBUSY;
	return 0;
}

int sigchain_program_handles(void)
{
	return prog_sa.sa_handler != SIG_DFL && prog_sa.sa_handler != SIG_IGN;
}

/* set without SIGTRAP, in *copy if it had it; what to hand the kernel. */
static const sigset_t *sigchain_unblock(const sigset_t *set, sigset_t *copy)
{
	if (!set || !sigchain_ours() || !sigismember(set, SIGTRAP))
		return set;
	*copy = *set;
	sigdelset(copy, SIGTRAP);
	return copy;
}

void sigchain_forward(int sig, siginfo_t *si, void *uc)
{
	struct sigaction sa;

	if (prog_sa.sa_handler == SIG_IGN)
		return;
	if (prog_sa.sa_handler == SIG_DFL) {
		/* Die of it as the program would: default action, re-raise. */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		real_sigaction()(sig, &sa, NULL);
		syscall(SYS_tgkill, getpid(), gettid(), sig);
		return;
	}
	if (prog_sa.sa_flags & SA_SIGINFO)
		prog_sa.sa_sigaction(sig, si, uc);
	else
		prog_sa.sa_handler(sig);
	if (prog_sa.sa_flags & SA_RESETHAND)
		prog_sa.sa_handler = SIG_DFL;
}

AGENT_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real_sigaction()) {
		errno = ENOSYS;
		return -1;
	}
	if (sig != SIGTRAP || !sigchain_ours()) {
		struct sigaction copy;

		if (act && sigchain_ours() && sigismember(&act->sa_mask, SIGTRAP)) {
			copy = *act;
			sigdelset(&copy.sa_mask, SIGTRAP);
			act = &copy;
		}
		return real_sigaction()(sig, act, old);
	}
	if (old)
		*old = prog_sa;
	if (act)
		prog_sa = *act;
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

static int sigchain_mask(sigmask_fn real, int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(how, how == SIG_UNBLOCK ? set : sigchain_unblock(set, &copy), old);
}

AGENT_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn real;

	if (!real)
		real = (sigmask_fn)dlsym(RTLD_NEXT, "sigprocmask");
	return sigchain_mask(real, how, set, old);
}

AGENT_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn real;
	int r;

	if (!real)
		real = (sigmask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
	r = sigchain_mask(real, how, set, old);
	/* pthread_sigmask reports errors by value, not errno. */
	return r < 0 ? errno : r;
}

/* The calls that wait with a mask of their own. */
#define SIGCHAIN_REAL(name) \
	static __typeof__(name) *real; \
	if (!real) \
		real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name); \
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
