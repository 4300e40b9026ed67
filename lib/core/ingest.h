/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ingest: the trust boundary where records enter the front end.  The
 * shared arena is mapped into the program under test, which can write any
 * of it, buggy or hostile.  This is the only code that reads it:
 *
 *  - the ring's geometry is the front end's own (struct arena), never the
 *    shared header's; head is read and bounded, tail is kept here and
 *    only written back;
 *  - each record is copied into private memory once, with the size that
 *    was checked, and everything downstream sees only the copy;
 *  - the copy's type must be one the agent writes (REC_T_AGENT, core or
 *    the tool's), its size at least its type's minimum, and its fields
 *    pass the type's checks (strings end inside, counts fit, enums known).
 *
 * A record that fails is counted by reason and skipped; one whose size
 * cannot frame it, or a head that cannot be true, loses the rest of what
 * the ring holds then (counted as unframed), and collection goes on after
 * it.  Nothing here trusts the arena to end, to be consistent, or to stay
 * the same between two reads.
 */
#ifndef CDT_CORE_INGEST_H
#define CDT_CORE_INGEST_H

#include <stdint.h>

#include "lib/core/profile.h"
#include "lib/wire/arena.h"

/* An unfinished record that stays at the ring's tail this long is taken
 * as abandoned: a writer takes microseconds between reserve and commit. */
#define INGEST_STUCK_NS 2000000000ull

struct ingest {
	const struct arena *a;       /* the front end's mapping and geometry */
	const struct prof_ops *tool; /* whose REC_T_AGENT types may come too */
	uint64_t tail;               /* bytes consumed, ever */
	unsigned char *buf;          /* the private copy of a record */
	size_t bufcap;
	uint64_t stuck_tail, stuck_since; /* an unfinished record at tail, since */
	uint64_t rejected[REJ_N];    /* by enum rec_reject */
	uint64_t skipped_bytes;      /* of the rejected ones, where their size was known */
	uint64_t unfinished_bytes;   /* left unfinished by writers that died */
	char why[REJ_N][160];        /* the first reason of each kind */
};

void ingest_init(struct ingest *in, const struct arena *a, const struct prof_ops *tool);
void ingest_free(struct ingest *in);

/*
 * Take every finished record from the ring in order, check it, and hand
 * its private copy to fn; 0 goes on, a negative errno stops (and is
 * returned).  now: CLOCK_MONOTONIC ns, for abandoned records.  final: no
 * writer is left, so an unfinished record will stay so.
 */
int ingest_drain(struct ingest *in, int final, uint64_t now,
		 int (*fn)(const struct rec_hdr *r, void *arg), void *arg);

/*
 * What the arena's header counts: records producers dropped on a full
 * ring, and agents that attached.  The program can write these too, so
 * they are bounded by what a run of wall_ns on ncpus CPUs could have
 * done: a dropped record is a failed reservation, which takes a CPU at
 * least INGEST_DROP_MIN_NS, and is 8 bytes to REC_MAX_SIZE long.  Past
 * that, forged is set and both counts are 0: the program overwrote them,
 * and they are unknown.  agents is never shown, only tested for 0.
 */
#define INGEST_DROP_MIN_NS 10ull
struct ingest_counts {
	uint64_t dropped, dropped_bytes;
	uint32_t agents;
	int forged;
};
void ingest_counters(const struct ingest *in, uint64_t wall_ns, unsigned ncpus,
		     struct ingest_counts *c);

/*
 * The agent statistics a thread's records carried, which the program can
 * write too, against what one thread of a run of wall_ns can do: it
 * takes no signal (sample, step, trap) and no context switch in less than
 * INGEST_EVENT_MIN_NS (a signal's delivery and return alone take longer),
 * spends no more than wall_ns in its handlers or on a CPU, and drops no
 * record faster than INGEST_DROP_MIN_NS.  1 if t's were past that: they
 * are zeroed (unknown) and t is flagged THREAD_F_FORGED.
 */
#define INGEST_EVENT_MIN_NS 250ull
int ingest_task_bound(struct rec_task *t, uint64_t wall_ns);

/* Records refused, all reasons. */
uint64_t ingest_rejected(const struct ingest *in);

#endif
