// SPDX-License-Identifier: GPL-2.0-only
#include "output/textplot.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TP_MAXW 200
#define TP_MAXROWS 60

/* snprintf at buf + *o, keeping *o the would-be length. */
__attribute__((format(printf, 4, 5)))
static void tp_put(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(*o < len ? buf + *o : NULL, *o < len ? len - *o : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		*o += (size_t)k;
}

static void tp_range(const double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = n ? v[0] : 0;
	for (size_t i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

static int tp_bin(double x, double lo, double hi, int k)
{
	int b = hi > lo ? (int)((x - lo) / (hi - lo) * k) : 0;

	return b < 0 ? 0 : b >= k ? k - 1 : b;
}

size_t textplot_hist(char *buf, size_t len, const double *v, size_t n, int bins, int width,
		     textplot_fmt fmt, void *arg)
{
	size_t count[TP_MAXROWS] = { 0 }, most = 0, o = 0;
	char bar[TP_MAXW + 1], lab[32];
	double lo, hi;

	if (len)
		buf[0] = '\0';
	if (bins < 1 || bins > TP_MAXROWS || width < 1 || width > TP_MAXW || !n)
		return 0;
	tp_range(v, n, &lo, &hi);
	for (size_t i = 0; i < n; i++) {
		size_t *c = &count[tp_bin(v[i], lo, hi, bins)];

		if (++*c > most)
			most = *c;
	}
	for (int b = 0; b < bins; b++) {
		size_t w = count[b] ? 1 + (count[b] - 1) * (size_t)(width - 1) / most : 0;

		memset(bar, '#', w);
		bar[w] = '\0';
		fmt(lo + (hi - lo) * b / bins, lab, sizeof(lab), arg);
		tp_put(buf, len, &o, "%12s |%-*s| %zu\n", lab, width, bar, count[b]);
	}
	return o;
}

size_t textplot_scatter(char *buf, size_t len, const double *t, const double *v, size_t n,
			int rows, int width, textplot_fmt vfmt, textplot_fmt tfmt, void *arg)
{
	char grid[TP_MAXROWS][TP_MAXW + 1];
	char lab[32], lab2[32];
	double tlo, thi, vlo, vhi;
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	if (rows < 2 || rows > TP_MAXROWS || width < 2 || width > TP_MAXW || !n)
		return 0;
	tp_range(t, n, &tlo, &thi);
	tp_range(v, n, &vlo, &vhi);
	for (int r = 0; r < rows; r++) {
		memset(grid[r], ' ', (size_t)width);
		grid[r][width] = '\0';
	}
	for (size_t i = 0; i < n; i++)
		grid[rows - 1 - tp_bin(v[i], vlo, vhi, rows)][tp_bin(t[i], tlo, thi, width)] = '*';
	for (int r = 0; r < rows; r++) {
		lab[0] = '\0';
		if (r == 0)
			vfmt(vhi, lab, sizeof(lab), arg);
		else if (r == rows - 1)
			vfmt(vlo, lab, sizeof(lab), arg);
		tp_put(buf, len, &o, "%12s |%s|\n", lab, grid[r]);
	}
	tfmt(tlo, lab, sizeof(lab), arg);
	tfmt(thi, lab2, sizeof(lab2), arg);
	tp_put(buf, len, &o, "%12s  %-*s%s\n", "", width - (int)strlen(lab2), lab, lab2);
	return o;
}
