// SPDX-License-Identifier: GPL-2.0-only
/* A profile in the TUI (see views_tui.h). */
#include "views_tui.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui_table.h"

static const struct tui_tool *const tui_tools[] = {
	&tui_tool_comm,
};

#define VT_MAX_SECT 4

struct vt_ctx {
	const struct profile *p;
	const struct view *v[VT_MAX_SECT];
};

static int vt_build(void *arg, size_t k, struct table *t)
{
	const struct vt_ctx *c = arg;
	/* The TUI is for exploring: no share threshold, many rows. */
	struct view_opts vo = { .top = VIEWS_TUI_TOP, .sort = NULL, .min_share = 0 };

	return c->v[k]->build(c->p, &vo, t);
}

struct tui_screen *views_tui_table(const struct profile *p, const struct tool_views *tv,
				   const char *name, const char *const *views)
{
	struct vt_ctx *c = calloc(1, sizeof(*c));
	struct tui_table_src src = { 0 };

	if (!c)
		return NULL;
	c->p = p;
	for (; *views && src.nsect < VT_MAX_SECT; views++) {
		const struct view *v = views_find(tv, *views);

		if (v)
			c->v[src.nsect++] = v;
	}
	src.build = vt_build;
	src.ctx = c;
	src.ctx_free = free;
	return tui_table_new(name, &src);
}

/* Any tool: its summary, then a screen per other view. */
static int vt_generic(const struct profile *p, const struct tool_views *tv,
		      struct tui_screen **s, size_t *n, size_t max)
{
	static const char *const first[] = { "summary", NULL };

	if (views_find(tv, "summary")) {
		s[*n] = views_tui_table(p, tv, "Summary", first);
		if (!s[*n])
			return -ENOMEM;
		++*n;
	}
	for (const struct view *v = tv->views; v->name && *n < max; v++) {
		const char *one[] = { v->name, NULL };
		char name[64];

		if (!strcmp(v->name, "summary"))
			continue;
		snprintf(name, sizeof(name), "%s", v->name);
		name[0] = (char)toupper((unsigned char)name[0]);
		s[*n] = views_tui_table(p, tv, name, one);
		if (!s[*n])
			return -ENOMEM;
		++*n;
	}
	return 0;
}

int views_tui_run(const struct profile *p, const struct views_tui_opts *o, int *sig)
{
	const char *tool = profile_meta(p, "tool"), *nc = getenv("NO_COLOR");
	const struct tool_views *tv = views_for(tool);
	const struct tui_tool *tt = NULL;
	struct tui_screen *s[VIEWS_TUI_MAX];
	struct tui_opts to = { 0 };
	char title[256];
	size_t n = 0;
	int err;

	*sig = 0;
	if (!tv)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(tui_tools) / sizeof(tui_tools[0]); i++)
		if (!strcmp(tui_tools[i]->tool, tv->tool))
			tt = tui_tools[i];
	err = tt ? tt->screens(p, tv, s, &n, VIEWS_TUI_MAX) : vt_generic(p, tv, s, &n, VIEWS_TUI_MAX);
	if (err)
		goto out;
	snprintf(title, sizeof(title), "%s %s", tv->tool, o->file ? o->file : "");
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
