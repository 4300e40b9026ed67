/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `cdt comm`'s agent side and front end share: its parameters and
 * its record types (block 0 of the tool records, lib/wire/record.h).
 */
#ifndef CDT_TOOLS_COMM_H
#define CDT_TOOLS_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "lib/wire/agentcfg.h"
#include "lib/wire/record.h"

#define BB_DEFAULT_SLOTS 127u /* ComDetective's default, a prime */
#define BB_MAX_SLOTS 65521u   /* largest prime below 64 Ki */
#define COMM_DEFAULT_WP 4

struct comm_params {
	uint32_t bb_slots; /* BulletinBoard slots, 1..BB_MAX_SLOTS */
	uint32_t wp;       /* debug registers per thread, 0..4 */
};
AGENT_PARAMS_CHECK(struct comm_params);

#define REC_COMM_BLOCK 0
enum comm_rec_type {
	REC_COMM = REC_TOOL_TYPE(REC_COMM_BLOCK, 0), /* one detected communication */
};

/* rec_comm.flags */
#define COMM_F_TRUE  0x1 /* the byte ranges overlap: true sharing (else false) */
#define COMM_F_TRAP  0x2 /* found by a watchpoint trap (else on a sample) */
#define COMM_F_EXACT 0x4 /* trap: the trapping access was decoded; else the
			  * watched 8 bytes stand for it */
/* Set by the front end after the run (comm_mark_recycled), never taken
 * from the agent: the observer touched memory the allocator had handed
 * on from the publisher's block to another (objmap_recycled), so the two
 * share no data.  A reader older than it counts such a record as TS/FS. */
#define COMM_F_RECYCLED 0x8
#define COMM_F_WRITER 0x10 /* trap in the publisher: it stored into the line the
			    * observer had loaded from (whose next load misses);
			    * else the trap or sample was the observer's */

/* Thread tid (the observer) accessed the line of what pub_tid (the
 * publisher) had stored. */
struct rec_comm {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint32_t pub_tid, flags;   /* COMM_F_* */
	uint32_t cpu, pub_cpu;
	uint64_t time, pub_time;
	uint64_t addr, pub_addr;   /* observer's and publisher's first bytes */
	uint64_t ip, pub_ip;
	uint8_t size, pub_size;    /* bytes accessed */
	uint8_t kind, pub_kind;    /* enum mem_kind */
	uint32_t scale;            /* trap: arming interval in samples it stands for */
	/* Since 1.5: the sampling period each thread had when its access was
	 * sampled or its watch armed (soft: ns of CPU time, pmu: events;
	 * UINT32_MAX if longer), for the weights (model.c); 0: not known. */
	uint32_t period, pub_period;
};
/* What 1.4 wrote: everything before period. */
#define COMM_REC_MIN 88

REC_SIZE_IS(rec_comm, 96);
REC_FIELD(rec_comm, pid, 8);
REC_FIELD(rec_comm, tid, 12);
REC_FIELD(rec_comm, pub_tid, 16);
REC_FIELD(rec_comm, flags, 20);
REC_FIELD(rec_comm, cpu, 24);
REC_FIELD(rec_comm, pub_cpu, 28);
REC_FIELD(rec_comm, time, 32);
REC_FIELD(rec_comm, pub_time, 40);
REC_FIELD(rec_comm, addr, 48);
REC_FIELD(rec_comm, pub_addr, 56);
REC_FIELD(rec_comm, ip, 64);
REC_FIELD(rec_comm, pub_ip, 72);
REC_FIELD(rec_comm, size, 80);
REC_FIELD(rec_comm, pub_size, 81);
REC_FIELD(rec_comm, kind, 82);
REC_FIELD(rec_comm, pub_kind, 83);
REC_FIELD(rec_comm, scale, 84);
REC_FIELD(rec_comm, period, 88);
REC_FIELD(rec_comm, pub_period, 92);

#endif
