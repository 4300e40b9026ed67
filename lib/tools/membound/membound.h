/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `cdt membound`'s agent side, its calibration and its front end
 * share: the levels of the memory hierarchy, the timed probe load, the
 * parameters and the record types (block 3 of the tool records).
 */
#ifndef CDT_TOOLS_MEMBOUND_H
#define CDT_TOOLS_MEMBOUND_H

#include <stddef.h>
#include <stdint.h>

#include "lib/wire/agentcfg.h"
#include "lib/wire/record.h"

/* The levels, nearest first.  MB_RDRAM: memory of another NUMA node. */
enum mb_level {
	MB_L1 = 0,
	MB_L2,
	MB_L3,
	MB_DRAM,
	MB_RDRAM,
	MB_NLEVELS
};

/*
 * One load of the line at p, timed with the TSC: the fences keep the load
 * between the two reads (the first rdtscp may not pass earlier loads, the
 * lfence keeps the load from starting before it; the second rdtscp waits
 * for the load).  In TSC ticks, including the reads' own cost (the
 * floor, measured the same way on a line just loaded).  The agent probes
 * the next access of a sample with it, and the calibration measures what
 * it gives for a line of each level, so both read the same instrument.
 *
 * First a load of the other half of p's page, untimed: the page's
 * translation is then in the TLB, so the time is the line's alone.  In a
 * signal handler it would not be (a kernel entry with page-table
 * isolation empties the TLB), and every line would look 20-40 ns
 * further away than it is.  2 KiB away, no prefetcher brings p's line
 * with it.  The caller makes sure p is readable.
 */
static inline uint64_t mb_probe(const volatile void *p)
{
	uint32_t lo0, hi0, lo1, hi1, aux;

	(void)*(const volatile char *)((uintptr_t)p ^ 0x800);
	__asm__ volatile("lfence\n\trdtscp\n\tlfence" : "=a"(lo0), "=d"(hi0), "=c"(aux) :: "memory");
	(void)*(const volatile char *)p;
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo1), "=d"(hi1), "=c"(aux) :: "memory");
	return (((uint64_t)hi1 << 32) | lo1) - (((uint64_t)hi0 << 32) | lo0);
}

/* The probe's floor: the least of n probes of a line in L1 (the first
 * one loads it). */
static inline uint64_t mb_probe_floor(const volatile void *p, int n)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < n; i++) {
		uint64_t t = mb_probe(p);
		if (t < best)
			best = t;
	}
	return best;
}

/* membound_params.flags */
#define MB_P_PROBE 0x1 /* time a load of each sample's line (the soft estimate) */

struct membound_params {
	uint32_t flags;
	uint32_t pad;
};
AGENT_PARAMS_CHECK(struct membound_params);

/*
 * A soft sample of membound is the core's REC_SAMPLE with its weight set:
 * 1 + the probe's TSC ticks (the thread's floor, REC_MB_FLOOR, not taken
 * off), so 0 still means "not probed" (a store, or the program handles
 * SIGSEGV or SIGBUS: see agent.c).
 */
#define MB_WEIGHT_NONE 0
/* Set in the weight of a load that chases a pointer (agent.c). */
#define MB_WEIGHT_CHASE (1ull << 62)

#define MEMBOUND_MAX_COUNTERS AGENT_MAX_COUNTERS

#define REC_MB_BLOCK 3
enum membound_rec_type {
	REC_MB_COUNTS = REC_TOOL_TYPE(REC_MB_BLOCK, 0), /* a thread's counters (agent) */
	REC_MB_FLOOR = REC_TOOL_TYPE(REC_MB_BLOCK, 1),  /* a thread's probe floor (agent) */
	REC_MB_PAIR = REC_TOOL_TYPE(REC_MB_BLOCK, 2),   /* a sample and its follow-up (agent) */
};

/* A thread's counters (the membound_events in the meta), summed since it
 * started: every -I interval and at its end.  Each with its group's
 * times (ns): running < enabled, the kernel multiplexed the groups. */
struct rec_mb_counts {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t n, pad;
	uint64_t v[MEMBOUND_MAX_COUNTERS];
	uint64_t enabled[MEMBOUND_MAX_COUNTERS];
	uint64_t running[MEMBOUND_MAX_COUNTERS];
};

/* The probe's floor in a thread: TSC ticks of a load of an L1 line. */
struct rec_mb_floor {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t ticks;
};

/*
 * A sample of the thread's clock (the lead) and its follow-up, a few
 * hundred microseconds of CPU time later (AGENT_TOOL_PAIRS): how far the
 * thread's accesses moved in dt_ns.  An address is 0 where its sample
 * found none (time away from memory, or a stack operand).  streams: the
 * follow-up's loop's memory operands in distinct streams, a stream read
 * and written counted twice (0: no loop found); wstreams: those written.
 */
struct rec_mb_pair {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;      /* the follow-up's, as its REC_SAMPLE's */
	uint64_t lead_addr, addr;
	uint64_t dt_ns;     /* CPU time from the lead to the follow-up */
	uint64_t span_ns;   /* CPU time since the lead before: what the lead
			     * stands for; 0 unknown (the first) */
	uint16_t streams, wstreams;
	uint32_t pad;
};

REC_SIZE_IS(rec_mb_counts, 224);
REC_FIELD(rec_mb_counts, n, 24);
REC_FIELD(rec_mb_counts, v, 32);
REC_FIELD(rec_mb_counts, enabled, 96);
REC_FIELD(rec_mb_counts, running, 160);
REC_SIZE_IS(rec_mb_floor, 32);
REC_FIELD(rec_mb_floor, ticks, 24);
REC_SIZE_IS(rec_mb_pair, 64);
REC_FIELD(rec_mb_pair, dt_ns, 40);
REC_FIELD(rec_mb_pair, streams, 56);

#endif
