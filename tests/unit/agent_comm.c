// SPDX-License-Identifier: GPL-2.0-only
/*
 * ComDetective's Algorithm 1 as agent_bb.c implements it, replayed on
 * hand-made sample sequences: detection, TS/FS, the t_prev rule, the
 * expiry cdt chose (fresh = published after the observer's previous
 * sample), who may publish, and the watchpoint decisions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tools/comm/agent_bb.h"

#define LINE 0x10000ull

static struct bb *board(uint32_t n)
{
	struct bb *b = malloc(bb_bytes(n));

	assert_non_null(b);
	bb_init(b, n);
	return b;
}

static struct comm_access acc(uint32_t tid, uint64_t time, uint64_t addr, uint8_t size, int kind)
{
	return (struct comm_access){ .tid = tid, .time = time, .addr = addr, .size = size,
				     .kind = (uint8_t)kind, .ip = 0x400000 + tid };
}

static enum comm_outcome sample(struct bb *b, struct comm_tstate *ts, struct comm_access a,
				struct bb_pub *peer, unsigned *todo)
{
	return comm_on_sample(b, ts, &a, peer, todo);
}

/* Overlapping bytes are true sharing, other bytes of the line false. */
static void test_detect_ts_fs(void **state)
{
	struct bb *b = board(127);
	struct comm_tstate t1 = { 0 }, t2 = { 0 }, t3 = { 0 };
	struct bb_pub peer;
	unsigned todo;

	(void)state;
	assert_int_equal(sample(b, &t1, acc(1, 10, LINE + 8, 8, MEM_STORE), &peer, &todo),
			 COMM_QUIET);
	assert_true(todo & COMM_DO_ARM); /* nothing on the board for its line */
	assert_int_equal(sample(b, &t2, acc(2, 20, LINE + 12, 4, MEM_LOAD), &peer, &todo), COMM_TS);
	assert_int_equal(peer.tid, 1);
	assert_int_equal(peer.addr, LINE + 8);
	assert_false(todo & COMM_DO_ARM);
	assert_int_equal(sample(b, &t3, acc(3, 21, LINE + 16, 8, MEM_LOAD), &peer, &todo), COMM_FS);
	/* Byte ranges that only touch are disjoint. */
	assert_int_equal(comm_classify(LINE + 16, 8, &peer), COMM_FS);
	assert_int_equal(comm_classify(LINE + 15, 1, &peer), COMM_TS);
	/* The thread's own publication is no communication. */
	assert_int_equal(sample(b, &t1, acc(1, 30, LINE + 8, 8, MEM_LOAD), &peer, &todo),
			 COMM_QUIET);
	free(b);
}

/* t_prev: one publication counts once per observer. */
static void test_tprev(void **state)
{
	struct bb *b = board(127);
	struct comm_tstate t1 = { 0 }, t2 = { 0 };
	struct bb_pub peer;
	unsigned todo;

	(void)state;
	sample(b, &t1, acc(1, 10, LINE, 8, MEM_STORE), &peer, &todo);
	assert_int_equal(sample(b, &t2, acc(2, 20, LINE, 8, MEM_LOAD), &peer, &todo), COMM_TS);
	assert_int_equal(sample(b, &t2, acc(2, 30, LINE, 8, MEM_LOAD), &peer, &todo), COMM_QUIET);
	assert_true(todo & COMM_DO_ARM);
	/* A newer publication counts again. */
	sample(b, &t1, acc(1, 40, LINE, 8, MEM_STORE), &peer, &todo);
	assert_int_equal(sample(b, &t2, acc(2, 50, LINE, 8, MEM_LOAD), &peer, &todo), COMM_TS);
	free(b);
}

/* Only stores publish; a fresh entry of another thread is not replaced,
 * an entry older than the storing thread's previous sample is. */
static void test_publish_expiry(void **state)
{
	struct bb *b = board(127);
	struct comm_tstate t1 = { 0 }, t2 = { 0 }, t3 = { 0 };
	struct bb_pub e, peer;
	unsigned todo;

	(void)state;
	sample(b, &t1, acc(1, 10, LINE, 8, MEM_LOAD), &peer, &todo);
	assert_int_equal(bb_get(b, LINE, &e), 0); /* loads never publish */
	sample(b, &t1, acc(1, 11, LINE, 8, MEM_RMW), &peer, &todo);
	assert_int_equal(bb_get(b, LINE, &e), 1); /* atomics count as stores */
	assert_int_equal(e.tid, 1);

	/* t2's previous sample (5) is before the entry (11): fresh, kept. */
	sample(b, &t2, acc(2, 5, 0x90000, 8, MEM_LOAD), &peer, &todo);
	sample(b, &t2, acc(2, 12, LINE + 32, 8, MEM_STORE), &peer, &todo);
	assert_int_equal(bb_get(b, LINE, &e), 1);
	assert_int_equal(e.tid, 1);
	/* t3 sampled at 20 and again at 30: the entry (11) is older than
	 * its previous sample, so its store replaces it. */
	sample(b, &t3, acc(3, 20, 0x90000, 8, MEM_LOAD), &peer, &todo);
	sample(b, &t3, acc(3, 30, LINE + 40, 4, MEM_STORE), &peer, &todo);
	assert_int_equal(bb_get(b, LINE, &e), 1);
	assert_int_equal(e.tid, 3);
	assert_int_equal(e.addr, LINE + 40);
	assert_int_equal(e.size, 4);
	free(b);
}

