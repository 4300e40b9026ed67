// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample clock of each thread, and the overhead budget the agent
 * keeps by itself (agent_cfg.clock; cdt.1, SAMPLE CLOCKS AND THE OVERHEAD
 * BUDGET, has the figures).
 *
 * Two clocks deliver the same sample, a signal to the thread that ran,
 * on the return to user space from the interrupt that found the period
 * over, with the registers there:
 *   - perf: a task-clock sampling event with sigtrap.  Its hrtimer
 *     follows the thread: every switch out cancels it and every switch in
 *     starts it, and while its period is below the tick it is the CPU's
 *     next timer, so both reprogram the local APIC timer, which in a VM
 *     is a hypervisor exit each.  A program that hands work between
 *     threads pays that at every handoff, sampled or not.
 *   - posix: timer_create(CLOCK_THREAD_CPUTIME_ID) with SIGEV_THREAD_ID,
 *     signalling AGENT_SIGCLOCK: a SIGTRAP of its pending made the kernel
 *     discard a watchpoint's (standard signals do not queue).
 *     The kernel checks it at the scheduler tick of the running thread
 *     (task work on the way back to user space), so a switch costs
 *     nothing, and the signal goes to that thread before it runs on; but
 *     it fires at most once a tick.
 * A POSIX clock's tick may find the thread in the kernel; its signal
 * then arrives as the system call returns, with the IP after the syscall
 * instruction (or at it, to restart it).  The perf clock counts user
 * time only and takes no sample there, so neither does this one: such a
 * sample is counted (in_syscall) and not attributed.  A user-mode tick
 * on exactly those two instructions is dropped too, a negligible loss.
 *
 * The governor gives each thread the most samples its share of the
 * budget buys: at a sample that ends a window of the thread's CPU time,
 * it weighs what the window's samples cost (the handler's CPU time as
 * measured, the kernel's part and the switches as calibrated) against the
 * CPU time the thread had, and sets the period, and the clock that gives
 * the shorter one (clock_choose, pure, for the unit test).
 *
 * Both clocks fire every period of the thread's CPU time, so a loop whose
 * pass divides the period would be sampled at the same point of it every
 * time, on its bookkeeping say, or on a few of its addresses (a 512 KiB
 * read loop's intervals spanned 330 bytes to all of it).  So under the
 * soft source every period is drawn anew at each sample (clock_jitter),
 * uniformly within half of it either side: the mean is the governor's
 * period, so the budget holds, and in a loop whose pass divides the
 * period, or is the period, each sample falls at a point of the pass
 * independent of the last one's (a quarter either side would move it
 * over half of a period-long pass only).  The cost is two system
 * calls a sample, about 1 us of CPU (tests/bench/jitter.sh), which the
 * governor's measure of the handler leaves out: a few percent of what a
 * sample costs, the signal's and the walk's tens of us.  They are:
 *   - perf: the event's count read, and PERF_EVENT_IOC_PERIOD, which
 *     restarts its timer from the handler: for the rest of the time to
 *     the last sample's target plus the new period, so that the time
 *     from the sample to the handler does not add up (it made the rate
 *     4% low at 1000 Hz);
 *   - posix: the thread's CPU time read, and timer_settime at an absolute
 *     CPU time, the last target plus the new period, for the same reason
 *     with a tick's lateness.  But this clock fires only at a tick: the
 *     jitter moves a sample by whole ticks, and does nothing while the
 *     period is under a tick (every tick fires).  A loop whose pass
 *     divides the tick itself is not helped by it.
 *
 * Everything here runs in the thread itself, at its start and end and
 * from its sampling signal: system calls only.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/agent/agent.h"

/* A period within this fraction of the current one is not worth a change. */
#define CLOCK_HYST_NUM 5
#define CLOCK_HYST_DEN 4
/* A window shorter than this CPU time says too little about its costs. */
#define CLOCK_WINDOW_NS 1000000ull
#define CLOCK_POSIX_WINDOW_NS 16000000ull
/* The governor samples a thread at least this often (10 a CPU second). */
#define CLOCK_MAX_PERIOD_NS 100000000ull

static struct timespec clock_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ull),
				  .tv_nsec = (long)(ns % 1000000000ull) };
}

/* The POSIX timer fires at `value` (relative, or CPU time with
 * TIMER_ABSTIME), then every `period` unless set again. */
