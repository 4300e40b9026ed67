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

struct page_key {
	uint32_t pid;
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

/* Ask for pid's page at addr unless it was asked already. */
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
	g->known[g->nknown++] = (struct page_key){ pid, page };
	g->want[g->nwant++] = (struct page_key){ pid, page };
	return 0;
}

static int pages_cmp(const void *x, const void *y)
{
	const struct page_key *a = x, *b = y;

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

/* Runs of consecutive pages on one node, one record each. */
static int pages_emit(struct profile *p, uint32_t pid, const struct page_key *k,
		      const int *status, size_t n, uint64_t now)
{
	struct rec_numa_pages r = { .h = { sizeof(r), REC_NUMA_PAGES, 0 }, .pid = pid,
				    .time = now };
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		if (r.npages && status[i] == r.node && k[i].page == r.addr + r.npages * 4096) {
			r.npages++;
			continue;
		}
		if (r.npages)
			err = profile_add(p, &r.h);
		r.node = status[i];
		r.addr = k[i].page;
		r.npages = 1;
	}
	if (!err && r.npages)
		err = profile_add(p, &r.h);
	return err;
}

/* One process's pages, sorted: ask in batches. */
static int pages_ask(struct pages *g, struct profile *p, const struct page_key *k, size_t n)
{
	void *addr[PAGES_BATCH];
	int status[PAGES_BATCH], err = 0;

	for (size_t at = 0; at < n && !err; at += PAGES_BATCH) {
		size_t m = n - at < PAGES_BATCH ? n - at : PAGES_BATCH;

		for (size_t i = 0; i < m; i++) {
			addr[i] = (void *)(uintptr_t)k[at + i].page;
			status[i] = -ENOENT;
		}
		if (move_pages((int)k[0].pid, (unsigned long)m, addr, NULL, status, 0) < 0) {
			/* The process is gone (ESRCH) or cannot be asked (EPERM):
			 * its pages stay unknown. */
			g->failed += m;
			continue;
		}
		g->asked += m;
		err = pages_emit(p, k[0].pid, k + at, status, m, pages_now());
	}
	return err;
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
	if (err || !g->nwant)
		return err;
	if (final) {
		g->failed += g->nwant; /* the program's memory is gone */
		g->nwant = 0;
		return 0;
	}
	qsort(g->want, g->nwant, sizeof(*g->want), pages_cmp);
	for (size_t i = 1; i <= g->nwant && !err; i++)
		if (i == g->nwant || g->want[i].pid != g->want[from].pid) {
			err = pages_ask(g, p, g->want + from, i - from);
			from = i;
		}
	g->nwant = 0;
	return err;
}