/* Another line in the same slot is a miss, and a store takes the slot. */
static void test_slot_collision(void **state)
{
	struct bb *b = board(1);
	struct comm_tstate t1 = { 0 }, t2 = { 0 };
	struct bb_pub e, peer;
	unsigned todo;

	(void)state;
	sample(b, &t1, acc(1, 10, LINE, 8, MEM_STORE), &peer, &todo);
	assert_int_equal(sample(b, &t2, acc(2, 20, LINE + 64, 8, MEM_LOAD), &peer, &todo),
			 COMM_QUIET);
	sample(b, &t2, acc(2, 21, LINE + 128, 8, MEM_STORE), &peer, &todo);
	assert_int_equal(bb_get(b, LINE, &e), 0);
	assert_int_equal(bb_get(b, LINE + 128, &e), 1);
	free(b);
}

/* Watchpoints: armed on a fresh line of another thread, valid for one
 * sample period; untrapped armings back off, a trap resets. */
static void test_arm(void **state)
{
	struct bb *b = board(127);
	struct comm_tstate t1 = { 0 }, t2 = { .rng = 42 };
	struct bb_pub out, peer;
	unsigned todo, armed = 0;
	int reads;

	(void)state;
	/* Nothing published yet: nothing to arm. */
	sample(b, &t2, acc(2, 5, 0x90000, 8, MEM_LOAD), &peer, &todo);
	assert_int_equal(comm_arm_pick(b, NULL, &t2, 2, &out, &reads), COMM_WP_KEEP);
	/* Its own publications are not watched. */
	sample(b, &t2, acc(2, 8, 0xa0000, 8, MEM_STORE), &peer, &todo);
	assert_int_equal(comm_arm_pick(b, NULL, &t2, 2, &out, &reads), COMM_WP_KEEP);

	sample(b, &t1, acc(1, 10, LINE, 8, MEM_STORE), &peer, &todo);
	sample(b, &t2, acc(2, 12, 0x90000, 8, MEM_LOAD), &peer, &todo);
	assert_int_equal(comm_arm_pick(b, NULL, &t2, 2, &out, &reads), COMM_WP_ARM);
	assert_int_equal(out.line, LINE);
	comm_armed(&t2, &out, 12, 0);
	assert_int_equal(t2.wp_every, 1);
	/* A trap before the next sample is valid, and resets the backoff. */
	assert_int_equal(comm_trapped(&t2), 1);
	assert_int_equal(t2.t_prev, 10);
	assert_int_equal(t2.arm_backoff, 0);
	/* A trap after the next sample counts nothing. */
	comm_armed(&t2, &out, 12, 0);
	sample(b, &t2, acc(2, 13, 0x90000, 8, MEM_LOAD), &peer, &todo);
	assert_int_equal(comm_trapped(&t2), 0);

	/* Untrapped armings: intervals 1, 2, 4, 8, 16, 16 samples. */
	t2 = (struct comm_tstate){ .rng = 1 };
	for (uint64_t now = 100; now < 100 + 1 + 2 + 4 + 8 + 16 + 16; now++) {
		sample(b, &t1, acc(1, now, LINE, 8, MEM_STORE), &peer, &todo);
		sample(b, &t2, acc(2, now, 0x90000, 8, MEM_LOAD), &peer, &todo);
		if (comm_arm_pick(b, NULL, &t2, 2, &out, &reads) == COMM_WP_ARM) {
			comm_armed(&t2, &out, now, 0);
			armed++;
			assert_int_equal(t2.wp_every, armed <= 5 ? 1u << (armed - 1) : 16);
		}
	}
	assert_int_equal(armed, 6);
	free(b);
}

/* Loads go to the readers' board only, never displacing a store; half
 * the armings, by coin, watch a line another thread loaded, for stores,
 * and a trap there is not the watcher's own observation (t_prev stays). */
