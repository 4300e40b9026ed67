/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ComDetective's BulletinBoard and the decisions of its Algorithm 1, as
 * pure code: no system calls, no clock, so that unit tests can replay
 * sample sequences (tests/unit/agent_comm.c).  agent.c beside it feeds
 * it samples and traps and does the arming.
 *
 * The board is a table of cache lines shared by all threads of a process.
 * Each slot is a seqlock: a writer takes it by a CAS from an even to an
 * odd sequence and never waits, so a signal handler that interrupts a
 * write on the same thread, or races one on another, just gives up;
 * readers copy the entry and retry never, discarding a torn copy.
 */
#ifndef CDT_TOOLS_COMM_AGENT_BB_H
#define CDT_TOOLS_COMM_AGENT_BB_H

#include <stdatomic.h>
#include <stdint.h>

#include "lib/tools/comm/comm.h"

#define BB_LINE 64u /* cache-line size of x86-64 and most Arm */

/* One published store: ComDetective's <M, delta, T, ts>, plus where. */
struct bb_pub {
	uint64_t line;  /* address of the cache line (the key) */
	uint64_t addr;  /* first byte stored */
	uint64_t time;  /* when it was sampled, ns */
	uint64_t ip;    /* the storing instruction */
	uint32_t tid;   /* publishing thread */
	uint32_t cpu;   /* CPU the store ran on */
	uint8_t size;   /* bytes stored */
	uint8_t kind;   /* enum mem_kind: store or rmw (load: the readers' board) */
	uint16_t loads; /* readers' board: the thread's samples on the line while it held the slot */
	uint32_t period; /* the publisher's sampling period then (rec_comm.period) */
};

struct bb_slot {
	atomic_uint seq; /* odd while a writer fills the slot */
	struct bb_pub pub;
};

struct bb {
	uint32_t nslots;
	struct bb_slot slot[];
};

static inline uint64_t bb_line_of(uint64_t addr)
{
	return addr & ~(uint64_t)(BB_LINE - 1);
}

/* Bytes for a board of n slots. */
static inline uint64_t bb_bytes(uint32_t n)
{
	return sizeof(struct bb) + (uint64_t)n * sizeof(struct bb_slot);
}

void bb_init(struct bb *b, uint32_t nslots);
/* The entry for `line`: 1 with *out, 0 if its slot holds another line, is
 * empty, or was being written. */
int bb_get(const struct bb *b, uint64_t line, struct bb_pub *out);
/* Publish into p->line's slot; 0, or -EBUSY if a writer holds it. */
int bb_put(struct bb *b, const struct bb_pub *p);
/* An entry published after `after` by a thread other than `self`, scanning
 * at most BB_PICK_PROBES slots from slot `start` on: 1 with *out, 0 if none. */
#define BB_PICK_PROBES 128u
int bb_pick(const struct bb *b, uint32_t start, uint32_t self, uint64_t after,
	    struct bb_pub *out);
/* The same scan, but the entry with the most loads (the first of equals). */
int bb_pick_most(const struct bb *b, uint32_t start, uint32_t self, uint64_t after,
		 struct bb_pub *out);

/* One thread's state for the algorithm. */
struct comm_tstate {
	uint64_t t_prev;      /* Algorithm 1's t_prev: publish time of the last detection */
	uint64_t last_sample; /* time of this thread's latest sample */
	uint64_t prev_sample; /* and of the one before it */
	uint64_t wp_time;     /* when the watchpoints were armed; 0 = none armed */
	struct bb_pub wp_pub; /* the publication the watchpoints watch */
	uint32_t wp_every;    /* arming interval (samples) when they were armed */
	uint32_t arm_wait;    /* samples to let pass before arming again */
	uint32_t arm_backoff; /* log2 of the next arming interval */
	uint32_t wp_reads;    /* the watch is on a line another thread loaded from */
	uint32_t wp_period;   /* the thread's sampling period when it armed them */
	uint64_t rng;         /* xorshift state, for slots and chunks */
};

/* A memory access of the thread itself: a sample, or a trapping access. */
struct comm_access {
	uint64_t addr, time, ip;
	uint32_t tid, cpu;
	uint8_t size, kind;
	uint32_t period; /* the thread's sampling period (rec_comm.period) */
};

enum comm_outcome {
	COMM_QUIET = 0, /* nothing detected */
	COMM_TS = 1,    /* true sharing with *peer */
	COMM_FS = 2,    /* false sharing with *peer */
};

/* Bits of comm_on_sample's *todo. */
#define COMM_DO_ARM 0x1     /* try to arm watchpoints (comm_arm_pick) */

/*
 * Algorithm 1 on one sample of thread `ts`: detect communication against
 * the board and publish stores.  Returns the outcome (with *peer for
 * COMM_TS/COMM_FS) and sets *todo.  Shifts ts->last_sample into
 * ts->prev_sample.
 */
enum comm_outcome comm_on_sample(struct bb *b, struct comm_tstate *ts,
				 const struct comm_access *a, struct bb_pub *peer,
				 unsigned *todo);

enum comm_wp {
	COMM_WP_KEEP = 0, /* leave the registers as they are */
	COMM_WP_ARM = 1,  /* (re)arm on *out */
};

#define COMM_ARM_BACKOFF_MAX 4 /* arm at least every 16th sample */

/* A load of the thread, on the readers' board (see agent_bb.c). */
void comm_on_load(struct bb *rb, const struct comm_access *a);

/* TryArmWatchpoint's choice for thread `self` at a sample (after
 * comm_on_sample): a fresh store of the board b, or, one time in two, a
 * fresh load of the readers' board rb (*reads = 1: watch for stores).  On
 * COMM_WP_ARM the caller arms and then calls comm_armed(). */
enum comm_wp comm_arm_pick(const struct bb *b, const struct bb *rb, struct comm_tstate *ts,
			   uint32_t self, struct bb_pub *out, int *reads);
void comm_armed(struct comm_tstate *ts, const struct bb_pub *pub, uint64_t now, int reads);
/* A trap: 1 if the watchpoints were armed at the thread's latest sample
 * (still valid), 0 if they are old and the trap counts nothing.  Either
 * way the caller disarms. */
int comm_trapped(struct comm_tstate *ts);

/* Classify a trap: the thread's access [addr, addr+size) against what the
 * watched publication stored. */
enum comm_outcome comm_classify(uint64_t addr, unsigned size, const struct bb_pub *pub);

/* Pick `n` distinct 8-byte chunks (0..7) of a line, at random. */
void comm_chunks(uint64_t *rng, unsigned n, unsigned *chunk);

uint64_t comm_rand(uint64_t *rng);

#endif
