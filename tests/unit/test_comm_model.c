// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt comm's model (lib/tools/comm/model.c) on designed input:
 *   - a line's verdict and confidence follow its counts: no false-sharing
 *     event, or fewer than true-sharing ones, never make false sharing
 *     (a line where every thread touched the same 4 bytes, TS 25, FS 0,
 *     was "false sharing (low confidence)"); a line mostly of recycled
 *     memory is recycled; bytes apart with every event false sharing are
 *     false sharing, as sure as the fewest events of a thread allow;
 *   - records whose two accesses the allocator separated (a block freed
 *     and allocated again between them) are marked and counted as
 *     recycled, never as sharing; those on one live block are not;
 *   - a detection weighs the two threads' periods against the run's: a
 *     thread sampled at half the rate finds half the transfers, so each
 *     counts twice; a period not known (a 1.4 file) weighs 1, and one
 *     out of all reason (the arena is the program's) is bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/core/profile.h"
#include "lib/tools/comm/comm.h"
#include "lib/tools/comm/model.h"
#include "lib/tools/tool.h"
#include "tests/unit/fixture.h"

/* A line where thread i touched [off_i, off_i + 4) once each, n times. */
static void line_set(struct comm_line *l, unsigned nthr, const unsigned *off, int all_same,
		     uint64_t n)
{
	memset(l, 0, sizeof(*l));
	l->nthr = nthr;
	for (unsigned i = 0; i < nthr; i++) {
		uint64_t m = 0xfull << (all_same ? 0 : off[i]);

		l->thr[i] = (struct comm_line_thread){ .thread = i, .bytes = m, .wbytes = m,
						       .w = (double)n, .n = n };
	}
}

static void test_verdict(void **state)
{
	static const unsigned off[] = { 0, 8, 16, 24 };
	struct comm_line l;
	uint64_t least;

	(void)state;
	/* The line: 25 threads... (8 kept) each once on the same 4
	 * bytes; TS 25, FS 0. */
	line_set(&l, 8, off, 1, 1);
	l.w[CM_TS] = 25;
	assert_int_equal(comm_line_verdict(&l, &least), CV_SAME_DATA);
	/* the same bytes apart but still no FS event */
	line_set(&l, 4, off, 0, 1);
	l.w[CM_TS] = 25;
	assert_int_equal(comm_line_verdict(&l, &least), CV_SAME_DATA);
	/* apart, more TS than FS: not false sharing */
	l.w[CM_FS] = 20;
	assert_int_equal(comm_line_verdict(&l, &least), CV_SAME_DATA);
	/* apart, every event FS, each thread seen 9 times: false, high */
	line_set(&l, 4, off, 0, 9);
	l.w[CM_FS] = 40;
	assert_int_equal(comm_line_verdict(&l, &least), CV_FALSE);
	assert_int_equal(least, 9);
	assert_int_equal(comm_line_confidence(&l, least), CC_HIGH);
	/* once each: low */
	line_set(&l, 4, off, 0, 1);
	l.w[CM_FS] = 40;
	assert_int_equal(comm_line_verdict(&l, &least), CV_FALSE);
	assert_int_equal(comm_line_confidence(&l, least), CC_LOW);
	/* 9 each, but 40% of the sharing overlapped: the counts cap it */
	line_set(&l, 4, off, 0, 9);
	l.w[CM_FS] = 60;
	l.w[CM_TS] = 40;
	assert_int_equal(comm_line_verdict(&l, &least), CV_FALSE);
	assert_int_equal(comm_line_confidence(&l, least), CC_MEDIUM);
	/* mostly recycled memory */
	l.w[CM_RC] = 101;
	assert_int_equal(comm_line_verdict(&l, &least), CV_RECYCLED);
	/* nothing at all */
	memset(&l, 0, sizeof(l));
	assert_int_equal(comm_line_verdict(&l, &least), CV_NONE);
}

#define PID 300

static void add(struct profile *p, const void *r)
{
	assert_int_equal(profile_add(p, r), 0);
}

static void add_block(struct profile *p, uint64_t time, uint64_t addr, uint32_t tid, int is_free)
{
	struct rec_alloc a = { .h = { sizeof(a), REC_ALLOC, 0 }, .pid = PID, .tid = tid,
			       .time = time, .addr = addr, .size = 256, .kind = ALLOC_MALLOC };
	struct rec_free f = { .h = { sizeof(f), REC_FREE, 0 }, .pid = PID, .tid = tid,
			      .time = time, .addr = addr };

	if (is_free)
		add(p, &f);
	else
		add(p, &a);
}

static void add_comm(struct profile *p, uint32_t tid, uint64_t time, uint64_t addr,
		     uint32_t pub_tid, uint64_t pub_time, uint64_t pub_addr, uint32_t flags)
{
	struct rec_comm c = { .h = { sizeof(c), REC_COMM, 0 }, .pid = PID, .tid = tid,
			      .pub_tid = pub_tid, .flags = flags, .time = time,
			      .pub_time = pub_time, .addr = addr, .pub_addr = pub_addr,
			      .size = 8, .pub_size = 8, .kind = MEM_STORE, .pub_kind = MEM_STORE };

	add(p, &c);
}

/* A comm profile of one process with four threads, PID + 0..3. */
static void profile_four(struct profile *p)
{
	fixture_profile(p, "comm", PID, 4);
	assert_int_equal(profile_set_meta(p, "period", "500000"), 0);
}

static void test_recycled(void **state)
{
	const struct comm_model *m;
	struct profile p;

	(void)state;
	profile_four(&p);
	/* Thread 1's block [10, 20), thread 2's at the same address from 30;
	 * a block shared by threads 1 and 3 at 0x9000 all along. */
	add_block(&p, 10, 0x1000, PID + 1, 0);
	add_block(&p, 20, 0x1000, PID + 1, 1);
	add_block(&p, 30, 0x1000, PID + 2, 0);
	add_block(&p, 5, 0x9000, PID, 0);
	/* Thread 2 on its block sees thread 1's store to the old one, on the
	 * same bytes and on others (TS and FS by the bytes); the agent's word
	 * on the bit is not taken. */
	add_comm(&p, PID + 2, 35, 0x1008, PID + 1, 15, 0x1008, COMM_F_TRUE | COMM_F_RECYCLED);
	add_comm(&p, PID + 2, 36, 0x1010, PID + 1, 16, 0x1018, 0);
	/* Threads 1 and 3 on the one block: true sharing, never recycled. */
	add_comm(&p, PID + 3, 40, 0x9008, PID + 1, 12, 0x9008, COMM_F_TRUE | COMM_F_RECYCLED);
	assert_int_equal(comm_mark_recycled(&p), 0);
	assert_true(((struct rec_comm *)p.tool_recs[0])->flags & COMM_F_RECYCLED);
	assert_true(((struct rec_comm *)p.tool_recs[1])->flags & COMM_F_RECYCLED);
	assert_false(((struct rec_comm *)p.tool_recs[2])->flags & COMM_F_RECYCLED);
	m = comm_of(&p);
	assert_non_null(m);
	assert_true(m->total[CM_RC] == 2);
	assert_true(m->total[CM_TS] == 1);
	assert_true(m->total[CM_FS] == 0);
	assert_true(m->total[CM_ALL] == 3);
	assert_true(comm_cell(m, CL_THREAD, CM_RC, 1, 2) == 2);
	assert_true(comm_cell(m, CL_THREAD, CM_TS, 1, 2) == 0);
	for (size_t i = 0; i < m->nlines; i++) {
		const struct comm_line *l = &m->lines[i];
		uint64_t least;

		if (l->line == 0x1000) {
			assert_int_equal(comm_line_verdict(l, &least), CV_RECYCLED);
			assert_true(l->w[CM_TS] + l->w[CM_FS] == 0);
		} else {
			assert_int_equal(l->line, 0x9000);
			assert_int_equal(comm_line_verdict(l, &least), CV_SAME_DATA);
		}
	}
	assert_int_equal(m->nlines, 2);
	profile_free(&p);
}

/* One detection of thread `tid` from thread 0 at the given periods. */
static void add_periods(struct profile *p, uint32_t tid, uint64_t time, uint32_t period,
			uint32_t pub_period)
{
	struct rec_comm c = { .h = { sizeof(c), REC_COMM, 0 }, .pid = PID, .tid = PID + tid,
			      .pub_tid = PID, .time = time, .pub_time = time - 1,
			      .addr = 0x2008, .pub_addr = 0x2000, .size = 8, .pub_size = 8,
			      .kind = MEM_STORE, .pub_kind = MEM_STORE, .period = period,
			      .pub_period = pub_period };

	add(p, &c);
}

static void test_weights(void **state)
{
	const struct comm_model *m;
	struct profile p;

	(void)state;
	profile_four(&p);
	add_periods(&p, 1, 10, 500000, 500000); /* both at the run's period: 1 */
	add_periods(&p, 2, 11, 1000000, 500000); /* the observer at half the rate: 2 */
	add_periods(&p, 3, 12, 1000000, 1500000); /* both slower: 2 * 3 */
	add_periods(&p, 3, 13, 0, 0); /* not known: 1 */
	add_periods(&p, 2, 14, 1, 500000); /* 2e-6 of the run's: bounded to 1e-4 */
	m = comm_of(&p);
	assert_non_null(m);
	assert_float_equal(comm_cell(m, CL_THREAD, CM_ALL, 0, 1), 1, 1e-9);
	assert_float_equal(comm_cell(m, CL_THREAD, CM_ALL, 0, 2), 2 + 1e-4, 1e-9);
	assert_float_equal(comm_cell(m, CL_THREAD, CM_ALL, 0, 3), 7, 1e-9);
	assert_float_equal(m->total[CM_FS], 10 + 1e-4, 1e-9);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_recycled),
		cmocka_unit_test(test_weights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
