// SPDX-License-Identifier: GPL-2.0-only
/*
 * The node of each page the program was seen to use: move_pages(2) in
 * query mode on the program's pid, from the front end while the program
 * runs, batched at each drain of the arena; never in a handler.
 *
 * A page is asked once, as soon as a sample or a fault names it: that is
 * where it lives while it is used (the kernel's NUMA balancing may move
 * it later; a page asked after it moved says where it went).  Pages
 * named in the program's last moments cannot be asked: its memory is
 * gone when cdt learns it ended.  The model then takes the node of the
 * CPU that first touched the page, and says how many it inferred so.
 */
#include <errno.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/core/array.h"
#include "lib/core/hash.h"
#include "lib/tools/numa/parts.h"

#define PAGES_BATCH 4096
#define PAGES_REASK 16384          /* known pages asked again per drain, at most */
#define PAGES_PASS_NS 1000000000ull /* a pass over them starts at most this often */
#define PAGES_NEW (-1000)           /* node of a page not yet answered */

struct page_key {
	uint32_t pid;
	int32_t node; /* the last answer (a node, -errno), or PAGES_NEW */
	uint64_t page;
};

static uint64_t pages_hash(uint32_t pid, uint64_t page)
{
	return hash_mix(hash_u64(pid), page);
}

void pages_free(struct pages *g)
{
	free(g->known);
	free(g->want);
	hash_free(&g->ix);
	memset(g, 0, sizeof(*g));
}

/* Ask for pid's page at addr unless it is known already. */
int pages_want(struct pages *g, uint32_t pid, uint64_t addr)
{
	uint64_t page = addr & ~4095ull, hv = pages_hash(pid, page);

	for (size_t c = 0, i; (i = hash_walk(&g->ix, hv, &c)) != HASH_NONE;)
		if (g->known[i].pid == pid && g->known[i].page == page)
			return 0;
	if (array_grow(&g->known, &g->kcap, g->nknown, sizeof(*g->known)) ||
	    array_grow(&g->want, &g->wcap, g->nwant, sizeof(*g->want)) ||
	    hash_add(&g->ix, hv, g->nknown))
		return -ENOMEM;
	g->known[g->nknown] = (struct page_key){ pid, PAGES_NEW, page };
	g->want[g->nwant++] = g->nknown++;
	return 0;
}

static const struct pages *pages_sorting; /* qsort has no context argument */

static int pages_cmp(const void *x, const void *y)
{
	const struct page_key *a = &pages_sorting->known[*(const size_t *)x];
	const struct page_key *b = &pages_sorting->known[*(const size_t *)y];

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->page < b->page ? -1 : a->page > b->page;
}

static uint64_t pages_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs of consecutive pages newly on one node, one record each. */
static int pages_emit(struct pages *g, struct profile *p, const size_t *ix,
		      const int *status, size_t n, uint64_t now)
{
	struct rec_numa_pages r = { .h = { sizeof(r), REC_NUMA_PAGES, 0 }, .time = now };
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct page_key *k = &g->known[ix[i]];

		if (k->node == status[i])
			continue; /* asked again, where it was */
		k->node = status[i];
		if (r.npages && status[i] == r.node && k->pid == r.pid &&
		    k->page == r.addr + r.npages * 4096) {
			r.npages++;
			continue;
		}
		if (r.npages)
			err = profile_add(p, &r.h);
		r.pid = k->pid;
		r.node = status[i];
		r.addr = k->page;
		r.npages = 1;
	}
	if (!err && r.npages)
		err = profile_add(p, &r.h);
	return err;
}

/* One process's pages (indices into known, sorted): ask in batches. */
static int pages_ask(struct pages *g, struct profile *p, const size_t *ix, size_t n)
{
	void *addr[PAGES_BATCH];
	int status[PAGES_BATCH], err = 0;
	int pid = (int)g->known[ix[0]].pid;

	for (size_t at = 0; at < n && !err; at += PAGES_BATCH) {
		size_t m = n - at < PAGES_BATCH ? n - at : PAGES_BATCH;

		for (size_t i = 0; i < m; i++) {
			addr[i] = (void *)(uintptr_t)g->known[ix[at + i]].page;
			status[i] = -ENOENT;
		}
		if (move_pages(pid, (unsigned long)m, addr, NULL, status, 0) < 0) {
			/* The process is gone (ESRCH) or cannot be asked (EPERM):
			 * its pages stay as last known. */
			g->failed += m;
			continue;
		}
		g->asked += m;
		err = pages_emit(g, p, ix + at, status, m, pages_now());
	}
	return err;
}

/* Known pages to ask again: the next slice of the current pass. */
static int pages_again(struct pages *g)
{
	uint64_t now = pages_now();
	size_t n = 0;

	if (g->cursor >= g->nknown) {
		if (now - g->pass_start < PAGES_PASS_NS)
			return 0;
		g->cursor = 0;
		g->pass_start = now;
	}
	for (; g->cursor < g->nknown && n < PAGES_REASK; g->cursor++, n++) {
		if (g->known[g->cursor].node == PAGES_NEW)
			continue; /* asked for the first time already */
		if (array_grow(&g->want, &g->wcap, g->nwant, sizeof(*g->want)))
			return -ENOMEM;
		g->want[g->nwant++] = g->cursor;
	}
	return 0;
}

int pages_poll(struct pages *g, struct profile *p, int final)
{
	size_t from = 0;
	int err = 0;

	for (; g->next_sample < p->nsamples && !err; g->next_sample++) {
		const struct rec_sample *s = &p->samples[g->next_sample];

		if (s->flags & SAMPLE_F_ADDR)
			err = pages_want(g, s->pid, s->addr);
	}
	if (err)
		return err;
	if (final) {
		for (size_t i = 0; i < g->nwant; i++)
			g->failed += g->known[g->want[i]].node == PAGES_NEW;
		g->nwant = 0; /* the program's memory is gone */
		return 0;
	}
	err = pages_again(g);
	if (err || !g->nwant)
		return err;
	pages_sorting = g;
	qsort(g->want, g->nwant, sizeof(*g->want), pages_cmp);
	for (size_t i = 1; i <= g->nwant && !err; i++)
		if (i == g->nwant || g->known[g->want[i]].pid != g->known[g->want[from]].pid) {
			err = pages_ask(g, p, g->want + from, i - from);
			from = i;
		}
	g->nwant = 0;
	return err;
}
