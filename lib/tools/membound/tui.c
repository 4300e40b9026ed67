// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt membound` profiles in the TUI: the verdicts, the timeline of
 * sparklines, then table screens of the views.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/core/view_tui.h"
#include "lib/tools/membound/parts.h"
#include "output/tui.h"

/* A view's text form as a text screen. */
static struct tui_screen *mb_text_screen(const struct profile *p, const struct view *views,
					 const char *name, const char *title)
{
	const struct view *v = view_find(views, name);
	struct view_opts o = { 0 };
	struct tui_screen *s = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f || !v || !v->text)
		goto out;
	if (v->text(p, &o, f, 100))
		goto out;
	if (fclose(f)) {
		f = NULL;
		goto out;
	}
	f = NULL;
	s = tui_text_new(title, text);
out:
	if (f)
		fclose(f);
	free(text);
	return s;
}

int membound_tui(const struct profile *p, const struct view *views, struct tui_screen **s,
		 size_t *n, size_t max)
{
	static const char *const tables[] = { "membound-verdicts", "membound-intervals",
					      "membound-threads", "summary", NULL };
	static const char *const texts[][2] = { { "findings", "Verdicts" },
						{ "timeline", "Timeline" } };

	for (size_t i = 0; i < 2; i++) {
		if (*n >= max)
			return -ENOSPC;
		if (!(s[*n] = mb_text_screen(p, views, texts[i][0], texts[i][1])))
			return -ENOMEM;
		(*n)++;
	}
	return view_tui_tables(p, views, tables, s, n, max);
}
