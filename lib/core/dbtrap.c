// SPDX-License-Identifier: GPL-2.0-only
/*
 * Is a debug-register trap delivered here?  One sigtrap watchpoint on a
 * variable of the calling thread, one write, and a look at the signal:
 * a few microseconds, once per process.
 */
#include "lib/core/dbtrap.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <ucontext.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/pmu_events.h"

/* glibc 2.36 lacks both; the kernel ABI has had them since 5.13. */
#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define DBTRAP_SIG_DATA 0xcd7c0ffeeul

/* The head of the kernel's siginfo for SIGTRAP/TRAP_PERF. */
struct dbtrap_siginfo {
	int signo, err, code;
	void *addr;
	unsigned long perf_data;
};

#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(offsetof(struct dbtrap_siginfo, perf_data) == 24,
	       "si_perf_data sits at offset 24 of a 64-bit siginfo");
#endif

/* Set only by the handler, read after the watchpoint is gone. */
static volatile long dbtrap_target;
static volatile sig_atomic_t dbtrap_hits;
static volatile int dbtrap_code;
static void *volatile dbtrap_addr;
static volatile unsigned long dbtrap_data;

static void dbtrap_handler(int sig, siginfo_t *si, void *uc)
{
	unsigned long v;

	(void)sig;
	(void)uc;
	memcpy(&v, (const char *)si + offsetof(struct dbtrap_siginfo, perf_data), sizeof(v));
	dbtrap_hits++;
	dbtrap_code = si->si_code;
	dbtrap_addr = si->si_addr;
	dbtrap_data = v;
}

/* "bhyve guest: " or "" on bare metal. */
static void dbtrap_host(char *buf, size_t len)
{
	struct events_host h;

	events_host_detect(&h);
	snprintf(buf, len, "%s%s", h.hypervisor, h.hypervisor[0] ? " guest: " : "");
}

/* Arm, write, disarm; 0, or a negative errno when it does not open. */
static int dbtrap_try(void)
{
	struct perf_event_attr a;
	struct sigaction sa, old;
	sigset_t set, oldset;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = dbtrap_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old) < 0)
		return -errno;
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	pthread_sigmask(SIG_UNBLOCK, &set, &oldset);
	dbtrap_hits = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&dbtrap_target;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sigtrap = 1;
	a.remove_on_exec = 1; /* the kernel requires it with sigtrap */
	a.sig_data = DBTRAP_SIG_DATA;
	fd = events_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		dbtrap_target = 42;
		close(fd);
	}
	pthread_sigmask(SIG_SETMASK, &oldset, NULL);
	sigaction(SIGTRAP, &old, NULL);
	return fd < 0 ? fd : 0;
}

int dbtrap_check(struct dbtrap *d)
{
	static struct dbtrap done;
	static int checked;
	char host[64], e[64];
	const char *name;
	int r;

	if (checked)
		goto out;
	r = dbtrap_try();
	if (r < 0) {
		name = strerrorname_np(-r);
		snprintf(e, sizeof(e), "%s: %s", name ? name : "error", strerror(-r));
		done.state = DBTRAP_NO_OPEN;
		snprintf(done.detail, sizeof(done.detail), "sigtrap watchpoint does not open: %s",
			 e);
		snprintf(done.why, sizeof(done.why), "a sigtrap watchpoint does not open: %s", e);
	} else if (dbtrap_hits != 1) {
		dbtrap_host(host, sizeof(host));
		done.state = dbtrap_hits ? DBTRAP_WRONG : DBTRAP_NONE;
		snprintf(done.detail, sizeof(done.detail),
			 "expected 1 SIGTRAP after the write, got %d", (int)dbtrap_hits);
		if (dbtrap_hits)
			snprintf(done.why, sizeof(done.why), "%sone write brought %d traps",
				 host, (int)dbtrap_hits);
		else
			snprintf(done.why, sizeof(done.why), "%sbreakpoints open but never fire",
				 host);
	} else if (dbtrap_code != TRAP_PERF || dbtrap_addr != (void *)&dbtrap_target ||
		   dbtrap_data != DBTRAP_SIG_DATA) {
		done.state = DBTRAP_WRONG;
		snprintf(done.detail, sizeof(done.detail), "SIGTRAP with si_code %d (want %d), "
			 "si_addr %p (want %p), si_perf_data %#lx (want %#lx)", dbtrap_code,
			 TRAP_PERF, dbtrap_addr, (void *)&dbtrap_target, dbtrap_data,
			 DBTRAP_SIG_DATA);
		snprintf(done.why, sizeof(done.why), "the SIGTRAP lacks TRAP_PERF, the address "
			 "or sig_data (cdt probe shows it)");
	} else {
		done.state = DBTRAP_OK;
		snprintf(done.detail, sizeof(done.detail),
			 "SIGTRAP with si_code TRAP_PERF, the watched si_addr and the sig_data");
	}
	checked = 1;
out:
	*d = done;
	return done.state == DBTRAP_OK;
}