static int clock_posix_arm(int id, int flags, uint64_t value, uint64_t period)
{
	struct itimerspec its = { .it_interval = clock_ts(period), .it_value = clock_ts(value) };

	return syscall(SYS_timer_settime, id, flags, &its, NULL) ? -errno : 0;
}

static int clock_posix_open(struct agent_thread *t, uint64_t period)
{
	struct sigevent ev;
	int id, err;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = AGENT_SIGCLOCK;
	ev.sigev_value.sival_ptr = (void *)(uintptr_t)(SIGDATA_MAGIC | SIGDATA_SAMPLE);
	ev._sigev_un._tid = t->tid;
	/* The raw call: glibc's timer_t wraps the kernel's id for nothing. */
	if (syscall(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, &ev, &id))
		return -errno;
	if ((err = clock_posix_arm(id, 0, period, period))) {
		syscall(SYS_timer_delete, id);
		return err;
	}
	t->clk.timer = id;
	t->clk.next = 0;
	return 0;
}

static void clock_posix_close(struct agent_thread *t)
{
	if (t->clk.timer >= 0)
		syscall(SYS_timer_delete, t->clk.timer);
	t->clk.timer = -1;
}

static int clock_open_kind(struct agent_thread *t, int kind, uint64_t period)
{
	int err = kind == CLOCK_K_POSIX ? clock_posix_open(t, period) : pmu_open(t, 0, period);

	if (!err) {
		t->clk.kind = kind;
		t->clk.period = period;
	}
	return err;
}

/* The soft source's first clock. */
static int clock_first_kind(uint64_t period)
{
	const struct agent_clock *c = &agent_g.cfg.clock;

	if (c->kind != CLOCK_K_AUTO)
		return (int)c->kind;
	/* Governed, a thread starts where a switch costs nothing, and pays
	 * for the perf clock only once a window shows it buys more samples:
	 * a thread that hands work on every few microseconds would pay more
	 * in its first window than in the rest of its life. */
	if (c->budget_ppm && c->tick_ns)
		return CLOCK_K_POSIX;
	return c->tick_ns && period >= c->tick_ns ? CLOCK_K_POSIX : CLOCK_K_PERF;
}

/*
 * A POSIX timer's period for a wanted one: it fires at a tick, so below a
 * tick it fires at every tick, and at a tick or more it fires at the tick
 * after each period, half a tick late on average.
 */
static uint64_t clock_posix_period(uint64_t tick, uint64_t want)
{
	return want < tick ? tick / 2 : want;
}

/* Until a window is measured: the period the budget allows without switches. */
static uint64_t clock_first_period(void)
{
	const struct agent_clock *c = &agent_g.cfg.clock;
	uint64_t p = agent_g.cfg.ev[0].period, need;

	if (!c->budget_ppm || agent_g.cfg.source != SRC_SOFT)
		return p;
	need = (c->handler_ns + c->perf_sig_ns) * 1000000ull / c->budget_ppm;
	return need > p ? need : p;
}

static uint64_t clock_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* A thread's own sequence: its tid and the TSC, mixed (splitmix64). */
static uint64_t clock_seed(pid_t tid)
{
	uint64_t z = __builtin_ia32_rdtsc() ^ ((uint64_t)(uint32_t)tid << 32);

	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 1;
}

uint64_t clock_jitter(uint64_t period, uint64_t *rng)
{
	uint64_t h = period / 2, x = *rng;

	/* xorshift64*, its high bits scaled onto 0..2h. */
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*rng = x;
	x *= 0x2545f4914f6cdd1dull;
	return period - h + (uint64_t)(((unsigned __int128)x * (2 * h + 1)) >> 64);
}

int clock_open(struct agent_thread *t)
{
	int err = 0;

	for (unsigned i = 0; i < agent_g.cfg.nevents; i++) {
		t->ev_fd[i] = -1;
		t->ev_ring[i] = NULL;
	}
	t->clk.timer = -1;
	t->clk.kind = CLOCK_K_PERF;
	t->clk.rng = clock_seed(t->tid);
	t->clk.next = 0;
	t->clk.cpu0 = agent_cpu_now();
	t->clk.samples0 = 0;
	t->clk.sw0 = clock_switches();
	for (unsigned i = 0; i < agent_g.cfg.nevents && !err; i++) {
		uint64_t period = i ? agent_g.cfg.ev[i].period : clock_first_period();
		int kind = clock_first_kind(period);

		if (i == 0 && agent_g.cfg.source == SRC_SOFT) {
			err = clock_open_kind(t, kind, kind == CLOCK_K_POSIX ?
					      clock_posix_period(agent_g.cfg.clock.tick_ns, period) : period);
			/* No descriptor can go high (fds.c): the clock that needs none. */
			if (err == -EMFILE && atomic_load(&agent_g.fds_low))
				err = clock_open_kind(t, CLOCK_K_POSIX, clock_posix_period(
						      agent_g.cfg.clock.tick_ns, period));
		}
		else if (!(err = pmu_open(t, (int)i, period)) && i == 0)
			t->clk.period = period;
	}
	t->ext.period = t->clk.period;
	return err;
}

