// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt numa` profiles in the TUI: the summary and findings, the thread x
 * memory node matrix as a heatmap (accesses, or each thread's share),
 * then table screens of the views.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/view_tui.h"
#include "lib/tools/numa/model.h"
#include "lib/tools/numa/parts.h"
#include "output/tui_heatmap.h"

struct nt_ctx {
	double *cell[2];   /* accesses, share %: threads x nodes */
	char **rlabel, **clabel;
	size_t rows, cols;
};

static void nt_free(void *arg)
{
	struct nt_ctx *c = arg;

	for (size_t i = 0; c->rlabel && i < c->rows; i++)
		free(c->rlabel[i]);
	for (size_t i = 0; c->clabel && i < c->cols; i++)
		free(c->clabel[i]);
	free(c->rlabel);
	free(c->clabel);
	free(c->cell[0]);
	free(c->cell[1]);
	free(c);
}

/* The matrix of the threads with accesses of a known node. */
static struct nt_ctx *nt_make(const struct profile *p, const struct numa_model *m)
{
	struct nt_ctx *c = calloc(1, sizeof(*c));
	size_t r = 0;
	char buf[32];

	if (!c)
		return NULL;
	c->cols = (size_t)m->nnodes;
	c->cell[0] = calloc(m->nthr * c->cols + 1, sizeof(double));
	c->cell[1] = calloc(m->nthr * c->cols + 1, sizeof(double));
	c->rlabel = calloc(m->nthr + 1, sizeof(char *));
	c->clabel = calloc(c->cols + 1, sizeof(char *));
	if (!c->cell[0] || !c->cell[1] || !c->rlabel || !c->clabel)
		goto fail;
	for (size_t n = 0; n < c->cols; n++) {
		snprintf(buf, sizeof(buf), "%zu", n);
		c->clabel[n] = strdup(buf);
		if (!c->clabel[n])
			goto fail;
	}
	for (size_t i = 0; i < m->nthr; i++) {
		const struct numa_thr *x = &m->thr[i];
		uint64_t all = x->local + x->remote;

		if (!all)
			continue;
		c->rlabel[r] = strdup(profile_thread_label(p, x->index, buf, sizeof(buf)));
		if (!c->rlabel[r])
			goto fail;
		for (size_t n = 0; n < c->cols; n++) {
			c->cell[0][r * c->cols + n] = (double)x->by_node[n];
			c->cell[1][r * c->cols + n] = 100.0 * (double)x->by_node[n] / (double)all;
		}
		c->rows = ++r;
	}
	return c;
fail:
	c->rows = r;
	nt_free(c);
	return NULL;
}

static struct tui_screen *nt_open(void *ctx, int lv, size_t r0, size_t r1, size_t c0,
				  size_t c1, char *msg, size_t len)
{
	(void)ctx;
	(void)lv;
	(void)r0;
	(void)r1;
	(void)c0;
	(void)c1;
	snprintf(msg, len, "the numa-objects screen lists the data behind the accesses");
	return NULL;
}

int numa_tui(const struct profile *p, const struct view *views, struct tui_screen **s,
	     size_t *n, size_t max)
{
	static const char *const summary[] = { "summary", "findings", NULL };
	static const char *const rest[] = { "numa-threads", "numa-objects", "numa-nodes",
					    "numa-timeline", "processes", NULL };
	const struct numa_model *m = numa_of(p);
	struct tui_hm_src src = { .unit = "sampled accesses", .nkinds = 2,
				  .kind_name = { "accesses", "share" },
				  .kind_title = { "Sampled accesses, thread x memory node",
						  "Share of each thread's accesses (%), thread x "
						  "memory node" },
				  .kind_keys = "as", .nlevels = 1, .nlabels = 1,
				  .label_name = { "thread" }, .open = nt_open, .ctx_free = nt_free };
	struct nt_ctx *c;

	if (!m)
		return -ENOMEM;
	if (max - *n < 2)
		return -ENOSPC;
	s[*n] = view_tui_table(p, views, "Summary", summary);
	if (!s[*n])
		return -ENOMEM;
	++*n;
	c = nt_make(p, m);
	if (!c)
		return -ENOMEM;
	src.total[0] = (double)(m->local + m->remote);
	src.total[1] = 100.0;
	src.level[0] = (struct tui_hm_level){ .name = "thread", .rows = c->rows, .cols = c->cols,
					      .cell = { c->cell[0], c->cell[1] },
					      .rlabel = { (const char *const *)c->rlabel },
					      .clabel = (const char *const *)c->clabel };
	src.ctx = c;
	s[*n] = tui_heatmap_new("Matrix", &src);
	if (!s[*n])
		return -ENOMEM;
	++*n;
	return view_tui_tables(p, views, rest, s, n, max);
}
