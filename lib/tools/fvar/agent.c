// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt fvar` in the target: whole function instances, from call to
 * return (FVSampler, SC'19), chosen by samples.
 *
 * A sample in function F arms an execute breakpoint (a debug register)
 * on F's entry, or, with probability caller_p16 per level, on the entry
 * of a caller found on the stack.  The next call traps there with [rsp]
 * holding the return address; that instance is the one measured, not
 * the sampled one, so long instances are not favoured.  The entry trap
 * reads the metrics (V_call) and watches the return slot with another
 * (read/write); the `ret` that reads it traps with rip = the return
 * address and rsp = slot + 8, where the metrics are read again.  With a
 * pmu call event, the sample itself stands at the entry.
 *
 * One register watches any number of nested instances (the paper's
 * Figure 4): the open ones form a stack, the innermost is watched, a
 * return pops and the register moves to the next.  A trap that is not
 * that return is another reader of the slot (an unwinder, backtrace()),
 * counted and ignored, or a write: the frame is gone (longjmp, a throw)
 * and a new one uses the slot.  After a longjmp or throw (agent_tool.jump)
 * the next event also drops the instances whose slots are below the
 * stack pointer.
 *
 * The agent's own time is taken out of time metrics: each handler adds
 * its duration to own_ns, and an instance's time loses what own_ns grew
 * by between its V_call (read last in the entry trap) and V_ret (read
 * first in the return trap).  The kernel's part of delivering the traps
 * is measured once per process (fv_calibrate) and taken out for the
 * instance's own two and once more for each sample or trap inside it.
 *
 * Stack and watched memory are read with process_vm_readv: a read by the
 * kernel does not fire a user watchpoint, one by the handler would trap
 * with SIGTRAP blocked, which kills.  Only [rsp] at an entry is read
 * directly, when it is not the watched slot.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/agent/agent.h"
#include "lib/tools/fvar/fvar.h"

struct fv_open {
	uint64_t slot, ret, entry, time;
	uint64_t own0; /* own_ns when V_call was read */
	uint64_t ev0;  /* events then */
	uint64_t v0[FV_MAX_METRICS];
};

/* Call sites whose instances this thread counts, for fv_stack_due. */
#define FV_SEEN 512
#define FV_SEEN_PROBES 8

struct fv_seen {
	uint64_t entry, ret;
	uint64_t n;
};

#define FV_CALIB_RUNS 31
#define FV_CALIB_WARM 4
#define FV_CALIB_WORK (1u << 20)

struct fv_thread {
	struct fv_open open[FV_MAX_DEPTH];
	uint64_t (*calib)[FV_CALIB_RUNS]; /* calibrating: deltas go here */
	uint32_t ncalib;
	uint32_t nopen;
	int jumped;       /* AGENT_JUMP_* seen since the last event, or 0 */
	uint64_t want;    /* the entry breakpoint's address, 0 if none */
	/* Debug registers: wret watches the innermost open instance's return
	 * slot, went holds the entry breakpoint.  They trade roles when an
	 * entry opens the only instance: the entry's register becomes the
	 * watch in one ioctl, instead of a disarm and an arm. */
	int wret, went;
	uint64_t own_ns;  /* handler time so far */
	uint64_t events;  /* samples and traps so far */
	uint64_t born;    /* when the thread started */
	uint64_t rng;
	struct fv_seen seen[FV_SEEN];
};

static struct fvar_params fv_p;
static int fv_calls; /* pmu call samples: each stands at a callee's entry */
/* What measuring an instance adds to each metric (fv_calibrate). */
static uint64_t fv_bias[FV_MAX_METRICS];
static int fv_calibrated;

static int fv_init(const void *params)
{
	fv_p = *(const struct fvar_params *)params;
	if (fv_p.nmetrics > FV_MAX_METRICS)
		fv_p.nmetrics = FV_MAX_METRICS;
	if (fv_p.depth < 1 || fv_p.depth > FV_MAX_DEPTH)
		fv_p.depth = FV_DEFAULT_DEPTH;
	fv_calls = agent_g.cfg.source == SRC_PMU && agent_g.cfg.ev[0].kind == FV_EV_CALLS;
	return 0;
}

static uint64_t fv_sp(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
}

static uint64_t fv_ip(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
}

/* Memory of this process read by the kernel (never traps, never faults). */
static size_t fv_read(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	return n > 0 ? (size_t)n : 0;
}

/* The metrics now; 0, or -1 if the counters could not be read. */
static int fv_metrics(struct agent_thread *t, uint64_t wall, uint64_t *v)
{
	struct agent_counts c = { 0 };
	int have = 0;

	for (uint32_t i = 0; i < fv_p.nmetrics; i++) {
		const struct fvar_metric *m = &fv_p.metric[i];

		if (m->src == FV_SRC_WALL) {
			v[i] = wall;
			continue;
		}
		if (!have) {
			if (agent_counters_read(t, &c) || !c.n)
				return -1;
			have = 1;
		}
		v[i] = m->counter < c.n ? c.v[m->counter] : 0;
	}
	return 0;
}

static void fv_drop(struct agent_thread *t, const struct fv_open *o, uint64_t time, int cause)
{
	struct rec_fvar_drop d = { 0 };

	d.pid = (uint32_t)agent_g.pid;
	d.tid = (uint32_t)t->tid;
	d.time = time;
	d.entry = o ? o->entry : 0;
	d.ret = o ? o->ret : 0;
	d.cause = (uint32_t)cause;
	if (arena_write(&agent_g.arena, &d, sizeof(d), REC_FVAR_DROP))
		t->st.dropped++;
}

/* Watch the innermost open instance's slot, or nothing. */
static void fv_watch_top(struct agent_thread *t, struct fv_thread *s, uint64_t time)
{
	while (s->nopen) {
		struct fv_open *o = &s->open[s->nopen - 1];

		if (!wpt_arm(&t->wp, s->wret, o->slot, 8, WPT_RW, o->slot))
			return;
		fv_drop(t, o, time, FV_DROP_ARM);
		s->nopen--;
	}
	wpt_disarm(&t->wp, s->wret);
}

/* Why an open instance's frame went without its return: the jump seen
 * since the last event, else its return trap was lost. */
static int fv_gone_cause(const struct fv_thread *s)
{
	return s->jumped == AGENT_JUMP_THROW ? FV_DROP_THROW :
	       s->jumped == AGENT_JUMP_LONGJMP ? FV_DROP_LONGJMP : FV_DROP_UNWOUND;
}

/*
 * The open instances whose slots the stack pointer has passed are gone:
 * a longjmp or throw unwound them, or their return trap was lost (two
 * SIGTRAPs at once are one signal: a sample's and a return's).  Only
 * when sp is near the slots (FV_STACK_NEAR): on a signal stack of the
 * program's, sp tells nothing of them.
 */
#define FV_STACK_NEAR (8u << 20)
static int fv_unwound(struct agent_thread *t, struct fv_thread *s, uint64_t sp, uint64_t time)
{
	int n = 0;

	while (s->nopen) {
		uint64_t slot = s->open[s->nopen - 1].slot;

		if (slot >= sp || sp - slot >= FV_STACK_NEAR)
			break;
		s->nopen--;
		fv_drop(t, &s->open[s->nopen], time, fv_gone_cause(s));
		n++;
	}
	s->jumped = 0;
	return n;
}

static uint64_t fv_rand(struct fv_thread *s)
{
	/* xorshift64*: a thread's own sequence, no state shared. */
	uint64_t x = s->rng ? s->rng : 0x9e3779b97f4a7c15ull ^ (uint64_t)gettid();

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

/*
 * The return addresses above sp, innermost first, each checked: inside a
 * known function, right after a call.  A direct call must call the
 * function found below it, or one with no symbol (a PLT stub): anything
 * else is a stale word in a frame, or a tail call's hidden caller.  The
 * code before the candidates is read in one system call: a sample's cost
 * is mostly its system calls.
 */
static uint32_t fv_callers(uint64_t sp, uint64_t callee, uint64_t *out, uint64_t *entry)
{
	enum { CODE = 7, CANDS = 2 * FV_MAX_CALLERS };
	uint64_t words[FV_SCAN_WORDS], cand[CANDS], cstart[CANDS];
	unsigned char code[CANDS][CODE];
	struct iovec local[CANDS], remote[CANDS];
	size_t n = fv_read(sp, words, sizeof(words)) / sizeof(words[0]);
	uint32_t found = 0, nc = 0, have;
	ssize_t got;

	for (size_t i = 0; i < n && nc < CANDS; i++) {
		uint64_t w = words[i], start, end;

		if (w < 4096 || !functab_find(w, &start, &end) || w == start)
			continue;
		cand[nc] = w;
		cstart[nc] = start;
		local[nc] = (struct iovec){ code[nc], CODE };
		remote[nc] = (struct iovec){ (void *)(uintptr_t)(w - CODE), CODE };
		nc++;
	}
	/* A remote range that faults ends the read: the candidates after it
	 * go unchecked, as the scan's bound would leave them. */
	got = nc ? process_vm_readv(getpid(), local, nc, remote, nc, 0) : 0;
	have = got > 0 ? (uint32_t)((size_t)got / CODE) : 0;
	for (uint32_t k = 0; k < have && found < FV_MAX_CALLERS; k++) {
		uint64_t tstart, tend, target = 0;
		int r = decode_call_before(code[k], CODE, cand[k], &target);

		if (r <= 0)
			continue;
		if (r == 1 && target != callee && functab_find(target, &tstart, &tend))
			continue;
		entry[found] = cstart[k];
		out[found++] = cand[k];
		callee = cstart[k];
	}
	return found;
}

/*
 * At a function's entry (rip its first instruction, [rsp] the return
 * address): open an instance, watch its slot, and read V_call last, so
 * the handler's own time is not in it.
 */
static void fv_begin(struct agent_thread *t, struct fv_thread *s, ucontext_t *uc, uint64_t time,
		     int check)
{
	uint64_t sp = fv_sp(uc), ret = 0, target = 0, now;
	struct fv_open *o, tmp = { .entry = fv_ip(uc) };
	unsigned char code[7];

	/* [rsp] is read directly unless it is the watched slot (a frame gone
	 * without a trap yet): the handler must not trip its own watch. */
	if (s->nopen && s->open[s->nopen - 1].slot == sp) {
		if (fv_read(sp, &ret, sizeof(ret)) != sizeof(ret))
			ret = 0;
	} else {
		ret = *(const uint64_t *)(uintptr_t)sp;
	}
	/* A sample may have skidded past the entry, where [rsp] is anything;
	 * an entry breakpoint stops exactly at the first instruction. */
	if (!ret || (check && (fv_read(ret - sizeof(code), code, sizeof(code)) != sizeof(code) ||
			       decode_call_before(code, sizeof(code), ret, &target) <= 0))) {
		tmp.ret = ret;
		fv_drop(t, &tmp, time, FV_DROP_NOT_CALLED);
		goto fail;
	}
	if (s->nopen >= fv_p.depth) {
		tmp.ret = ret;
		fv_drop(t, &tmp, time, FV_DROP_DEPTH);
		goto fail;
	}
	o = &s->open[s->nopen++];
	o->slot = sp;
	o->ret = ret;
	o->entry = fv_ip(uc);
	o->time = time;
	fv_watch_top(t, s, time);
	if (!s->nopen || s->open[s->nopen - 1].slot != sp)
		goto out; /* it could not be watched */
	if (fv_metrics(t, 0, o->v0)) {
		s->nopen--;
		fv_drop(t, o, time, FV_DROP_ARM);
		fv_watch_top(t, s, time);
		goto out;
	}
	now = agent_now();
	s->own_ns += now - time;
	o->own0 = s->own_ns;
	o->ev0 = s->events;
	for (uint32_t i = 0; i < fv_p.nmetrics; i++)
		if (fv_p.metric[i].src == FV_SRC_WALL)
			o->v0[i] = now;
	return;
fail:
	/* With none open, the watch register may hold the entry breakpoint
	 * (fv_trap); with some, it still watches the innermost. */
	if (!s->nopen)
		wpt_disarm(&t->wp, s->wret);
out:
	s->own_ns += agent_now() - time;
}

static void fv_tick(struct agent_thread *t, ucontext_t *uc, uint64_t time)
{
	struct fv_thread *s = t->state;
	struct rec_fvar_sample r = { 0 };
	uint64_t ip = fv_ip(uc), start, end, entry;
	uint32_t level = 0;

	s->events++;

	if (fv_unwound(t, s, fv_sp(uc), time))
		fv_watch_top(t, s, time);
	if (!functab_find(ip, &start, &end))
		goto out; /* no symbol: nothing to measure; the sample still counts */
	r.entry[0] = start;
	if (fv_calls) {
		/* A call event: the thread stands at the callee's entry, unless
		 * the sample skidded past it; this call is the instance. */
		if (ip != start)
			goto out;
		r.flags = FV_SAMPLE_CALL;
		if (arena_write(&agent_g.arena, &r, sizeof(r), REC_FVAR_SAMPLE))
			t->st.dropped++;
		fv_begin(t, s, uc, time, 1);
		return;
	}
	/* Only time samples count for their callers (a call sample stands
	 * for its callee alone): the scan is theirs. */
	r.ncallers = fv_callers(fv_sp(uc), start, r.caller, r.entry + 1);
	entry = start;
	while (level < r.ncallers && (fv_rand(s) & 0xffff) < fv_p.caller_p16)
		level++;
	if (level)
		entry = r.entry[level];
	if (entry != s->want) {
		if (wpt_arm(&t->wp, s->went, entry, sizeof(long), WPT_X, entry))
			s->want = 0;
		else
			s->want = entry;
	}
out:
	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = time;
	r.ip = ip;
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_FVAR_SAMPLE))
		t->st.dropped++;
	s->own_ns += agent_now() - time;
}

