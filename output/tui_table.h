/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A TUI screen of one or more struct tables (sections, stacked): any
 * view's table, sortable by any column, searchable by row text, with a
 * row's full cells on Enter.  Sections are built on first display, so a
 * screen costs nothing until it is looked at.
 */
#ifndef CDT_TUI_TABLE_H
#define CDT_TUI_TABLE_H

#include "output/table.h"
#include "output/tui.h"

struct tui_table_src {
	size_t nsect;
	/* Fill section k (table_init included); 0 or -errno. */
	int (*build)(void *ctx, size_t k, struct table *t);
	/* Enter on row `row` of section k: a screen to push, or NULL for the
	 * default (the row's cells, one per line).  Optional. */
	struct tui_screen *(*open)(void *ctx, size_t k, const struct table *t, size_t row);
	void *ctx;
	void (*ctx_free)(void *ctx); /* with the screen; optional */
};

/* A table screen; it owns src->ctx from now on, also on failure (NULL). */
struct tui_screen *tui_table_new(const char *name, const struct tui_table_src *src);

#endif
