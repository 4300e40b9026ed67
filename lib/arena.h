/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shared-memory arena: a memfd the front end creates before fork and
 * every agent (in every process of the target) maps.  It holds the agent
 * configuration and one multi-producer ring of records.
 *
 * Producers reserve space with a CAS on `head`, so reservation is lock-free
 * and safe from signal handlers; a record becomes visible to the consumer
 * when its header carries REC_F_COMMITTED (release store).  The single
 * consumer (the front end) reads from `tail`, zeroes what it consumed and
 * advances `tail`.  A record never straddles the ring's end: a REC_PAD
 * fills the rest.  When the ring is full the record is dropped and counted;
 * producers never wait.
 */
#ifndef CDT_ARENA_H
#define CDT_ARENA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "agentcfg.h"
#include "record.h"

#define ARENA_MAGIC 0x414e524154444355ull /* "UCDTARNA" */
#define ARENA_VERSION 1u

struct arena_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t hdr_size;   /* offset of the ring */
	uint64_t ring_size;  /* bytes, power of two */
	_Atomic uint64_t head; /* bytes reserved, ever */
	char pad1[64 - 32];
	_Atomic uint64_t tail; /* bytes consumed, ever */
	char pad2[56];
	_Atomic uint64_t dropped_records;
	_Atomic uint64_t dropped_bytes;
	_Atomic uint32_t agents;  /* agent instances that attached */
	uint32_t pad0;
	char pad3[40];
	struct agent_cfg cfg;
};

struct arena {
	struct arena_hdr *hdr;
	unsigned char *ring;
	size_t map_size;
	int fd;
};

/* front end */
int arena_create(struct arena *a, size_t ring_size, const struct agent_cfg *cfg);
/* agent */
int arena_attach(struct arena *a, int fd);
void arena_destroy(struct arena *a);

/*
 * Reserve `size` bytes (multiple of 8, header included).  Returns the
 * record to fill, or NULL when the ring is full (the drop is counted).
 * Async-signal-safe.
 */
void *arena_reserve(struct arena *a, uint32_t size, uint16_t type);
/* Publish a reserved record.  Async-signal-safe. */
void arena_commit(struct arena *a, void *rec);
/* Reserve, copy, commit.  Returns 0 or -ENOSPC. */
int arena_write(struct arena *a, const void *rec, uint32_t size, uint16_t type);

/*
 * Consumer: call fn for every committed record in order, then release the
 * space.  Stops at the first uncommitted record unless `final` is set (all
 * producers are gone), in which case an unfinished record is skipped when
 * its size is known and the rest is abandoned otherwise; *lost_bytes says
 * how much.  fn returns 0 to go on, or a negative errno to stop.
 */
typedef int (*arena_fn)(const struct rec_hdr *rec, void *arg);
int arena_drain(struct arena *a, arena_fn fn, void *arg, int final,
		uint64_t *lost_bytes);

#endif
