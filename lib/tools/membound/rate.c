// SPDX-License-Identifier: GPL-2.0-only
/*
 * Achieved bandwidth from pairs of samples (the soft estimate; cdt-
 * membound(1), "achieved bandwidth").
 *
 * Each sample of a thread's clock has a follow-up dt of CPU time later
 * (drawn from 0.15-0.45 ms: agent/pair.c).  In a stream, both fall in the
 * same data, and the address moved |d| bytes in dt: the speed of the
 * sampled stream.  The loop around the follow-up (agent.c) says how many
 * streams move at that speed, so the pair gives the thread's rate, in
 * bytes of its loop's operands a second: STREAM's count (a copy moves 16
 * bytes an element, the write-allocate read not counted), and the
 * calibration's (its write bandwidth counts the bytes stored).
 *
 * The lead stands for the CPU time since the lead before it (span), so a
 * thread moved about rate x span bytes in that time; summed over threads
 * and divided by the window's wall time, this is the window's achieved
 * bandwidth, the figure a program that times itself prints.  What the
 * threads draw while they run is the bytes over the time the program
 * ran, its busiest thread's CPU time in each interval: the two differ
 * when the threads wait for a CPU (a busy neighbour took a third of
 * their time here), and the verdict takes the second, as per-thread
 * counters would (they count while the thread runs).  The peak is that
 * of the threads with valid pairs in an interval, on average.
 *
 * Each pair is one of:
 *  - away: the lead found no memory access (or a push or a pop): time
 *    that moved no data to speak of;
 *  - valid: both in one object, or in two blocks of one allocation site
 *    (a grid's rows, made in order, lie in order), or at the same offset
 *    of two objects of one size (a[i] and b[i] of a copy), having moved
 *    at most a quarter of the object (of the site's live blocks);
 *  - else excluded (different objects, a wrap, a jump, or either on a
 *    stack, whose lines stay in L1: a streaming loop's spilled
 *    variables): its span is taken to move data as the valid and away
 *    spans do together.
 * A window's bandwidth is measured when it has MB_RATE_MIN_PAIRS valid
 * pairs, they hold half or more of the spans that are neither away nor
 * on a stack, and 80% of those that moved went one way: a stream through
 * data larger than its advance in dt.  A stream whose data is smaller (an L2 buffer read
 * at 100 GB/s wraps 40 times in dt) shows offsets in both directions,
 * and random accesses do too: then nothing is measured, and the verdict
 * rests on what else the estimate has.
 */
#include <math.h>

#include "lib/core/objmap.h"
#include "lib/tools/membound/model.h"

#define MB_RATE_MIN_OBJ (1u << 20) /* two objects of one size: both this big */
#define MB_RATE_MOVED 64           /* an advance under a line is no movement */
#define MB_RATE_ONE_WAY 0.8

int mb_rate_observe(const struct objmap *om, const struct rec_mb_pair *r, struct mb_tally *t)
{
	struct objmap_obj a, b;
	int64_t d;
	uint64_t size, ad;
	double rate;

	if (!r->span_ns || !r->dt_ns)
		return 0;
	t->pr_n++;
	t->pr_span += (double)r->span_ns;
	if (!r->lead_addr) {
		t->pr_span_away += (double)r->span_ns;
		return 0;
	}
	if (!r->addr || !om || objmap_find(om, r->pid, r->lead_addr, r->time, &a) || !a.id ||
	    objmap_find(om, r->pid, r->addr, r->time, &b) || !b.id)
		return 0;
	if (a.kind == OBJ_STACK || b.kind == OBJ_STACK) {
		t->pr_span_stack += (double)r->span_ns;
		return 0;
	}
	size = a.size;
	if (a.id == b.id) {
		d = (int64_t)(r->addr - r->lead_addr);
	} else if (a.size == b.size && a.size >= MB_RATE_MIN_OBJ) {
		/* Arrays indexed in step (a copy's), of one site or not. */
		d = (int64_t)(b.offset - a.offset);
	} else if (a.group == b.group && a.group != OBJMAP_NO_GROUP && a.kind == OBJ_HEAP) {
		/* Smaller blocks of one site (a grid's rows) made one after
		 * another lie in order: a sweep moves through their addresses. */
		uint64_t live = objmap_live(om, a.group, r->time);

		d = (int64_t)(r->addr - r->lead_addr);
		size = live && a.size > UINT64_MAX / live ? UINT64_MAX : a.size * live;
	} else {
		return 0;
	}
	/* The addresses are the program's to write (untrusted): no llabs. */
	ad = d < 0 ? -(uint64_t)d : (uint64_t)d;
	if (ad > size / 4)
		return 0;
	rate = (double)ad * (r->streams ? r->streams : 1) / (double)r->dt_ns;
	t->pr_valid++;
	t->pr_span_valid += (double)r->span_ns;
	t->pr_bytes += rate * (double)r->span_ns;
	if (r->streams)
		t->pr_wbytes += rate * (double)r->span_ns * r->wstreams / r->streams;
	if (d >= MB_RATE_MOVED)
		t->pr_fwd++;
	else if (d <= -MB_RATE_MOVED)
		t->pr_back++;
	return 1;
}

/* One thread's or several threads' peak at a level, read and write mixed
 * as the pairs' bytes were: the time each byte takes at its own rate. */
static double mb_rate_peak(const struct mb_calib_view *c, int level, uint32_t threads, double w)
{
	double rd, wr;

	if (level < MB_L1 || level >= MB_NLEVELS)
		return 0;
	if (threads <= 1 || c->rd_bwn[level] <= 0) {
		rd = c->rd_bw1[level];
		wr = c->wr_bw1[level];
	} else if (c->threads && threads >= c->threads) {
		rd = c->rd_bwn[level];
		wr = c->wr_bwn[level];
	} else {
		rd = fmin(threads * c->rd_bw1[level], c->rd_bwn[level]);
		wr = fmin(threads * c->wr_bw1[level], c->wr_bwn[level]);
	}
	if (rd <= 0)
		return 0;
	if (wr <= 0 || w <= 0)
		return rd;
	return 1 / ((1 - w) / rd + w / wr);
}

void mb_rate_finish(struct mb_tally *t, const struct mb_calib_view *c, int level)
{
	double moving = t->pr_span - t->pr_span_away - t->pr_span_stack, counted = t->pr_span_valid + t->pr_span_away;
	uint64_t ways = t->pr_fwd + t->pr_back;
	double bytes;

	t->bw = t->bw_run = t->bw_peak = -1;
	t->pr_threads = t->pr_thr_n ? (t->pr_thr_sum + t->pr_thr_n / 2) / t->pr_thr_n : 0;
	if (t->pr_valid < MB_RATE_MIN_PAIRS || t->wall_ns <= 0 || counted <= 0 ||
	    t->pr_span_valid < 0.5 * moving ||
	    (double)(t->pr_fwd > t->pr_back ? t->pr_fwd : t->pr_back) < MB_RATE_ONE_WAY * (double)ways)
		return;
	bytes = t->pr_bytes * t->pr_span / counted;
	t->bw = bytes / t->wall_ns * 1e9;
	t->bw_run = t->pr_run_ns > 0 ? bytes / t->pr_run_ns * 1e9 : t->bw;
	t->bw_peak = mb_rate_peak(c, level, t->pr_threads ? t->pr_threads : 1,
				  t->pr_bytes > 0 ? t->pr_wbytes / t->pr_bytes : 0);
	if (t->bw_peak <= 0)
		t->bw_peak = -1;
}
