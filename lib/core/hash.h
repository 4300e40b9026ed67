/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The front end's one hash table: an index from 64-bit hashes to
 * positions in the caller's own array.  Keys and values stay in that
 * typed array; a lookup walks the positions filed under a hash and the
 * caller compares the keys:
 *
 *	for (size_t c = 0, i; (i = hash_walk(&x->ix, hv, &c)) != HASH_NONE;)
 *		if (arr[i].key == key)
 *			return &arr[i];
 *
 * Open addressing with linear probing, grown at half load.  A slot is 8
 * bytes, a position and the high 32 bits of its hash: growing needs
 * nothing of the caller, and most mismatches are rejected without
 * touching the caller's array.  So positions are below 2^32 - 1 and a
 * table holds at most 2^31 of them.  hv must be a hash (hash_u64,
 * hash_mix, hash_bytes), since its high bits pick the slot.
 *
 * A zeroed struct hash is an empty table.  Several positions may be filed
 * under one hash or one key (a multimap); walks return them in no
 * particular order.  Nothing is removed but by hash_clear.
 */
#ifndef CDT_HASH_H
#define CDT_HASH_H

#include <stddef.h>
#include <stdint.h>

struct hash_slot {
	uint32_t pos; /* position + 1; 0: empty */
	uint32_t tag; /* the hash's high bits */
};

struct hash {
	struct hash_slot *slot;
	size_t cap, n; /* cap: 0 or a power of two */
};

#define HASH_NONE SIZE_MAX
#define HASH_PHI 0x9e3779b97f4a7c15ull /* 2^64 / the golden ratio */

void hash_free(struct hash *h); /* and leave it empty */
/* Empty the table, keeping its memory (positions renumbered, say). */
void hash_clear(struct hash *h);
/* File pos under hv.  0, -ENOMEM or -EOVERFLOW (pos or size beyond the
 * limits above); the table is unchanged on error. */
int hash_add(struct hash *h, uint64_t hv, size_t pos);
uint64_t hash_bytes(const void *p, size_t n); /* the same on every host */

/* Inline, as every lookup of a report goes through these. */

/* A tag's first slot: its top bits, so growing can place it again. */
static inline size_t hash_home(size_t cap, uint32_t tag)
{
	return (size_t)(((uint64_t)tag * cap) >> 32);
}

/* The next position filed under hv (or under a hash with the same high
 * bits: the caller compares keys), or HASH_NONE after the last; *cursor
 * is 0 to start.  An add ends every walk in progress. */
static inline size_t hash_walk(const struct hash *h, uint64_t hv, size_t *cursor)
{
	uint32_t tag = (uint32_t)(hv >> 32);
	size_t i;

	if (!h->cap)
		return HASH_NONE;
	/* The cursor is the slot to look at next, + 1; half the slots are
	 * empty, so the run ends. */
	for (i = *cursor ? *cursor - 1 : hash_home(h->cap, tag); h->slot[i].pos;
	     i = (i + 1) & (h->cap - 1)) {
		if (h->slot[i].tag == tag) {
			*cursor = ((i + 1) & (h->cap - 1)) + 1;
			return h->slot[i].pos - 1;
		}
	}
	*cursor = i + 1;
	return HASH_NONE;
}

/*
 * Fibonacci hashing of x folded once: the high bits, which the index uses,
 * depend on every bit of x, and keys that count up (pids, tids, addresses
 * a stride apart) land evenly apart, so a lookup mostly finds its key in
 * the first slot.  A full finalizer (murmur3's) spreads such keys at
 * random, and made the task lookups of a report up to twice as slow.
 */
static inline uint64_t hash_u64(uint64_t x)
{
	return (x ^ x >> 32) * HASH_PHI;
}

/* The hash of h and x, h a key or a hash: hash_mix(hash_mix(a, b), c). */
static inline uint64_t hash_mix(uint64_t h, uint64_t x)
{
	return hash_u64(h ^ x * HASH_PHI);
}

#endif