void clock_close(struct agent_thread *t, int inherited)
{
	for (unsigned i = 0; i < agent_g.cfg.nevents; i++)
		pmu_close(t, (int)i);
	/* A fork child has none of its parent's timers, and the id may come
	 * to name one of its own. */
	if (inherited)
		t->clk.timer = -1;
	clock_posix_close(t);
}

void clock_stop(struct agent_thread *t)
{
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };

	for (unsigned e = 0; e < agent_g.cfg.nevents; e++)
		if (t->ev_fd[e] >= 0)
			ioctl(t->ev_fd[e], PERF_EVENT_IOC_DISABLE, 0);
	if (t->clk.timer >= 0)
		syscall(SYS_timer_settime, t->clk.timer, 0, &off, NULL);
}

/*
 * Paused for a handler of the program on its own stack (sigchain.c), the
 * clock keeps what was left of its period: a fresh one at each resume
 * starved a thread that overflows its stack every 0.7 ms of a 1 ms period
 * (no sample in 300 overflows), and any least rest starved one that takes
 * such a signal every few microseconds.  A sample that comes at once
 * waits: cdt's signals stay blocked until the thread has left the
 * program's stack (sigchain.c, jumps.c).
 */
void clock_pause(struct agent_thread *t)
{
	struct itimerspec off = { { 0, 0 }, { 0, 0 } }, old;
	uint64_t count = 0, p = t->clk.period;

	t->clk.left = p;
	if (t->clk.timer >= 0 &&
	    !syscall(SYS_timer_settime, t->clk.timer, 0, &off, &old))
		t->clk.left = (uint64_t)old.it_value.tv_sec * 1000000000ull +
			      (uint64_t)old.it_value.tv_nsec;
	else if (t->ev_fd[0] >= 0 && p && read(t->ev_fd[0], &count, sizeof(count)) == sizeof(count))
		t->clk.left = t->clk.next > count && t->clk.next - count <= 2 * p ?
			      t->clk.next - count : p - count % p;
	for (unsigned e = 0; e < agent_g.cfg.nevents; e++)
		if (t->ev_fd[e] >= 0)
			ioctl(t->ev_fd[e], PERF_EVENT_IOC_DISABLE, 0);
}

void clock_resume(struct agent_thread *t)
{
	uint64_t p = t->clk.period, left = t->clk.left;

	if (left > p)
		left = p;
	if (!left)
		left = 1;
	if (t->ev_fd[0] >= 0 && left < p) {
		/* Until its next sample (clock_sampled). */
		if (!ioctl(t->ev_fd[0], PERF_EVENT_IOC_PERIOD, &left))
			t->clk.rearm = 1;
	}
	for (unsigned e = 0; e < agent_g.cfg.nevents; e++)
		if (t->ev_fd[e] >= 0)
			ioctl(t->ev_fd[e], PERF_EVENT_IOC_ENABLE, 0);
	if (t->clk.timer >= 0) {
		clock_posix_arm(t->clk.timer, 0, left, p);
		t->clk.next = 0;
	}
}

/*
 * The next sample's target on the clock that `now` reads (the thread's CPU
 * time, or the perf event's count): the last target and a jittered
 * period, so that a sample's lateness does not add up, or from now where
 * there is none (a pause, a new period) or it is a period behind (a
 * sample long held).
 */
static uint64_t clock_next(struct agent_thread *t, uint64_t now, uint64_t p)
{
	if (t->clk.next + p < now)
		t->clk.next = now;
	t->clk.next += clock_jitter(p, &t->clk.rng);
	return t->clk.next;
}

