// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/hash.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HASH_MIN_CAP 64
#define HASH_MAX_CAP ((size_t)1 << 32) /* one slot per tag value */

void hash_free(struct hash *h)
{
	free(h->slot);
	memset(h, 0, sizeof(*h));
}

void hash_clear(struct hash *h)
{
	if (h->cap)
		memset(h->slot, 0, h->cap * sizeof(*h->slot));
	h->n = 0;
}

static void hash_put(struct hash_slot *slot, size_t cap, struct hash_slot s)
{
	size_t i = hash_home(cap, s.tag);

	while (slot[i].pos)
		i = (i + 1) & (cap - 1);
	slot[i] = s;
}

static int hash_grow(struct hash *h)
{
	size_t cap = h->cap ? h->cap * 2 : HASH_MIN_CAP;
	struct hash_slot *slot;

	if (cap > HASH_MAX_CAP)
		return -EOVERFLOW;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++)
		if (h->slot[i].pos)
			hash_put(slot, cap, h->slot[i]);
	free(h->slot);
	h->slot = slot;
	h->cap = cap;
	return 0;
}

int hash_add(struct hash *h, uint64_t hv, size_t pos)
{
	if (pos >= UINT32_MAX)
		return -EOVERFLOW;
	if ((h->n + 1) * 2 > h->cap) {
		int err = hash_grow(h);

		if (err)
			return err;
	}
	hash_put(h->slot, h->cap, (struct hash_slot){ (uint32_t)pos + 1, (uint32_t)(hv >> 32) });
	h->n++;
	return 0;
}

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = n, w;

	/* A multiply per word, as names and paths are hashed on every lookup
	 * of them; little-endian words, so a hash is the same on every host. */
	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ le64toh(w)) * HASH_PHI;
		h ^= h >> 29;
	}
	if (n) {
		w = 0;
		memcpy(&w, b, n);
		h = (h ^ le64toh(w)) * HASH_PHI;
	}
	return hash_u64(h);
}