static void test_readers(void **state)
{
	struct bb *b = board(127), *rb = board(127);
	struct comm_tstate t1 = { 0 }, t2 = { .rng = 7 };
	struct comm_access st = acc(1, 10, LINE, 4, MEM_STORE), ld = acc(2, 20, LINE + 48, 8, MEM_LOAD);
	struct bb_pub out, peer;
	unsigned todo, on_reads = 0, on_stores = 0;
	int reads;

	(void)state;
	sample(b, &t1, st, &peer, &todo);
	comm_on_load(rb, &ld);
	assert_int_equal(bb_get(b, LINE, &out), 1);
	assert_int_equal(out.tid, 1); /* the load did not take the store's place */
	assert_int_equal(bb_get(rb, LINE, &out), 1);
	assert_int_equal(out.tid, 2);
	assert_int_equal(out.kind, MEM_LOAD);
	for (int i = 0; i < 200; i++) {
		struct comm_tstate w = { .rng = (uint64_t)i + 1, .prev_sample = 5 };

		if (comm_arm_pick(b, rb, &w, 3, &out, &reads) != COMM_WP_ARM)
			continue;
		if (reads) {
			assert_int_equal(out.tid, 2);
			on_reads++;
		} else {
			assert_int_equal(out.tid, 1);
			on_stores++;
		}
	}
	/* The line a reader keeps loading is watched before one it loaded once. */
	{
		struct bb *r2 = board(127);
		struct comm_access once = acc(2, 30, LINE + 5 * BB_LINE, 8, MEM_LOAD);
		struct comm_tstate w = { .prev_sample = 5 };

		comm_on_load(r2, &once);
		for (uint64_t k = 0; k < 3; k++) {
			struct comm_access hot = acc(4, 31 + k, LINE + 9 * BB_LINE, 8, MEM_LOAD);

			comm_on_load(r2, &hot);
		}
		assert_int_equal(bb_get(r2, LINE + 9 * BB_LINE, &out), 1);
		assert_int_equal(out.loads, 3);
		assert_int_equal(bb_pick_most(r2, 0, 3, w.prev_sample, &out), 1);
		assert_int_equal(out.line, LINE + 9 * BB_LINE);
		assert_int_equal(bb_pick(r2, 0, 3, w.prev_sample, &out), 1);
		assert_int_equal(out.line, LINE + 5 * BB_LINE); /* the first, not the most */
		free(r2);
	}
	/* A fair coin: 200 draws within 5 sigma (7) of 100. */
	assert_true(on_reads + on_stores == 200);
	assert_true(on_reads > 65 && on_reads < 135);
	/* The writer's trap on the reader's line leaves its t_prev alone. */
	t2.last_sample = 30;
	comm_armed(&t2, &out, 30, 1);
	t2.wp_pub.time = 20;
	assert_int_equal(comm_trapped(&t2), 1);
	assert_int_equal(t2.t_prev, 0);
	free(b);
	free(rb);
}

/* Arming scans a bounded run of slots from its start, wrapping round. */
static void test_pick_bound(void **state)
{
	struct bb *b = board(1000);
	struct bb_pub p = { .line = 500 * BB_LINE, .addr = 500 * BB_LINE, .time = 5, .tid = 1,
			    .size = 8 }, out;

	(void)state;
	assert_int_equal(bb_put(b, &p), 0);
	assert_int_equal(bb_pick(b, 0, 2, 0, &out), 0);  /* 500 slots away */
	assert_int_equal(bb_pick(b, 400, 2, 0, &out), 1);
	assert_int_equal(out.line, 500 * BB_LINE);
	assert_int_equal(bb_pick(b, 400, 1, 0, &out), 0); /* its own */
	assert_int_equal(bb_pick(b, 400, 2, 5, &out), 0); /* not after 5 */
	free(b);
	b = board(127);
	p.line = p.addr = 3 * BB_LINE;
	assert_int_equal(bb_put(b, &p), 0);
	assert_int_equal(bb_pick(b, 100, 2, 0, &out), 1); /* wraps round */
	free(b);
}

static void test_chunks(void **state)
{
	uint64_t rng = 7;

	(void)state;
	for (int round = 0; round < 1000; round++) {
		unsigned c[4], seen = 0;

		comm_chunks(&rng, 4, c);
		for (int i = 0; i < 4; i++) {
			assert_true(c[i] < 8);
			assert_false(seen & (1u << c[i]));
			seen |= 1u << c[i];
		}
	}
}

/* A writer in the middle of a slot (odd sequence) makes readers miss and
 * other writers give up, without waiting. */
static void test_seqlock(void **state)
{
	struct bb *b = board(127);
	struct bb_pub p = { .line = LINE, .addr = LINE, .time = 5, .tid = 1, .size = 8 }, e;
	struct bb_slot *s = &b->slot[(LINE / BB_LINE) % 127];

	(void)state;
	assert_int_equal(bb_put(b, &p), 0);
	assert_int_equal(bb_get(b, LINE, &e), 1);
	atomic_fetch_add(&s->seq, 1);
	assert_int_equal(bb_get(b, LINE, &e), 0);
	assert_int_equal(bb_put(b, &p), -EBUSY);
	atomic_fetch_add(&s->seq, 1);
	assert_int_equal(bb_get(b, LINE, &e), 1);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_ts_fs),
		cmocka_unit_test(test_tprev),
		cmocka_unit_test(test_publish_expiry),
		cmocka_unit_test(test_slot_collision),
		cmocka_unit_test(test_arm),
		cmocka_unit_test(test_readers),
		cmocka_unit_test(test_pick_bound),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_seqlock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
