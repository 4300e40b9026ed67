// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigtrap: a program with SIGTRAP handlers of its own, which a profiler
 * that itself lives on SIGTRAP must leave working.
 *
 *   sigtrap [K]     K (default 100) rounds of memory work, raise(SIGTRAP),
 *                   more work, an int3 and an int1, first with a handler
 *                   installed by sigaction(SA_SIGINFO), then K more rounds
 *                   with one from signal().  Each handler counts its calls,
 *                   split by si_code (SI_TKILL for raise, SI_KERNEL for int3,
 *                   TRAP_BRKPT for int1: what cdt also sees when a KVM guest
 *                   loses the cause of one of its own debug traps).
 *                   sigaction() and signal() must report the handler the
 *                   program installed before.
 *   sigtrap --block SIGTRAP blocked with sigprocmask() in the main thread
 *                   and pthread_sigmask() in a worker; both do memory work
 *                   whose checksum must equal the one computed unblocked.
 *                   After unblocking, one raise() must reach the handler.
 *
 * Where int1 leaves the IP depends on the host: after it (Intel KVM, bare
 * metal) or at it (an AMD KVM guest), where a handler that returns runs
 * it again forever.  The SA_SIGINFO handler steps over an int1 at the IP,
 * as a program must there; signal()'s handler cannot, so on such a host
 * its rounds execute no int1 (a line says so, and it expects 2 of each 3).
 *
 * Prints what the handlers saw; exits 0 only if every trap reached the
 * right handler exactly once and every check held, else 1.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define WORDS (1u << 16)
#define STEPS 1000000u /* about 1.3 ms of CPU */

static volatile sig_atomic_t info_raise, info_int3, info_int1, info_other;
static volatile sig_atomic_t plain_calls;
/* Watched by the test, so a debug register is armed when int1 traps. */
volatile uint64_t sigtrap_rounds;

/* The host leaves the IP at an int1 that trapped (step over it then). */
static volatile sig_atomic_t int1_at;

static void on_trap_info(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	unsigned char *ip = (unsigned char *)uc->uc_mcontext.gregs[REG_RIP];

	if (sig != SIGTRAP) {
		info_other++;
	} else if (si->si_code == SI_TKILL) {
		info_raise++;
	} else if (si->si_code == SI_KERNEL) {
		info_int3++;
	} else if (si->si_code == TRAP_BRKPT) {
		info_int1++;
		if (*ip == 0xf1) {
			int1_at = 1;
			uc->uc_mcontext.gregs[REG_RIP]++;
		}
	} else {
		info_other++;
	}
}

static void on_trap_plain(int sig)
{
	if (sig == SIGTRAP)
		plain_calls++;
}

static uint64_t work(uint64_t seed, unsigned steps)
{
	static __thread uint64_t a[WORDS];
	uint64_t x = seed, sum = 0;

	memset(a, 0, sizeof(a));
	for (unsigned s = 0; s < steps; s++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		sum += a[(x >> 40) & (WORDS - 1)];
		a[(x >> 20) & (WORDS - 1)] = sum ^ s;
	}
	return sum;
}

static void int3(void)
{
	__asm__ volatile("int3" ::: "memory");
}

static void int1(void)
{
	__asm__ volatile(".byte 0xf1" ::: "memory");
}

static int rounds(int k, uint64_t *acc, int with_int1)
{
	for (int i = 0; i < k; i++) {
		*acc += work((uint64_t)i, STEPS);
		if (raise(SIGTRAP))
			return -1;
		*acc += work((uint64_t)i + 1, STEPS);
		int3();
		sigtrap_rounds++;
		if (with_int1)
			int1();
	}
	return 0;
}

static int handlers(int k)
{
	struct sigaction sa = { 0 }, cur;
	sighandler_t prev;
	uint64_t acc = 0;
	int ok = 1, want;

	sa.sa_sigaction = on_trap_info;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL)) {
		perror("sigtrap: sigaction");
		return 1;
	}
	if (sigaction(SIGTRAP, NULL, &cur) || cur.sa_sigaction != on_trap_info ||
	    !(cur.sa_flags & SA_SIGINFO)) {
		fprintf(stderr, "sigtrap: sigaction() does not report the handler just set\n");
		ok = 0;
	}
	if (rounds(k, &acc, 1))
		return 1;
	if (int1_at)
		printf("sigtrap: int1 leaves the IP at the int1 on this host: the rounds with "
		       "signal()'s handler, which cannot step over it, execute none\n");
	prev = signal(SIGTRAP, on_trap_plain);
	if (prev != (sighandler_t)(void (*)(void))on_trap_info) {
		fprintf(stderr, "sigtrap: signal() returned %p, not the sigaction handler %p\n",
			(void *)(uintptr_t)prev, (void *)(uintptr_t)on_trap_info);
		ok = 0;
	}
	if (rounds(k, &acc, !int1_at))
		return 1;
	want = (int1_at ? 2 : 3) * k;
	printf("sigtrap: sigaction handler saw %d raise, %d int3 and %d int1 of %d each, "
	       "%d other; signal handler saw %d of %d (checksum %llx)\n", (int)info_raise,
	       (int)info_int3, (int)info_int1, k, (int)info_other, (int)plain_calls, want,
	       (unsigned long long)acc);
	if (info_raise != k || info_int3 != k || info_int1 != k || info_other ||
	    plain_calls != want)
		ok = 0;
	return !ok;
}

struct blocked {
	uint64_t sum;
	int err;
};

static void *blocked_worker(void *p)
{
	struct blocked *b = p;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	b->err = pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (unsigned i = 0; i < 100; i++)
		b->sum += work(i, STEPS);
	return NULL;
}

static int block(void)
{
	struct blocked b = { 0 };
	uint64_t want = 0, got = 0;
	sigset_t set;
	pthread_t th;
	int err;

	signal(SIGTRAP, on_trap_plain);
	for (unsigned i = 0; i < 100; i++)
		want += work(i, STEPS);
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	if (sigprocmask(SIG_BLOCK, &set, NULL)) {
		perror("sigtrap: sigprocmask");
		return 1;
	}
	err = pthread_create(&th, NULL, blocked_worker, &b);
	if (err) {
		fprintf(stderr, "sigtrap: pthread_create: %s\n", strerror(err));
		return 1;
	}
	for (unsigned i = 0; i < 100; i++)
		got += work(i, STEPS);
	pthread_join(th, NULL);
	if (sigprocmask(SIG_UNBLOCK, &set, NULL)) {
		perror("sigtrap: sigprocmask");
		return 1;
	}
	raise(SIGTRAP);
	printf("sigtrap: blocked checksums %llx (main) %llx (worker), expected %llx; "
	       "pthread_sigmask %d; handler saw %d of 1 after unblocking\n",
	       (unsigned long long)got, (unsigned long long)b.sum, (unsigned long long)want,
	       b.err, (int)plain_calls);
	return !(got == want && b.sum == want && !b.err && plain_calls == 1);
}

int main(int argc, char **argv)
{
	long k = 100;

	if (argc == 2 && !strcmp(argv[1], "--block"))
		return block();
	if (argc == 2)
		k = strtol(argv[1], NULL, 10);
	if (argc > 2 || k < 1 || k > 100000) {
		fprintf(stderr, "usage: sigtrap [K] | sigtrap --block\n");
		return 2;
	}
	return handlers((int)k);
}
