// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt fvar` profiles in the TUI: the functions table first; Enter on a
 * function opens its page (its numbers, its call sites, a histogram of
 * its instances and their timeline); then table screens of the views.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/view_tui.h"
#include "lib/tools/fvar/model.h"
#include "lib/tools/fvar/parts.h"
#include "output/textplot.h"
#include "output/tui_table.h"

#define FT_PAGE (64 * 1024)

struct ft_ctx {
	const struct profile *p;
	const struct fv_model *m;
	const struct view *functions;
};

static int ft_build(void *arg, size_t k, struct table *t)
{
	struct ft_ctx *c = arg;
	struct view_opts o = { .top = VIEW_TUI_TOP };

	(void)k;
	return c->functions->build(c->p, &o, t);
}

/* Labels of metric 0 in its unit. */
static void ft_metric0(double v, char *buf, size_t len, void *arg)
{
	fvar_value_text(arg, 0, v, buf, len);
}

static void ft_seconds(double v, char *buf, size_t len, void *arg)
{
	(void)arg;
	snprintf(buf, len, "%.3g s", v / 1e9);
}

/* The page of function f: its finding, sites, histogram and timeline. */
static char *ft_page(const struct ft_ctx *c, size_t f)
{
	const struct fv_model *m = c->m;
	char *buf = malloc(FT_PAGE), name[256];
	double *v, *tm;
	size_t n = 0, o = 0;

	if (!buf)
		return NULL;
	fvar_func_text(c->p, m, f, name, sizeof(name), buf, FT_PAGE);
	o = strlen(buf);
	v = fvar_instances(m, f, &tm, &n);
	if (!v) {
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		tm[i] = tm[i] >= (double)m->start ? tm[i] - (double)m->start : 0;
	if (n && o < FT_PAGE) {
		o += (size_t)snprintf(buf + o, FT_PAGE - o, "\nHistogram of %s, %zu instances kept:\n",
				      m->metric[0], n);
		if (o < FT_PAGE)
			o += textplot_hist(buf + o, FT_PAGE - o, v, n, 20, 50, ft_metric0, (void *)m);
	}
	if (n && o < FT_PAGE) {
		o += (size_t)snprintf(buf + o, FT_PAGE - o, "\nTimeline: %s of each instance by "
				      "time since the run began:\n", m->metric[0]);
		if (o < FT_PAGE)
			textplot_scatter(buf + o, FT_PAGE - o, tm, v, n, 12, 60, ft_metric0, ft_seconds,
					 (void *)m);
	}
	free(v);
	free(tm);
	return buf;
}

static struct tui_screen *ft_open(void *arg, size_t k, const struct table *t, size_t row)
{
	struct ft_ctx *c = arg;
	int col = table_col(t, "function");
	const char *want;
	struct tui_screen *s = NULL;

	(void)k;
	if (col < 0 || row >= t->nrows)
		return NULL;
	want = t->cells[row * (size_t)t->ncols + (size_t)col];
	for (size_t i = 0; i < c->m->nfn; i++) {
		char name[256];

		fvar_func_name(c->p, &c->m->fn[i], name, sizeof(name));
		if (!strcmp(name, want)) {
			char *page = ft_page(c, i);

			if (page)
				s = tui_text_new(want, page);
			free(page);
			break;
		}
	}
	return s;
}

int fvar_tui(const struct profile *p, const struct view *views, struct tui_screen **s,
	     size_t *n, size_t max)
{
	static const char *const summary[] = { "summary", "findings", NULL };
	static const char *const rest[] = { "contexts", "threads", "instances", "drops",
					    "processes", NULL };
	struct tui_table_src src = { .nsect = 1, .build = ft_build, .open = ft_open };
	struct ft_ctx *c;

	if (max - *n < 2)
		return -ENOSPC;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->p = p;
	c->m = fvar_of(p);
	c->functions = view_find(views, "functions");
	if (!c->m || !c->functions) {
		free(c);
		return -ENOMEM;
	}
	src.ctx = c;
	src.ctx_free = free;
	s[*n] = tui_table_new("Functions", &src);
	if (!s[*n])
		return -ENOMEM;
	++*n;
	s[*n] = view_tui_table(p, views, "Summary", summary);
	if (!s[*n])
		return -ENOMEM;
	++*n;
	return view_tui_tables(p, views, rest, s, n, max);
}
