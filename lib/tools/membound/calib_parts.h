/* SPDX-License-Identifier: GPL-2.0-only */
/* What the calibration's files share inside: kernels, helpers. */
#ifndef CDT_TOOLS_MEMBOUND_CALIB_PARTS_H
#define CDT_TOOLS_MEMBOUND_CALIB_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/tools/membound/calib.h"

#define CALIB_LINE 64
#define CALIB_CHASE_LINES (1u << 20) /* a chase visits at most this many lines */

typedef uint64_t (*calib_rd_fn)(const void *buf, size_t bytes, size_t passes);
typedef void (*calib_wr_fn)(void *buf, size_t bytes, size_t passes, uint64_t x);

struct calib_kern {
	const char *isa;
	calib_rd_fn rd; /* bytes: a multiple of 512, buf 64-byte aligned */
	calib_wr_fn wr;
};

void calib_kern_pick(struct calib_kern *k, int force_sse2);
void *calib_chase_build(void *buf, size_t bytes, uint64_t *seed); /* NULL: ENOMEM */
void *calib_chase(void *p, size_t n);
void *calib_chase_indep(void *p, size_t n);
void *calib_chase_chain(void *p, size_t n);
uint64_t calib_ops_alone(uint64_t x, size_t n);

/* xorshift64*: a reproducible sequence for the permutations and probes. */
static inline uint64_t calib_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

void calib_fmt_size(uint64_t b, char *buf, size_t len);
/* On a PMU host, the indicator events' maximal rates (calib_events.c);
 * otherwise c->events_why says why not. */
void calib_events_host(struct calib *c);

/* The topology's cache sizes, L1d, L2, L3 (0: unknown). */
void calib_topo_caches(uint64_t out[CALIB_CACHE_LEVELS]);

#endif
