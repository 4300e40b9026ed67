// SPDX-License-Identifier: GPL-2.0-only
/*
 * The custom mutator of every cdt.data fuzz target (fuzz_datafile.c,
 * fuzz_profile.c), linked into their libFuzzer builds (tests/fuzz/fuzz.mk).
 * A byte flip in the zlib stream dies in its checksum, so the mutator
 * inflates the records, mutates them and deflates them again.  It mutates
 * either the bytes (libFuzzer's own mutations) or whole records: it
 * duplicates, drops or moves one, or copies a field of one record into
 * another at the same offset, which makes pids, tids, times and addresses
 * of different records agree, as in a real profile, so mutations reach
 * the models and views behind the reader.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/core/datafile.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

#define HDR 24u
#define RAW_MAX (256u * 1024)
#define MUT_RECS 4096 /* records a record mutation chooses from */

/* Make a REC_END, if the mutation left one, count what precedes it. */
static void end_fix(uint8_t *raw, size_t len)
{
	struct rec_hdr h;
	struct rec_end e;
	size_t off = 0, n = 0;

	while (len - off >= sizeof(h)) {
		memcpy(&h, raw + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > len - off)
			return;
		if (h.type == REC_END && h.size >= sizeof(e)) {
			memcpy(&e, raw + off, sizeof(e));
			e.records = n;
			e.bytes = off;
			memcpy(raw + off, &e, sizeof(e));
			return;
		}
		off += h.size;
		n++;
	}
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* The offsets of the well-framed records before REC_END (which stays last);
 * their number. */
static size_t rec_offsets(const uint8_t *raw, size_t len, size_t *off)
{
	struct rec_hdr h;
	size_t o = 0, n = 0;

	while (n < MUT_RECS && len - o >= sizeof(h)) {
		memcpy(&h, raw + o, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > len - o || h.type == REC_END)
			break;
		off[n++] = o;
		o += h.size;
	}
	return n;
}

static uint32_t rec_size(const uint8_t *raw, size_t off)
{
	struct rec_hdr h;

	memcpy(&h, raw + off, sizeof(h));
	return h.size;
}

/* One record-level mutation of raw[0, len); the new length. */
static size_t rec_mutate(uint8_t *raw, size_t len, uint32_t *s)
{
	static size_t off[MUT_RECS];
	size_t n = rec_offsets(raw, len, off), a, b, sa, sb;
	uint8_t tmp[8];

	if (n < 2)
		return len;
	a = off[rnd(s) % n];
	b = off[rnd(s) % n];
	sa = rec_size(raw, a);
	sb = rec_size(raw, b);
	switch (rnd(s) % 4) {
	case 0: /* duplicate record a before record b */
		if (len + sa > RAW_MAX)
			break;
		memmove(raw + b + sa, raw + b, len - b);
		memmove(raw + b, raw + (a >= b ? a + sa : a), sa);
		return len + sa;
	case 1: /* drop record a */
		memmove(raw + a, raw + a + sa, len - a - sa);
		return len - sa;
	case 2: { /* move record a before record b */
		uint8_t *copy = malloc(sa);

		if (!copy)
			break;
		memcpy(copy, raw + a, sa);
		memmove(raw + a, raw + a + sa, len - a - sa);
		if (b > a)
			b -= sa;
		memmove(raw + b + sa, raw + b, len - sa - b);
		memcpy(raw + b, copy, sa);
		free(copy);
		return len;
	}
	default: { /* a field of a into b at the same offset, past the header */
		size_t lim = (sa < sb ? sa : sb), k = rnd(s) & 4 ? 8 : 4, at;

		if (lim < sizeof(struct rec_hdr) + k)
			break;
		at = sizeof(struct rec_hdr) +
		     (rnd(s) % ((lim - sizeof(struct rec_hdr)) / 4)) * 4;
		if (at + k > lim)
			at = lim - k;
		memcpy(tmp, raw + a + at, k);
		memcpy(raw + b + at, tmp, k);
		return len;
	}
	}
	return len;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	uint32_t s = seed | 1;
	uint8_t *raw;
	z_stream zs;
	uLongf clen;
	size_t rlen, out = 0;

	if (seed % 4 == 0 || size < HDR || max_size <= HDR ||
	    memcmp(data, DF_MAGIC, 8))
		return LLVMFuzzerMutate(data, size, max_size);
	raw = malloc(RAW_MAX);
	if (!raw)
		return LLVMFuzzerMutate(data, size, max_size);

	/* whatever inflates before an error or the end of input */
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) == Z_OK) {
		zs.next_in = data + HDR;
		zs.avail_in = (uInt)(size - HDR);
		zs.next_out = raw;
		zs.avail_out = RAW_MAX;
		inflate(&zs, Z_FINISH);
		rlen = RAW_MAX - zs.avail_out;
		inflateEnd(&zs);
		if (seed & 32) {
			/* records keep their framing: the end record can count them */
			for (unsigned i = 1 + rnd(&s) % 3; i; i--)
				rlen = rec_mutate(raw, rlen, &s);
			end_fix(raw, rlen);
		} else {
			rlen = LLVMFuzzerMutate(raw, rlen, RAW_MAX);
			if (seed & 8)
				end_fix(raw, rlen);
		}
		clen = max_size - HDR;
		/* stored blocks half of the time keep record bytes visible */
		if (compress2(data + HDR, &clen, raw, rlen, (seed & 16) ? 0 : 6) == Z_OK)
			out = HDR + clen;
	}
	free(raw);
	return out ? out : LLVMFuzzerMutate(data, size, max_size);
}