/*
 * Whether this instance keeps its callers' stack: the n-th instance of its
 * call site in this thread does with probability 1/2^floor(log2 n), so
 * about one per doubling of its calls, at random (a periodic pattern of
 * paths cannot alias with it).  A call site's paths are thus seen across
 * the whole run at a cost (and a profile size) that grows with the log of
 * its calls; a full table keeps no more.
 */
static int fv_stack_due(struct fv_thread *s, uint64_t entry, uint64_t ret)
{
	uint64_t h = (entry ^ (ret * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	if (!fv_p.stack_bytes)
		return 0;
	for (unsigned i = 0; i < FV_SEEN_PROBES; i++) {
		struct fv_seen *e = &s->seen[(h >> 40) % FV_SEEN];

		if (!e->n) {
			*e = (struct fv_seen){ entry, ret, 1 };
			return 1;
		}
		if (e->entry == entry && e->ret == ret) {
			unsigned octave = 63u - (unsigned)__builtin_clzll(++e->n);

			return !(fv_rand(s) & ((1ull << octave) - 1));
		}
		h += 0x9e3779b97f4a7c15ull;
	}
	return 0;
}

/*
 * own: handler time inside the instance; nested: samples and traps inside
 * it, each of which also cost what the calibration measured.  uc is the
 * return's: the caller's registers, and its stack from o->slot + 8, which
 * the front end unwinds into the call path.
 */
static void fv_emit(struct agent_thread *t, struct fv_thread *s, const struct fv_open *o,
		    const uint64_t *v, uint64_t own, uint64_t nested, const ucontext_t *uc)
{
	static const int regs[FV_NREGS] = { REG_RBX, REG_RBP, REG_R12, REG_R13, REG_R14, REG_R15 };
	struct rec_fvar_inst r = { 0 }, *out;
	uint32_t words = 0;

	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = o->time;
	r.entry = o->entry;
	r.ret = o->ret;
	r.slot = o->slot;
	r.depth = s->nopen;
	r.nmetrics = fv_p.nmetrics;
	for (uint32_t i = 0; i < fv_p.nmetrics; i++) {
		uint64_t d = v[i] - o->v0[i];

		if (fv_p.metric[i].flags & FV_M_TIME)
			d = d > own ? d - own : 0;
		if (s->calib) {
			if (s->ncalib < FV_CALIB_RUNS)
				s->calib[i][s->ncalib] = d;
			continue;
		}
		r.v[i] = d > fv_bias[i] * (1 + nested) ? d - fv_bias[i] * (1 + nested) : 0;
	}
	if (s->calib) {
		s->ncalib++;
		return;
	}
	if (fv_stack_due(s, o->entry, o->ret))
		words = fv_p.stack_bytes / 8;
	out = arena_reserve(&agent_g.arena, (uint32_t)(sizeof(r) + words * 8), REC_FVAR_INST);
	if (!out) {
		t->st.dropped++;
		return;
	}
	/* The stack is read into the ring, up to its unmapped end; the size
	 * reserved stays, the words not read are zero.  The registers only
	 * serve to unwind it. */
	if (words) {
		size_t got = fv_read(o->slot + 8, out->tail, words * 8);

		for (int i = 0; i < FV_NREGS; i++)
			r.regs[i] = (uint64_t)uc->uc_mcontext.gregs[regs[i]];
		r.nstack = words;
		memset((char *)out->tail + got, 0, words * 8 - got);
	}
	memcpy((char *)out + sizeof(r.h), (const char *)&r + sizeof(r.h), sizeof(r) - sizeof(r.h));
	arena_commit(&agent_g.arena, out);
}

/* The watched slot was accessed: the return, another reader, or a new frame. */
static void fv_slot(struct agent_thread *t, struct fv_thread *s, ucontext_t *uc, uint64_t time)
{
	uint64_t v[FV_MAX_METRICS] = { 0 }, own = s->own_ns, now_val = 0;
	int have = fv_metrics(t, time, v) == 0;
	struct fv_open *o;

	if (!s->nopen) {
		wpt_disarm(&t->wp, s->wret);
		return;
	}
	o = &s->open[s->nopen - 1];
	if (fv_ip(uc) == o->ret && fv_sp(uc) == o->slot + 8) {
		s->nopen--;
		if (have)
			fv_emit(t, s, o, v, own - o->own0, s->events - 1 - o->ev0, uc);
		else
			fv_drop(t, o, time, FV_DROP_ARM);
	} else if (fv_sp(uc) < o->slot &&
		   fv_read(o->slot, &now_val, sizeof(now_val)) == sizeof(now_val) &&
		   now_val == o->ret) {
		/* Read from deeper in the stack, and unchanged: an unwinder. */
		fv_drop(t, o, time, FV_NOTE_FOREIGN);
		return;
	} else {
		/* Its frame is gone and the slot serves another: a new call
		 * pushed onto it (sp at the slot; the same call site writes the
		 * same address), or the slot holds another value now. */
		s->nopen--;
		fv_drop(t, o, time, fv_gone_cause(s));
	}
	fv_unwound(t, s, fv_sp(uc), time);
	fv_watch_top(t, s, time);
}

static void fv_trap(struct agent_thread *t, struct rec_trap *tr, ucontext_t *uc)
{
	struct fv_thread *s = t->state;

	s->events++;
	/* A late trap (wpt.c) of the entry breakpoint: cdt's handler, which
	 * calls some of libc (clock_gettime, ioctl), ran the function just
	 * armed, and it is no call.  The breakpoint goes: left armed, every
	 * handler would trap again, the program would never run on, and
	 * a function the handler calls is never measured.  (Taken as an
	 * entry, such traps once split memmove into rows by the sampled
	 * IP, each timing the rest of a call; cdt's memcpy is its own.) */
	if (tr->flags & TRAP_F_LATE) {
		wpt_disarm(&t->wp, tr->slot);
		s->want = 0;
		s->own_ns += agent_now() - tr->time;
		return;
	}
	if (tr->slot == s->went) {
		/* One instance per sample: the breakpoint is done.  With no
		 * instance open its register becomes the watch (fv_begin
		 * retargets it); else it is disarmed. */
		s->want = 0;
		if (fv_unwound(t, s, fv_sp(uc), tr->time))
			fv_watch_top(t, s, tr->time);
		if (!s->nopen) {
			s->went = s->wret;
			s->wret = tr->slot;
		} else {
			wpt_disarm(&t->wp, s->went);
		}
		fv_begin(t, s, uc, tr->time, 0);
		return; /* it counted its own time */
	}
	if (tr->slot == s->wret)
		fv_slot(t, s, uc, tr->time);
	s->own_ns += agent_now() - tr->time;
}

static void fv_jump(struct agent_thread *t, int how)
{
	struct fv_thread *s = t->state;

	if (how == AGENT_JUMP_EXEC) {
		while (s->nopen)
			fv_drop(t, &s->open[--s->nopen], agent_now(), FV_DROP_EXEC);
		return;
	}
	s->jumped = how;
}

/* An empty function, called through a pointer so it stays a call. */
static __attribute__((noinline)) void fv_empty(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Insertion sort of a calibration's few runs: no libc qsort in the agent,
 * which may allocate from the program's heap. */
static void fv_sort_u64(uint64_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		uint32_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/*
 * Once per process, in its first thread before the program runs: measure
 * FV_CALIB_RUNS instances of an empty function the way the program's are
 * measured.  What they show is measuring itself (the kernel's delivery of
 * the entry and return traps, the handlers' instructions for pmu
 * counters); its median is subtracted from every instance.
 */
static void fv_calibrate(struct agent_thread *t)
{
	struct fv_thread *s = t->state;
	uint64_t d[FV_MAX_METRICS][FV_CALIB_RUNS];
	void (*volatile fn)(void) = fv_empty;
	struct rec_fvar_calib r = { 0 };
	void *work;

	fv_calibrated = 1;
	s->calib = d;
	/* A program's traps come one at a time between stretches of its own
	 * work, which leave the caches to it: each calibration run follows
	 * such a stretch (FV_CALIB_WORK bytes written), or back to back the
	 * traps would run warm and cost less than the program's.  The first
	 * FV_CALIB_WARM runs (a process's first traps) are not kept. */
	work = mmap(NULL, FV_CALIB_WORK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < FV_CALIB_WARM + FV_CALIB_RUNS; i++) {
		uint64_t entry = (uint64_t)(uintptr_t)fv_empty;

		if (i == FV_CALIB_WARM)
			s->ncalib = 0;
		if (work != MAP_FAILED)
			memset(work, i, FV_CALIB_WORK);
		if (wpt_arm(&t->wp, s->went, entry, sizeof(long), WPT_X, entry))
			break;
		s->want = entry;
		fn();
	}
	if (work != MAP_FAILED)
		munmap(work, FV_CALIB_WORK);
	wpt_disarm(&t->wp, s->went);
	s->want = 0;
	s->calib = NULL;
	if (s->ncalib < FV_CALIB_RUNS / 2)
		return; /* traps did not come: no correction rather than a wrong one */
	r.pid = (uint32_t)agent_g.pid;
	r.runs = s->ncalib;
	r.time = agent_now();
	for (uint32_t k = 0; k < fv_p.nmetrics; k++) {
		uint32_t n = s->ncalib;

		fv_sort_u64(d[k], n);
		fv_bias[k] = r.bias[k] = d[k][n / 2];
		/* The spread: an instance shorter than a few of these is noise. */
		r.spread[k] = (d[k][3 * n / 4] - d[k][n / 4]) * 100 / 135; /* IQR / 1.35 */
	}
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_FVAR_CALIB))
		t->st.dropped++;
}

static void fv_thread_start(struct agent_thread *t)
{
	struct fv_thread *s = t->state;

	s->born = agent_now();
	s->wret = 0;
	s->went = 1;
	if (!fv_calibrated)
		fv_calibrate(t);
}

/* The thread's metrics all told: counters count from its start. */
static void fv_total(struct agent_thread *t, struct fv_thread *s)
{
	struct rec_fvar_total r = { 0 };
	uint64_t now = agent_now();

	if (fv_metrics(t, now, r.v))
		return;
	for (uint32_t k = 0; k < fv_p.nmetrics; k++)
		if (fv_p.metric[k].src == FV_SRC_WALL)
			r.v[k] = now - s->born;
	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = now;
	r.nmetrics = fv_p.nmetrics;
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_FVAR_TOTAL))
		t->st.dropped++;
}

static void fv_thread_stop(struct agent_thread *t)
{
	struct fv_thread *s = t->state;

	while (s->nopen)
		fv_drop(t, &s->open[--s->nopen], agent_now(), FV_DROP_THREAD_END);
	wpt_disarm(&t->wp, s->wret);
	wpt_disarm(&t->wp, s->went);
	fv_total(t, s);
}

const struct agent_tool fvar_agent = {
	.state_size = sizeof(struct fv_thread),
	.init = fv_init,
	.thread_start = fv_thread_start,
	.thread_stop = fv_thread_stop,
	.trap = fv_trap,
	.tick = fv_tick,
	.jump = fv_jump,
	.flags = AGENT_TOOL_FUNCS | AGENT_TOOL_RAW_TRAPS,
};
