// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt comm` in the target: ComDetective's Algorithm 1 on every memory
 * sample (agent_bb.c decides), debug registers armed on lines other threads
 * published, and one REC_COMM record per detected communication.  Samples
 * themselves are not recorded: only what the algorithm finds leaves the
 * process, so the arena carries little.
 */
#include <errno.h>
#include <sys/mman.h>

#include "lib/agent/agent.h"
#include "lib/tools/comm/agent_bb.h"
#include "lib/tools/comm/comm.h"

static struct bb *comm_bb, *comm_rb; /* stores; loads (agent_bb.c) */
static unsigned comm_nwp; /* debug registers used per thread */

static int comm_init(const void *params)
{
	const struct comm_params *cp = params;
	uint32_t n = cp->bb_slots;
	void *p;

	if (n < 1 || n > BB_MAX_SLOTS)
		n = BB_DEFAULT_SLOTS;
	comm_nwp = cp->wp;
	if (comm_nwp > WPT_SLOTS)
		comm_nwp = WPT_SLOTS;
	/* In a fork child the parent's board describes the parent's threads:
	 * start afresh (the parent's mapping stays the parent's). */
	p = mmap(NULL, 2 * bb_bytes((uint32_t)n), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (comm_bb)
		munmap(comm_bb, 2 * bb_bytes(comm_bb->nslots));
	bb_init(p, n);
	comm_bb = p;
	comm_rb = (struct bb *)((char *)p + bb_bytes((uint32_t)n));
	bb_init(comm_rb, n);
	return 0;
}

static void comm_thread_start(struct agent_thread *t)
{
	struct comm_tstate *ts = t->state;

	ts->rng = ((uint64_t)t->tid << 32) ^ agent_now();
}

/* The thread's mean sampling period, for rec_comm.period. */
static uint32_t comm_period(const struct agent_thread *t)
{
	uint64_t p = clock_mean_period(t);

	return p < UINT32_MAX ? (uint32_t)p : UINT32_MAX;
}

static void comm_emit(struct agent_thread *t, const struct comm_access *a,
		      const struct bb_pub *pub, enum comm_outcome out, uint32_t flags,
		      uint32_t scale)
{
	struct rec_comm r = {
		.pid = (uint32_t)agent_g.pid, .tid = a->tid, .pub_tid = pub->tid,
		.flags = flags | (out == COMM_TS ? COMM_F_TRUE : 0),
		.cpu = a->cpu, .pub_cpu = pub->cpu, .time = a->time, .pub_time = pub->time,
		.addr = a->addr, .pub_addr = pub->addr, .ip = a->ip, .pub_ip = pub->ip,
		.size = a->size, .pub_size = pub->size, .kind = a->kind, .pub_kind = pub->kind,
		.scale = scale, .period = a->period, .pub_period = pub->period,
	};

	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_COMM))
		t->st.dropped++;
}

static void comm_disarm(struct agent_thread *t)
{
	struct comm_tstate *ts = t->state;

	for (unsigned i = 0; i < comm_nwp; i++)
		(void)wpt_disarm(&t->wp, (int)i); /* EBUSY: a sibling never arms ours */
	ts->wp_time = 0;
}

/* TryArmWatchpoint: D random 8-byte chunks of a fresh line of another thread. */
static void comm_arm(struct agent_thread *t, uint64_t now, uint32_t period)
{
	struct comm_tstate *ts = t->state;
	unsigned chunk[WPT_SLOTS];
	struct bb_pub pub;
	int err = 0, reads = 0;

	if (comm_arm_pick(comm_bb, comm_rb, ts, (uint32_t)t->tid, &pub, &reads) != COMM_WP_ARM)
		return;
	/* Still the same line and kind: keep the registers, spare the ioctls. */
	if (!(ts->wp_time && pub.line == ts->wp_pub.line && (uint32_t)reads == ts->wp_reads &&
	      t->wp.slot[0].armed)) {
		comm_chunks(&ts->rng, comm_nwp, chunk);
		for (unsigned i = 0; i < comm_nwp && !err; i++)
			err = wpt_arm(&t->wp, (int)i, pub.line + 8u * chunk[i], 8,
				      reads ? WPT_W : WPT_RW, pub.tid);
		if (err) {
			comm_disarm(t);
			return;
		}
	}
	comm_armed(ts, &pub, now, reads);
	ts->wp_period = period;
}

