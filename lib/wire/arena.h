/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shared-memory arena: a memfd the front end creates before fork and
 * every agent (in every process of the target) maps.  It holds the agent
 * configuration and one multi-producer ring of records.
 *
 * Producers reserve space with a CAS on `head`, so reservation is lock-free
 * and safe from signal handlers; a record becomes visible to the consumer
 * when its header carries REC_F_COMMITTED (release store).  The single
 * consumer (the front end's ingest, lib/core/ingest.c) reads from `tail`,
 * zeroes what it consumed and advances `tail`.  A record never straddles
 * the ring's end: a REC_PAD fills the rest.  When the ring is full the
 * record is dropped and counted; producers never wait.
 *
 * The arena is mapped into the program, which can write any of it.  So
 * both sides keep the ring's geometry in their own struct arena, taken
 * when they created or attached it, and never read it from the shared
 * header again; the consumer trusts nothing it reads from the ring.  The
 * program holds the memfd too: it is sealed against resizing, since a
 * shrunk one would fault under every mapping.
 */
#ifndef CDT_ARENA_H
#define CDT_ARENA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/wire/agentcfg.h"
#include "lib/wire/record.h"

#define ARENA_MAGIC 0x414e524154444355ull /* "UCDTARNA" */
#define ARENA_VERSION 3u

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

/* Every agent of a run, and the front end, must agree on this layout
 * (they are one build, and ARENA_VERSION says which): it fails to compile
 * when a field moves.  tail has a cache line of its own, away from the
 * producers' head. */
REC_SIZE_IS(arena_hdr, 1120);
REC_FIELD(arena_hdr, magic, 0);
REC_FIELD(arena_hdr, version, 8);
REC_FIELD(arena_hdr, hdr_size, 12);
REC_FIELD(arena_hdr, ring_size, 16);
REC_FIELD(arena_hdr, head, 24);
REC_FIELD(arena_hdr, tail, 64);
REC_FIELD(arena_hdr, dropped_records, 128);
REC_FIELD(arena_hdr, dropped_bytes, 136);
REC_FIELD(arena_hdr, agents, 144);
REC_FIELD(arena_hdr, cfg, 192);
_Static_assert(sizeof(struct arena_hdr) % REC_ALIGN == 0, "records in the ring stay aligned");

/* One side's view of the arena: the mapping and the geometry it set up. */
struct arena {
	struct arena_hdr *hdr;
	unsigned char *ring;
	uint64_t ring_size; /* private copy: the shared one may be scribbled */
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

#endif
