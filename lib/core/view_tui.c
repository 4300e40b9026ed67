// SPDX-License-Identifier: GPL-2.0-only
/* A profile in the TUI (see view_tui.h). */
#include "lib/core/view_tui.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/tui.h"
#include "output/tui_table.h"

#define VT_MAX_SECT 4

struct vt_ctx {
	const struct profile *p;
	const struct view *v[VT_MAX_SECT];
};

static int vt_build(void *arg, size_t k, struct table *t)
{
	const struct vt_ctx *c = arg;
	/* The TUI is for exploring: no share threshold, many rows. */
	struct view_opts vo = { .top = VIEW_TUI_TOP, .sort = NULL, .min_share = 0 };

	return c->v[k]->build(c->p, &vo, t);
}

struct tui_screen *view_tui_table(const struct profile *p, const struct view *views,
				  const char *name, const char *const *names)
{
	struct vt_ctx *c = calloc(1, sizeof(*c));
	struct tui_table_src src = { 0 };

	if (!c)
		return NULL;
	c->p = p;
	for (; *names && src.nsect < VT_MAX_SECT; names++) {
		const struct view *v = view_find(views, *names);

		if (v)
			c->v[src.nsect++] = v;
	}
	src.build = vt_build;
	src.ctx = c;
	src.ctx_free = free;
	return tui_table_new(name, &src);
}

int view_tui_tables(const struct profile *p, const struct view *views,
		    const char *const *names, struct tui_screen **s, size_t *n, size_t max)
{
	for (; *names; names++) {
		const char *one[] = { *names, NULL };

		if (*n >= max)
			return -ENOSPC;
		s[*n] = view_tui_table(p, views, *names, one);
		if (!s[*n])
			return -ENOMEM;
		++*n;
	}
	return 0;
}

/* Any tool: its summary, then a screen per other view. */
static int vt_generic(const struct profile *p, const struct view *views,
		      struct tui_screen **s, size_t *n, size_t max)
{
	static const char *const first[] = { "summary", NULL };

	if (view_find(views, "summary")) {
		s[*n] = view_tui_table(p, views, "Summary", first);
		if (!s[*n])
			return -ENOMEM;
		++*n;
	}
	for (const struct view *v = views; v->name && *n < max; v++) {
		const char *one[] = { v->name, NULL };
		char name[64];

		if (!strcmp(v->name, "summary"))
			continue;
		snprintf(name, sizeof(name), "%s", v->name);
		name[0] = (char)toupper((unsigned char)name[0]);
		s[*n] = view_tui_table(p, views, name, one);
		if (!s[*n])
			return -ENOMEM;
		++*n;
	}
	return 0;
}

int view_tui_run(const struct profile *p, const struct view *views, view_tui_fn screens,
		 const struct view_tui_opts *o, int *sig)
{
	const char *nc = getenv("NO_COLOR");
	struct tui_screen *s[VIEW_TUI_MAX];
	struct tui_opts to = { 0 };
	char title[256];
	size_t n = 0;
	int err;

	*sig = 0;
	err = (screens ? screens : vt_generic)(p, views, s, &n, VIEW_TUI_MAX);
	if (err)
		goto out;
	snprintf(title, sizeof(title), "%s %s", o->tool, o->file ? o->file : "");
	to.title = title;
	to.draw_once = o->draw_once;
	/* https://no-color.org: set and not empty means no colour. */
	to.colors = nc && *nc ? 0 : -1;
	err = tui_run(s, n, &to, sig);
out:
	for (size_t i = 0; i < n; i++)
		tui_screen_destroy(s[i]);
	return err;
}