static void comm_sample(struct agent_thread *t, struct rec_sample *s)
{
	struct comm_tstate *ts = t->state;
	struct comm_access a = { .addr = s->addr, .time = s->time, .ip = s->ip, .tid = s->tid,
				 .cpu = s->cpu, .size = s->size, .kind = s->kind,
				 .period = comm_period(t) };
	enum comm_outcome out;
	struct bb_pub peer;
	unsigned todo;

	if (!comm_bb || !(s->flags & SAMPLE_F_ADDR) || (s->flags & SAMPLE_F_STACK))
		return;
	out = comm_on_sample(comm_bb, ts, &a, &peer, &todo);
	if (a.kind == MEM_LOAD)
		comm_on_load(comm_rb, &a);
	if (out != COMM_QUIET)
		comm_emit(t, &a, &peer, out, 0, 1);
	if ((todo & COMM_DO_ARM) && comm_nwp)
		comm_arm(t, s->time, a.period);
	/* Enabled breakpoints are reloaded at every context switch (a
	 * hypervisor exit each in a VM): old ones go now, not at a trap. */
	if (ts->wp_time && ts->wp_time != s->time)
		comm_disarm(t);
}

static void comm_trap(struct agent_thread *t, struct rec_trap *tr, ucontext_t *uc)
{
	(void)uc;
	struct comm_tstate *ts = t->state;
	/* The watch was armed at the thread's latest sample: its period then. */
	struct comm_access a = { .time = tr->time, .ip = tr->insn_ip ? tr->insn_ip : tr->ip,
				 .tid = tr->tid, .cpu = tr->cpu, .kind = tr->kind,
				 .period = ts->wp_period };
	uint32_t flags = COMM_F_TRAP;

	if (!comm_bb)
		return;
	if (!comm_trapped(ts)) {
		comm_disarm(t);
		return;
	}
	if (tr->flags & TRAP_F_ADDR) {
		a.addr = tr->acc_addr;
		a.size = tr->size;
		flags |= COMM_F_EXACT;
	} else {
		a.addr = tr->wp_addr & ~(uint64_t)7;
		a.size = 8;
	}
	if (ts->wp_reads) {
		/* This thread wrote what the reader had loaded: the reader is
		 * the observer, this store the publication. */
		const struct bb_pub *r = &ts->wp_pub;
		struct comm_access obs = { .addr = r->addr, .time = r->time, .ip = r->ip,
					   .tid = r->tid, .cpu = r->cpu, .size = r->size,
					   .kind = r->kind, .period = r->period };
		struct bb_pub wr = { .line = bb_line_of(a.addr), .addr = a.addr, .time = a.time,
				     .ip = a.ip, .tid = a.tid, .cpu = a.cpu, .size = a.size,
				     .kind = a.kind, .period = a.period };

		comm_emit(t, &obs, &wr, comm_classify(r->addr, r->size, &wr),
			  flags | COMM_F_WRITER, ts->wp_every);
	} else {
		comm_emit(t, &a, &ts->wp_pub, comm_classify(a.addr, a.size, &ts->wp_pub), flags,
			  ts->wp_every);
	}
	comm_disarm(t);
}

const struct agent_tool comm_agent = {
	.flags = AGENT_TOOL_STALLS,
	.state_size = sizeof(struct comm_tstate),
	.init = comm_init,
	.thread_start = comm_thread_start,
	.sample = comm_sample,
	.trap = comm_trap,
};
