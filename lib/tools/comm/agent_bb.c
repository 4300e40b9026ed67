// SPDX-License-Identifier: GPL-2.0-only
/*
 * ComDetective's BulletinBoard and Algorithm 1 (see agent_bb.h).
 *
 * Decisions the paper leaves open, taken here (man/cdt-comm.1 says them
 * to users):
 *  - Expiry.  The paper has two notions: "published between the observer's
 *    current and previous sample" and "survived two store samples of the
 *    publisher".  cdt uses the first for everything: an entry is fresh
 *    for thread T if it was published after T's previous sample.  It
 *    decides arming (only fresh lines are watched), when watchpoints are
 *    old (armed before T's previous sample), and when T's store may
 *    replace an entry (the entry is not fresh for T).  The publisher-count
 *    rule is unfit for sampling that follows CPU time: a publisher that
 *    is descheduled never takes its two store samples, so its entry would
 *    pin the line's slot while every other writer goes unseen.  The
 *    observer's clock needs no other thread's state.
 *  - Detection on a sample follows Algorithm 1 to the letter: any entry
 *    of another thread newer than t_prev counts, fresh or not; t_prev
 *    makes one publication count once per observer.
 *  - A slot holding another line is a miss for the sampled line, and a
 *    store replaces it whatever its age: the newest line wins the slot.
 *  - Implicit stack operands (push, pop, call, ret) neither publish nor
 *    detect: a thread's own pushes and pops cannot be communication, and
 *    would evict the board.  Explicit accesses to stack memory count.
 *  - An access that straddles two lines is taken as one to its first line.
 *  - Watchpoints live one sample period (old at the thread's next sample),
 *    as in the paper.  Arming costs D ioctls (a few microseconds each in a
 *    VM, where debug-register writes exit to the hypervisor), and most
 *    armings in code that shares little never trap.  So a thread whose
 *    armings go untrapped arms less often: after an arming it lets 0, 1,
 *    3, 7, then 15 samples pass before the next; a valid trap resets it
 *    to every sample.  A trap then stands for the skipped samples too: it
 *    is weighed by the interval in force (rec_comm.scale), which keeps the
 *    estimate unbiased while the cost falls.  Old watchpoints are
 *    disarmed at the thread's next sample: left enabled, the kernel would
 *    reload them at every context switch of the thread, and a trap on one
 *    would count nothing (comm_trapped).
 *  - Watching the writer too.  Detection needs a store of the writer's
 *    sampled on the line, and a store does not hold a thread up: a
 *    writer whose rare stores to a line cost its reader a miss at every
 *    read (a histogram's counters beside the next thread's header) is
 *    sampled there almost never, while the reader's samples, which fall
 *    where it stalls, sit on that line.  So loads are published too, on
 *    a readers' board of their own (a load must never displace a store
 *    from the board that detection reads), and at one arming in two,
 *    chosen by coin, a thread watches a fresh line of the readers' board
 *    for stores instead.  Its trap is the transfer seen from the
 *    writer's side: it stored into a line the reader had loaded from,
 *    which the reader's next load must fetch again (COMM_F_WRITER; the
 *    record's observer is the reader).  Of the fresh lines there, the
 *    one the reader's samples fell on most often is watched: a
 *    line a thread keeps stalling on is one its loads keep missing, and
 *    a streaming reader's lines (each loaded once) would otherwise take
 *    nearly every watch.  Each kind of arming stands for the transfers at
 *    half the armings, chosen by coin; the writer's watch, drawn to the
 *    hot lines, weighs them more than the rest.
 */
#include <errno.h>

#include "lib/tools/comm/agent_bb.h"
#include "lib/wire/record.h"

void bb_init(struct bb *b, uint32_t nslots)
{
	b->nslots = nslots;
	for (uint32_t i = 0; i < nslots; i++) {
		atomic_store_explicit(&b->slot[i].seq, 0, memory_order_relaxed);
		b->slot[i].pub = (struct bb_pub){ 0 };
	}
}

static struct bb_slot *bb_slot_of(const struct bb *b, uint64_t line)
{
	return (struct bb_slot *)&b->slot[(line / BB_LINE) % b->nslots];
}

/* A consistent copy of a slot, or 0. */
static int bb_read(const struct bb_slot *s, struct bb_pub *out)
{
	unsigned a = atomic_load_explicit(&s->seq, memory_order_acquire);

	if (a & 1)
		return 0;
	*out = s->pub;
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&s->seq, memory_order_relaxed) == a && out->time;
}

int bb_get(const struct bb *b, uint64_t line, struct bb_pub *out)
{
	return bb_read(bb_slot_of(b, line), out) && out->line == line;
}

int bb_put(struct bb *b, const struct bb_pub *p)
{
	struct bb_slot *s = bb_slot_of(b, p->line);
	unsigned a = atomic_load_explicit(&s->seq, memory_order_relaxed);

	if ((a & 1) || !atomic_compare_exchange_strong_explicit(&s->seq, &a, a + 1,
							       memory_order_acquire,
							       memory_order_relaxed))
		return -EBUSY;
	s->pub = *p;
	atomic_store_explicit(&s->seq, a + 2, memory_order_release);
	return 0;
}

int bb_pick(const struct bb *b, uint32_t start, uint32_t self, uint64_t after,
	    struct bb_pub *out)
{
	/* The whole default board, but never all of a large one: this runs in
	 * the sample handler. */
	uint32_t n = b->nslots < BB_PICK_PROBES ? b->nslots : BB_PICK_PROBES;

