/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `cdt numa`'s agent side and front end share: its parameters and
 * its record types (block 2 of the tool records, lib/wire/record.h).
 *
 * Samples are the core's REC_SAMPLE, from either source.  What the front
 * end sees of the program from outside (page faults and migrations from
 * perf events on its pid, the nodes of its pages from move_pages) comes
 * as records of this block too, written by the front end, so a cdt.data
 * file holds the whole run and a report needs nothing live.
 */
#ifndef CDT_TOOLS_NUMA_H
#define CDT_TOOLS_NUMA_H

#include <stddef.h>
#include <stdint.h>

#include "lib/wire/agentcfg.h"
#include "lib/wire/record.h"

#define NUMA_BIND_MAX 120 /* CPUs --bind hands out in turn (params) */
#define NUMA_MAX_EVENTS 4 /* per-thread counters (pmu) */

/* numa_params.bind */
enum numa_bind {
	NUMA_BIND_NONE = 0,
	NUMA_BIND_COMPACT = 1, /* fill a node's CPUs before the next node's */
	NUMA_BIND_SCATTER = 2, /* one node after another, round robin */
};

struct numa_params {
	uint32_t bind;  /* enum numa_bind */
	uint32_t nbind; /* CPUs in bind_cpu, in the order threads get them */
	uint16_t bind_cpu[NUMA_BIND_MAX];
};
AGENT_PARAMS_CHECK(struct numa_params);

#define REC_NUMA_BLOCK 2
enum numa_rec_type {
	REC_NUMA_FAULT = REC_TOOL_TYPE(REC_NUMA_BLOCK, 0),   /* page faults (front end) */
	REC_NUMA_MIGRATE = REC_TOOL_TYPE(REC_NUMA_BLOCK, 1), /* a thread changed CPU (front end) */
	REC_NUMA_PAGES = REC_TOOL_TYPE(REC_NUMA_BLOCK, 2),   /* pages' node (front end) */
	REC_NUMA_COUNTS = REC_TOOL_TYPE(REC_NUMA_BLOCK, 3),  /* a thread's counters (agent) */
	REC_NUMA_LOST = REC_TOOL_TYPE(REC_NUMA_BLOCK, 4),    /* what the kernel dropped */
};

/*
 * npages consecutive 4 KiB pages from addr, faulted in that order by one
 * thread at one instruction on one CPU: the first of them at `time` (a
 * thread filling an array makes one record, not one per page).  The
 * first fault of a page is its first touch; with the kernel's default
 * policy the page is placed on the node of `cpu` then.
 */
struct rec_numa_fault {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time; /* CLOCK_MONOTONIC ns, as the agent's */
	uint64_t addr; /* the first page's, page aligned */
	uint64_t ip;
	uint32_t cpu;
	uint32_t npages;
};

struct rec_numa_migrate {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu; /* the CPU it runs on from then */
	uint32_t pad;
};

/* npages 4 KiB pages from addr were on `node` when asked at `time`, or
 * could not be asked (node is then -errno: -ENOENT not present, -EFAULT
 * unmapped, -ESRCH the process had ended). */
struct rec_numa_pages {
	struct rec_hdr h;
	uint32_t pid;
	int32_t node;
	uint64_t time;
	uint64_t addr;
	uint64_t npages;
};

/* A thread's counters (numa_events(): local DRAM, remote DRAM, remote
 * cache), summed since it started: at every -I interval and at its end. */
struct rec_numa_counts {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t enabled, running; /* ns; running < enabled: multiplexed, scaled */
	uint32_t n, pad;
	uint64_t v[NUMA_MAX_EVENTS];
};

/* numa_lost.what */
enum numa_lost_what {
	NUMA_LOST_EVENTS = 1, /* fault and migration samples the ring dropped */
};

struct rec_numa_lost {
	struct rec_hdr h;
	uint32_t what; /* enum numa_lost_what */
	uint32_t pad;
	uint64_t count;
};

REC_SIZE_IS(rec_numa_fault, 48);
REC_FIELD(rec_numa_fault, time, 16);
REC_FIELD(rec_numa_fault, addr, 24);
REC_FIELD(rec_numa_fault, ip, 32);
REC_FIELD(rec_numa_fault, cpu, 40);
REC_FIELD(rec_numa_fault, npages, 44);
REC_SIZE_IS(rec_numa_migrate, 32);
REC_FIELD(rec_numa_migrate, cpu, 24);
REC_SIZE_IS(rec_numa_pages, 40);
REC_FIELD(rec_numa_pages, node, 12);
REC_FIELD(rec_numa_pages, addr, 24);
REC_FIELD(rec_numa_pages, npages, 32);
REC_SIZE_IS(rec_numa_counts, 80);
REC_FIELD(rec_numa_counts, enabled, 24);
REC_FIELD(rec_numa_counts, n, 40);
REC_FIELD(rec_numa_counts, v, 48);
REC_SIZE_IS(rec_numa_lost, 24);
REC_FIELD(rec_numa_lost, count, 16);

#endif
