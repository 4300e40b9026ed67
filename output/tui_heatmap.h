/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A TUI heatmap screen of matrices: several kinds (e.g. all, TS, FS) at
 * several levels (e.g. thread, core, node), one shown at a time.  Cells
 * are coloured on a scale from the terminal's colours (256 or 8), or
 * drawn with the shades of HEATMAP_SHADES when there are no colours
 * (NO_COLOR, or a terminal without them).  Larger matrices scroll, or
 * sum into k x k blocks.  A cursor shows a cell's values of every kind;
 * Enter asks the source for a screen of what makes up the cell.
 */
#ifndef CDT_TUI_HEATMAP_H
#define CDT_TUI_HEATMAP_H

#include <stddef.h>

#include "output/tui.h"

#define TUI_HM_MAX 4

struct tui_hm_level {
	const char *name;                  /* "thread" */
	size_t rows, cols;
	const double *cell[TUI_HM_MAX];    /* per kind, rows x cols, row-major */
	/* Per label mode, a label for each row: [0] short (index or id,
	 * also the column labels); others longer (name, tid); NULL if the
	 * mode does not apply at this level. */
	const char *const *rlabel[TUI_HM_MAX];
	const char *const *clabel;         /* short column labels */
};

struct tui_hm_src {
	const char *unit;                   /* of a cell's value */
	int nkinds;
	const char *kind_name[TUI_HM_MAX];  /* "all" */
	const char *kind_title[TUI_HM_MAX]; /* "All communication" */
	const char *kind_keys;              /* a key per kind, e.g. "atf" */
	double total[TUI_HM_MAX];           /* per kind, shown in the title */
	int nlevels;
	struct tui_hm_level level[TUI_HM_MAX];
	int nlabels;
	const char *label_name[TUI_HM_MAX]; /* "index", "name", "tid" */
	int symmetric;                      /* cell (i, j) == (j, i) */
	/* Enter on rows [r0, r1) x columns [c0, c1) (one cell, or a block)
	 * of level lv: a screen to push, or NULL with a reason in msg. */
	struct tui_screen *(*open)(void *ctx, int lv, size_t r0, size_t r1, size_t c0, size_t c1,
				   char *msg, size_t len);
	void *ctx;
	void (*ctx_free)(void *ctx);        /* with the screen; optional */
};

/* The screen; it owns src->ctx from now on, also on failure (NULL). */
struct tui_screen *tui_heatmap_new(const char *name, const struct tui_hm_src *src);

#endif