	for (uint32_t k = 0; k < n; k++) {
		const struct bb_slot *s = &b->slot[(start + k) % b->nslots];

		if (bb_read(s, out) && out->tid != self && out->time > after)
			return 1;
	}
	return 0;
}

int bb_pick_most(const struct bb *b, uint32_t start, uint32_t self, uint64_t after,
		 struct bb_pub *out)
{
	uint32_t n = b->nslots < BB_PICK_PROBES ? b->nslots : BB_PICK_PROBES;
	struct bb_pub e;
	int found = 0;

	for (uint32_t k = 0; k < n; k++) {
		const struct bb_slot *s = &b->slot[(start + k) % b->nslots];

		if (bb_read(s, &e) && e.tid != self && e.time > after &&
		    (!found || e.loads > out->loads)) {
			*out = e;
			found = 1;
		}
	}
	return found;
}

uint64_t comm_rand(uint64_t *rng)
{
	uint64_t x = *rng ? *rng : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x;
	return x;
}

void comm_chunks(uint64_t *rng, unsigned n, unsigned *chunk)
{
	unsigned all[BB_LINE / 8];

	for (unsigned i = 0; i < BB_LINE / 8; i++)
		all[i] = i;
	/* The first n steps of a Fisher-Yates shuffle. */
	for (unsigned i = 0; i < n && i < BB_LINE / 8; i++) {
		unsigned j = i + (unsigned)(comm_rand(rng) % (BB_LINE / 8 - i));
		unsigned x = all[i];

		all[i] = all[j];
		all[j] = x;
		chunk[i] = all[i];
	}
}

enum comm_outcome comm_classify(uint64_t addr, unsigned size, const struct bb_pub *pub)
{
	uint64_t end = addr + (size ? size : 1), pend = pub->addr + (pub->size ? pub->size : 1);

	return addr < pend && pub->addr < end ? COMM_TS : COMM_FS;
}

enum comm_outcome comm_on_sample(struct bb *b, struct comm_tstate *ts,
				 const struct comm_access *a, struct bb_pub *peer,
				 unsigned *todo)
{
	enum comm_outcome out = COMM_QUIET;
	uint64_t line = bb_line_of(a->addr);
	struct bb_pub e, mine;
	int found;

	ts->prev_sample = ts->last_sample;
	ts->last_sample = a->time;
	*todo = 0;
	found = bb_get(b, line, &e);
	if (found && e.tid != a->tid && e.time > ts->t_prev) {
		out = comm_classify(a->addr, a->size, &e);
		ts->t_prev = e.time;
		*peer = e;
	} else {
		*todo |= COMM_DO_ARM;
	}
	if (a->kind == MEM_LOAD || (found && e.time > ts->prev_sample))
		return out;
	mine = (struct bb_pub){ .line = line, .addr = a->addr, .time = a->time, .ip = a->ip,
				.tid = a->tid, .cpu = a->cpu, .size = a->size, .kind = a->kind,
				.period = a->period };
	(void)bb_put(b, &mine); /* a writer holds the slot: it publishes instead */
	return out;
}

void comm_on_load(struct bb *rb, const struct comm_access *a)
{
	struct bb_pub mine = { .line = bb_line_of(a->addr), .addr = a->addr, .time = a->time,
			       .ip = a->ip, .tid = a->tid, .cpu = a->cpu, .size = a->size,
			       .kind = a->kind, .loads = 1, .period = a->period },
		      e;

	if (bb_get(rb, mine.line, &e) && e.tid == mine.tid && e.loads < UINT16_MAX)
		mine.loads = (uint16_t)(e.loads + 1);

	(void)bb_put(rb, &mine); /* a writer holds the slot: the next load will do */
}

enum comm_wp comm_arm_pick(const struct bb *b, const struct bb *rb, struct comm_tstate *ts,
			   uint32_t self, struct bb_pub *out, int *reads)
{
	uint64_t r;

	if (ts->arm_wait) {
		ts->arm_wait--;
		return COMM_WP_KEEP;
	}
	r = comm_rand(&ts->rng);
	/* xorshift's high bits are poor for a while after a small seed. */
	*reads = rb && ((r * 0x9e3779b97f4a7c15ull) >> 63);
	if (*reads ? bb_pick_most(rb, (uint32_t)(r % rb->nslots), self, ts->prev_sample, out)
		   : bb_pick(b, (uint32_t)(r % b->nslots), self, ts->prev_sample, out))
		return COMM_WP_ARM;
	return COMM_WP_KEEP;
}

void comm_armed(struct comm_tstate *ts, const struct bb_pub *pub, uint64_t now, int reads)
{
	ts->wp_reads = (uint32_t)reads;
	ts->wp_pub = *pub;
	ts->wp_time = now;
	ts->wp_every = 1u << ts->arm_backoff;
	ts->arm_wait = ts->wp_every - 1;
	if (ts->arm_backoff < COMM_ARM_BACKOFF_MAX)
		ts->arm_backoff++;
}

int comm_trapped(struct comm_tstate *ts)
{
	int valid = ts->wp_time && ts->wp_time == ts->last_sample;

	ts->wp_time = 0;
	if (!valid)
		return 0;
	/* Watching pays off here: arm at every sample again. */
	ts->arm_backoff = 0;
	ts->arm_wait = 0;
	/* One transfer: the samples that follow must not count it again.
	 * (A writer's trap is not this thread's observation.) */
	if (!ts->wp_reads && ts->wp_pub.time > ts->t_prev)
		ts->t_prev = ts->wp_pub.time;
	return 1;
}