void clock_sampled(struct agent_thread *t)
{
	uint64_t p = t->clk.period, count;
	int rearm = t->clk.rearm;

	t->clk.rearm = 0;
	if (agent_g.cfg.source != SRC_SOFT) {
		if (rearm && t->ev_fd[0] >= 0)
			ioctl(t->ev_fd[0], PERF_EVENT_IOC_PERIOD, &p);
	} else if (t->clk.kind == CLOCK_K_POSIX) {
		if (t->clk.timer >= 0 && p >= agent_g.cfg.clock.tick_ns)
			clock_posix_arm(t->clk.timer, TIMER_ABSTIME,
					clock_next(t, agent_cpu_now(), p), p);
	} else if (t->ev_fd[0] >= 0) {
		/* The new period starts now, the target was due at the sample. */
		if (read(t->ev_fd[0], &count, sizeof(count)) == sizeof(count)) {
			p = clock_next(t, count, p);
			p = p > count ? p - count : 1;
		} else {
			p = clock_jitter(p, &t->clk.rng);
		}
		ioctl(t->ev_fd[0], PERF_EVENT_IOC_PERIOD, &p);
	}
}

uint64_t clock_mean_period(const struct agent_thread *t)
{
	uint64_t tick = agent_g.cfg.clock.tick_ns;

	/* Under a tick the POSIX clock fires at every tick.  From a tick on
	 * it is set at absolute targets (clock_sampled), so a sample's
	 * lateness does not add up and the mean is the period. */
	if (agent_g.cfg.source == SRC_SOFT && t->clk.kind == CLOCK_K_POSIX && t->clk.period < tick)
		return tick;
	return t->clk.period;
}

/* Event i's period when the first samples every `period`. */
static uint64_t clock_event_period(unsigned i, uint64_t period)
{
	return i ? (uint64_t)((unsigned __int128)agent_g.cfg.ev[i].period * period /
			      agent_g.cfg.ev[0].period) : period;
}

/* The switches since the window began count against the perf clock. */
static void clock_count_switches(struct agent_thread *t)
{
	uint64_t sw = clock_switches();

	if (t->clk.kind == CLOCK_K_PERF && t->ev_fd[0] >= 0 && sw > t->clk.sw0)
		t->ext.perf_switches += sw - t->clk.sw0;
	t->clk.sw0 = sw;
}

void clock_sync(struct agent_thread *t)
{
	if (t == agent_self() && agent_g.cfg.source == SRC_SOFT)
		clock_count_switches(t);
	t->ext.period = t->clk.period;
}

int clock_in_syscall(const ucontext_t *uc)
{
	uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t page = (uint64_t)getpagesize();
	unsigned char b[4];

	/* The two bytes before the IP and two at it, read without a fault. */
	if (agent_read_code(ip - 2, b, 4, (ip & (page - 1)) >= 2) != 4)
		return 0;
	return (b[0] == 0x0f && b[1] == 0x05) || (b[2] == 0x0f && b[3] == 0x05);
}

