/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Charts as plain text lines, for a TUI text screen or a terminal: a
 * histogram of values (a bar per bin) and a scatter of values over time.
 * Values are labelled by the caller's formatter (units are its business);
 * this renderer knows nothing of profiles.
 */
#ifndef CDT_TEXTPLOT_H
#define CDT_TEXTPLOT_H

#include <stddef.h>

/* Write a label for value v into buf. */
typedef void (*textplot_fmt)(double v, char *buf, size_t len, void *arg);

/*
 * A histogram of v[0..n) in `bins` equal bins from the smallest to the
 * largest value, one line per bin: its lower edge, a bar up to `width`
 * columns, its count.  Appended to buf (len bytes, NUL-terminated);
 * returns the length written, or what it would be (snprintf style).
 */
size_t textplot_hist(char *buf, size_t len, const double *v, size_t n, int bins, int width,
		     textplot_fmt fmt, void *arg);

/*
 * The points (t[i], v[i]) on a grid of `rows` lines by `width` columns,
 * value up, time across (from the smallest to the largest of each), a '*'
 * per occupied cell; the top and bottom lines are labelled with the
 * values, and a last line gives the time range by tfmt.
 */
size_t textplot_scatter(char *buf, size_t len, const double *t, const double *v, size_t n,
			int rows, int width, textplot_fmt vfmt, textplot_fmt tfmt, void *arg);

#endif