static volatile sig_atomic_t int1_hits, int1_at, int1_ill;
static volatile uintptr_t int1_ip;

static void dbtrap_int1_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	(void)si;
	/* An emulator that knows no int1 (qemu's TCG): #UD at it. */
	if (sig == SIGILL) {
		int1_ill = 1;
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(ip + 1);
		return;
	}
	int1_hits++;
	int1_ip = ip;
	/* At the int1 itself (0xf1 starts no other instruction): step over
	 * it, or it traps again forever. */
	if (*(const volatile unsigned char *)ip == 0xf1) {
		int1_at = 1;
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(ip + 1);
	}
}

/* The address of the int1 it executed. */
static __attribute__((noinline)) uintptr_t dbtrap_int1_exec(void)
{
	uintptr_t at;

	__asm__ volatile("lea 1f(%%rip), %0\n"
			 "1: .byte 0xf1\n" : "=r"(at) : : "memory");
	return at;
}

enum dbtrap_int1 dbtrap_int1(void)
{
	static int done = -1;
	struct sigaction sa, old, oldill;
	sigset_t set, oldset;
	uintptr_t at;

	if (done >= 0)
		return (enum dbtrap_int1)done;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = dbtrap_int1_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old) < 0)
		return DBTRAP_INT1_NONE;
	if (sigaction(SIGILL, &sa, &oldill) < 0) {
		sigaction(SIGTRAP, &old, NULL);
		return DBTRAP_INT1_NONE;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	sigaddset(&set, SIGILL);
	pthread_sigmask(SIG_UNBLOCK, &set, &oldset);
	int1_hits = 0;
	int1_at = 0;
	int1_ill = 0;
	at = dbtrap_int1_exec();
	pthread_sigmask(SIG_SETMASK, &oldset, NULL);
	sigaction(SIGILL, &oldill, NULL);
	sigaction(SIGTRAP, &old, NULL);
	if (int1_ill)
		done = DBTRAP_INT1_NONE;
	else if (int1_hits == 1 && int1_at && int1_ip == at)
		done = DBTRAP_INT1_AT;
	else if (int1_hits == 1 && int1_ip == at + 1)
		done = DBTRAP_INT1_AFTER;
	else
		done = DBTRAP_INT1_NONE;
	return (enum dbtrap_int1)done;
}

const char *dbtrap_int1_name(enum dbtrap_int1 v)
{
	return v == DBTRAP_INT1_AT ? "at" : v == DBTRAP_INT1_AFTER ? "after" : "none";
}

void dbtrap_say(const struct dbtrap *d, const char *lost, char *buf, size_t len)
{
	snprintf(buf, len, "debug-register traps are not delivered on this machine (%s)%s%s",
		 d->why, lost && *lost ? ": " : "", lost ? lost : "");
}