static uint64_t clock_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * The period (ns of the thread's CPU time between samples) that spends
 * `avail` ns of cost per `prog` ns of the program's CPU time on samples
 * costing `each` ns; UINT64_MAX when nothing is left.
 */
static uint64_t clock_period_for(uint64_t each, uint64_t prog, uint64_t avail)
{
	if (!avail)
		return UINT64_MAX;
	return (uint64_t)((unsigned __int128)each * prog / avail);
}

static int clock_apply(struct agent_thread *t, int kind, uint64_t period)
{
	int err;

	if (kind == t->clk.kind && kind == CLOCK_K_POSIX) {
		err = clock_posix_arm(t->clk.timer, 0, period, period);
	} else if (kind == t->clk.kind) {
		/* Every sampling event by the same factor (a PMU may have two). */
		err = 0;
		for (unsigned i = 0; i < agent_g.cfg.nevents && !err; i++) {
			uint64_t pi = clock_event_period(i, period);

			if (t->ev_fd[i] >= 0 && ioctl(t->ev_fd[i], PERF_EVENT_IOC_PERIOD, &pi))
				err = -errno;
		}
	} else {
		int old = t->clk.kind;

		/* The new one first: a thread must never be left without. */
		if (kind == CLOCK_K_POSIX)
			err = clock_posix_open(t, period);
		else
			err = pmu_open(t, 0, period);
		if (!err && old == CLOCK_K_POSIX)
			clock_posix_close(t);
		else if (!err)
			pmu_close(t, 0);
		if (!err)
			t->clk.kind = kind;
	}
	if (!err) {
		t->clk.period = period;
		t->clk.next = 0;
		t->ext.clock_changes++;
	}
	return err;
}

int clock_choose(const struct agent_clock *c, int soft, uint64_t p0, int kind,
		 uint64_t period, const struct clock_window *w, uint64_t *next)
{
	uint64_t spent, prog, budget, sw_cost, pp, px, px_mean, p;
	int to;

	/* The program's own CPU time: the window's holds what the samples
	 * and the perf clock's switches cost. */
	spent = w->samples * (w->handler_ns + (kind == CLOCK_K_POSIX ? c->posix_sig_ns :
					       c->perf_sig_ns));
	if (kind == CLOCK_K_PERF)
		spent += w->switches * c->switch_ns;
	prog = spent < w->cpu_ns / 2 ? w->cpu_ns - spent : w->cpu_ns / 2;
	budget = (uint64_t)((unsigned __int128)prog * c->budget_ppm / 1000000u);
	if (!soft) {
		/* A PMU's period counts events: scale it by what the window's
		 * samples cost against the budget, never below the user's. */
		uint64_t cost = w->samples * (w->handler_ns + c->perf_sig_ns);

		p = cost && budget ? (uint64_t)((unsigned __int128)period * cost / budget) : p0;
		to = kind;
	} else {
		/* Each clock's best period.  The perf clock pays for the
		 * thread's switches first (those seen under the POSIX clock
		 * would cost as much under it); the POSIX clock cannot beat
		 * the tick, and its samples come at ticks: compare its mean. */
		sw_cost = w->switches * c->switch_ns;
		pp = clock_max(p0, clock_period_for(w->handler_ns + c->perf_sig_ns, prog,
						    budget > sw_cost ? budget - sw_cost : 0));
		px = clock_posix_period(c->tick_ns, clock_max(p0, clock_period_for(
				w->handler_ns + c->posix_sig_ns, prog, budget)));
		px_mean = px < c->tick_ns ? c->tick_ns : px + c->tick_ns / 2;
		if (c->kind != CLOCK_K_AUTO)
			to = (int)c->kind;
		else if (kind == CLOCK_K_PERF)
			to = pp >= px_mean ? CLOCK_K_POSIX : CLOCK_K_PERF;
		else /* back to perf only for clearly more samples */
			to = pp != UINT64_MAX && pp * CLOCK_HYST_NUM / CLOCK_HYST_DEN < px_mean ?
			     CLOCK_K_PERF : CLOCK_K_POSIX;
		p = to == CLOCK_K_POSIX ? px : pp;
	}
	/* Never so rare that the profile says nothing (a forced perf clock
	 * that switches alone put over the budget). */
	p = p > CLOCK_MAX_PERIOD_NS && soft ? clock_max(p0, CLOCK_MAX_PERIOD_NS) : clock_max(p0, p);
	if (to == kind && p * CLOCK_HYST_NUM / CLOCK_HYST_DEN > period &&
	    period * CLOCK_HYST_NUM / CLOCK_HYST_DEN > p)
		p = period;
	*next = p;
	return to;
}

void clock_govern(struct agent_thread *t, uint64_t cpu)
{
	const struct agent_clock *c = &agent_g.cfg.clock;
	struct clock_window w;
	uint64_t sw = t->clk.sw0, p;
	int kind, err;

	/* A thread on the POSIX clock goes back only on a longer window's
	 * word: a few quiet milliseconds of one that switches would have it
	 * pay for its switches again. */
	if (!c->budget_ppm || cpu < t->clk.cpu0 + (t->clk.kind == CLOCK_K_POSIX ?
						   CLOCK_POSIX_WINDOW_NS : CLOCK_WINDOW_NS))
		return;
	clock_count_switches(t);
	w.samples = t->st.samples - t->clk.samples0;
	w.cpu_ns = cpu - t->clk.cpu0;
	w.handler_ns = t->ext.sample_cpu_n ? t->ext.sample_cpu_ns / t->ext.sample_cpu_n :
		       c->handler_ns;
	w.switches = t->clk.sw0 - sw;
	t->clk.cpu0 = cpu;
	t->clk.samples0 = t->st.samples;
	kind = clock_choose(c, agent_g.cfg.source == SRC_SOFT, agent_g.cfg.ev[0].period,
			    t->clk.kind, t->clk.period, &w, &p);
	/* The perf clock's event could not be placed high any more (fds.c). */
	if (kind != t->clk.kind && kind == CLOCK_K_PERF && atomic_load(&agent_g.fds_low))
		return;
	if (kind == t->clk.kind && p == t->clk.period)
		return;
	err = clock_apply(t, kind, p);
	if (err)
		agent_error(-err, "agent: the governor could not change a thread's sample clock");
	t->ext.period = t->clk.period;
}
