// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cdt membound --calibrate`: options, then the saved calibration or a
 * new one, shown as a table per level and a text plot of the sweep
 * (stdout: no program runs), or as CSV.  Messages go to stderr.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/core/cliopt.h"
#include "lib/core/run.h"
#include "lib/tools/membound/calib_parts.h"
#include "output/table.h"
#include "output/textplot.h"

#define MSG "cdt membound: "

static void calib_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt membound --calibrate [--quick] [--force] [--threads N] [--csv [--curve]]\n"
		"\n"
		"Measure what this machine's memory hierarchy achieves: sequential read and\n"
		"write bandwidth (widest vector loads and stores) on one core and on all cores\n"
		"of the first socket, pointer-chasing latency, alone and with %d multiplications\n"
		"between loads, and the probe's time per level.  Level sizes come from the\n"
		"latency curve, the topology as the prior.  Saved in $XDG_CACHE_HOME/cdt/\n"
		"(default ~/.cache/cdt/) and reused for 30 days.\n"
		"\n"
		"      --quick       fewer sizes and runs (under 10 s)\n"
		"      --force       measure even if a saved calibration fits\n"
		"      --threads N   cores for the all-cores figures (default: all of socket 0)\n"
		"      --csv         CSV (RFC 4180): one row per level\n"
		"      --curve       with --csv: the sweep, one row per buffer size\n", CALIB_OPS);
}

/* Cells: "-" in text, empty in CSV, for what was not measured. */
static void cell_num(struct table *t, int csv, double v, const char *fmt)
{
	if (v > 0 && isfinite(v))
		table_cell(t, fmt, v);
	else
		table_cell(t, "%s", csv ? "" : "-");
}

static int show_levels(const struct calib *c, int csv)
{
	static const char *const text_cols[] = {
		"level", "size", "from", "read GB/s:r", "write GB/s:r", "read GB/s all:r",
		"write GB/s all:r", "latency ns:r", "+indep ns:r", "+chain ns:r", "probe ns:r", NULL };
	static const char *const csv_cols[] = {
		"level", "size_bytes", "size_origin", "topo_size_bytes", "work_bytes", "rd_bw1_gbs",
		"wr_bw1_gbs", "rd_bwN_gbs", "wr_bwN_gbs", "threads", "lat_ns", "ops_indep_ns",
		"ops_chain_ns", "probe_ticks_p10", "probe_ticks_p50", "probe_ticks_p90",
		"probe_ns_p50", NULL };
	static const char *const csv_names[MB_NLEVELS] = { "L1", "L2", "L3", "DRAM", "RDRAM" };
	struct table t;
	int r = table_init(&t, csv ? "calibration" : NULL, csv ? csv_cols : text_cols);

	if (r < 0)
		return r;
	for (int k = 0; k < MB_NLEVELS; k++) {
		const struct calib_level *L = &c->lvl[k];
		int m = L->origin != CALIB_ORIGIN_NONE;
		char s[32];

		if ((r = table_row(&t)) < 0)
			goto out;
		if (csv) {
			table_cell(&t, "%s", csv_names[k]);
			if (L->size)
				table_cell(&t, "%llu", (unsigned long long)L->size);
			else
				table_cell(&t, "%s", "");
			table_cell(&t, "%s", m ? calib_origin_name(L->origin) : "");
			if (L->topo_size)
				table_cell(&t, "%llu", (unsigned long long)L->topo_size);
			else
				table_cell(&t, "%s", "");
			if (m)
				table_cell(&t, "%llu", (unsigned long long)L->work);
			else
				table_cell(&t, "%s", "");
		} else {
			table_cell(&t, "%s", calib_level_name(k));
			if (L->size)
				calib_fmt_size(L->size, s, sizeof(s));
			else if (m)
				calib_fmt_size(L->work, s, sizeof(s));
			table_cell(&t, "%s", L->size || m ? s : "-");
			table_cell(&t, "%s", m ? calib_origin_name(L->origin) : "-");
		}
		cell_num(&t, csv, L->rd_bw1 / 1e9, "%.1f");
		cell_num(&t, csv, L->wr_bw1 / 1e9, "%.1f");
		cell_num(&t, csv, L->rd_bwN / 1e9, "%.1f");
		cell_num(&t, csv, L->wr_bwN / 1e9, "%.1f");
		if (csv)
			table_cell(&t, "%u", c->nthreads);
		cell_num(&t, csv, L->lat_ns, "%.2f");
		cell_num(&t, csv, L->ops_ns_indep, "%.2f");
		cell_num(&t, csv, L->ops_ns_chain, "%.2f");
		if (csv) {
			if (m) {
				table_cell(&t, "%llu", (unsigned long long)L->probe_p10);
				table_cell(&t, "%llu", (unsigned long long)L->probe_p50);
				table_cell(&t, "%llu", (unsigned long long)L->probe_p90);
			} else {
				table_cell(&t, "%s", "");
				table_cell(&t, "%s", "");
				table_cell(&t, "%s", "");
			}
			cell_num(&t, csv, m ? L->probe_ns_p50 + 1e-9 : 0, "%.2f");
		} else {
			cell_num(&t, csv, m ? L->probe_ns_p50 + 1e-9 : 0, "%.1f");
		}
	}
	if (csv)
		table_print_csv(&t, stdout);
	else
		table_print_text(&t, stdout, 0);
out:
	table_free(&t);
	return r;
}

static int show_curve_csv(const struct calib *c)
{
	static const char *const cols[] = { "size_bytes", "rd_bw1_gbs", "wr_bw1_gbs", "lat_ns", NULL };
	struct table t;
	int r = table_init(&t, "curve", cols);

	for (size_t i = 0; i < c->npoints && r >= 0; i++) {
		if ((r = table_row(&t)) < 0)
			break;
		table_cell(&t, "%llu", (unsigned long long)c->pt[i].size);
		table_cell(&t, "%.3f", c->pt[i].rd_bw / 1e9);
		table_cell(&t, "%.3f", c->pt[i].wr_bw / 1e9);
		table_cell(&t, "%.3f", c->pt[i].lat_ns);
	}
	if (r >= 0)
		table_print_csv(&t, stdout);
	table_free(&t);
	return r;
}

static void fmt_num(double v, char *buf, size_t len, void *arg)
{
	snprintf(buf, len, "%.4g %s", v, (const char *)arg);
}

static void fmt_log2size(double v, char *buf, size_t len, void *arg)
{
	(void)arg;
	calib_fmt_size((uint64_t)llround(exp2(v)), buf, len);
}

/* The sweep against log2 of the size: read bandwidth, then latency. */
static void show_plots(const struct calib *c)
{
	double x[CALIB_MAX_POINTS], y[CALIB_MAX_POINTS];
	char buf[8192];
	size_t n = c->npoints;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		x[i] = log2((double)c->pt[i].size);
		y[i] = c->pt[i].rd_bw / 1e9;
	}
	textplot_scatter(buf, sizeof(buf), x, y, n, 12, 64, fmt_num, fmt_log2size, "GB/s");
	printf("\nread bandwidth, one core, against buffer size (log scale):\n%s", buf);
	for (size_t i = 0; i < n; i++)
		y[i] = c->pt[i].wr_bw / 1e9;
	textplot_scatter(buf, sizeof(buf), x, y, n, 8, 64, fmt_num, fmt_log2size, "GB/s");
	printf("\nwrite bandwidth, one core:\n%s", buf);
	for (size_t i = 0; i < n; i++)
		y[i] = log10(c->pt[i].lat_ns > 0.01 ? c->pt[i].lat_ns : 0.01);
	textplot_scatter(buf, sizeof(buf), x, y, n, 8, 64, fmt_num, fmt_log2size, "log10 ns");
	printf("\nlatency (log scale), one core:\n%s", buf);
}

static void show_text(const struct calib *c)
{
	char when[32];
	time_t t = (time_t)c->time;
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime_r(&t, &tm) ? &tm : NULL);
	printf("cdt membound calibration: %s, %s kernels, %u core%s of socket 0%s, %s\n", c->cpu,
	       c->isa, c->nthreads, c->nthreads == 1 ? "" : "s", c->quick ? ", quick" : "", when);
	show_levels(c, 0);
	printf("\nread/write: one core; 'all': %u cores, aggregate.  +indep/+chain: ns per load with\n"
	       "%d multiplications between loads, independent of the load or a chain through it\n"
	       "(the chain alone: %.1f ns).  probe: the agent's timed load, median, floor removed\n"
	       "(TSC %.3f GHz).\n", c->nthreads, CALIB_OPS, c->ops_ns_alone, c->tsc_hz / 1e9);
	if (c->note[0])
		printf("note: %s\n", c->note);
	if (c->nevents) {
		printf("\nindicator events, maximal rate (one core):\n");
		for (size_t i = 0; i < c->nevents; i++)
			printf("  %-48s %-11s %-5s %.4g /s\n", c->ev[i].name,
			       calib_level_name(c->ev[i].level), c->ev[i].write ? "write" : "read",
			       c->ev[i].rate);
	} else if (c->events_why[0]) {
		printf("indicator event rates: not measured: %s\n", c->events_why);
	}
	show_plots(c);
}

int calib_main(int argc, char **argv)
{
	int quick = 0, csv = 0, curve = 0, force = 0, r, have = 0;
	const char *threads_s = NULL;
	uint64_t threads = 0;
	char path[4096], key[17], why[160];
	struct calib *c = calloc(1, sizeof(*c));

	if (!c) {
		fprintf(stderr, MSG "%s\n", strerror(ENOMEM));
		return EXIT_CDT_FAILED;
	}
	for (int i = 1; i < argc;) {
		if ((r = cliopt_match(argc, argv, &i, NULL, "--calibrate", NULL)) > 0)
			continue;
		if (r == 0 && (r = cliopt_match(argc, argv, &i, NULL, "--quick", NULL)) > 0) {
			quick = 1;
			continue;
		}
		if (r == 0 && (r = cliopt_match(argc, argv, &i, NULL, "--csv", NULL)) > 0) {
			csv = 1;
			continue;
		}
		if (r == 0 && (r = cliopt_match(argc, argv, &i, NULL, "--curve", NULL)) > 0) {
			curve = 1;
			continue;
		}
		if (r == 0 && (r = cliopt_match(argc, argv, &i, NULL, "--force", NULL)) > 0) {
			force = 1;
			continue;
		}
		if (r == 0 && (r = cliopt_match(argc, argv, &i, NULL, "--threads", &threads_s)) > 0) {
			if (cliopt_u64("--threads", threads_s, 0, &threads) < 0 || threads > 4096) {
				if (threads > 4096)
					fprintf(stderr, MSG "--threads %s: too many\n", threads_s);
				r = EXIT_CDT_FAILED;
				goto out;
			}
			continue;
		}
		if (r == 0 && (r = cliopt_match(argc, argv, &i, "-h", "--help", NULL)) > 0) {
			calib_usage(stdout);
			r = 0;
			goto out;
		}
		if (r == 0)
			fprintf(stderr, MSG "--calibrate: unknown option or argument '%s'; "
				"see 'cdt membound --calibrate --help'\n", argv[i]);
		r = EXIT_CDT_FAILED;
		goto out;
	}
	if (curve && !csv) {
		fprintf(stderr, MSG "--curve goes with --csv (the text output shows the curve)\n");
		r = EXIT_CDT_FAILED;
		goto out;
	}
	if ((r = calib_path(path, sizeof(path))) < 0 || (r = calib_key(key, sizeof(key))) < 0) {
		fprintf(stderr, MSG "no place for the calibration (set XDG_CACHE_HOME or HOME): %s\n",
			strerror(-r));
		r = EXIT_CDT_FAILED;
		goto out;
	}
	if (!force) {
		r = calib_load_file(path, key, (int64_t)time(NULL), c, why, sizeof(why));
		if (r == 0 && c->quick && !quick)
			fprintf(stderr, MSG "the saved calibration %s is a quick one; measuring in full\n",
				path);
		else if (r == 0 && threads && c->nthreads != threads)
			fprintf(stderr, MSG "the saved calibration %s is for %u threads; measuring again\n",
				path, c->nthreads);
		else if (r == 0)
			have = 1;
		else if (r == -ESTALE)
			fprintf(stderr, MSG "stale calibration %s (%s); measuring again\n", path, why);
		else if (r != -ENOENT)
			fprintf(stderr, MSG "unreadable calibration %s (%s): ignored, measuring again\n",
				path, why);
	}
	if (have) {
		char when[32];
		time_t t = (time_t)c->time;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime_r(&t, &tm) ? &tm : NULL);
		fprintf(stderr, MSG "using the calibration of %s in %s (--force measures again)\n",
			when, path);
	} else {
		if (calib_run(c, quick, (unsigned)threads) < 0) {
			r = EXIT_CDT_FAILED;
			goto out;
		}
		if (calib_save(c) < 0) {
			fprintf(stderr, MSG "the calibration above is not saved\n");
			have = -1;
		} else {
			fprintf(stderr, MSG "saved in %s\n", path);
		}
	}
	r = 0;
	if (csv && curve)
		r = show_curve_csv(c);
	else if (csv)
		r = show_levels(c, 1);
	else
		show_text(c);
	fflush(stdout);
	r = r < 0 || have < 0 || ferror(stdout) ? EXIT_CDT_FAILED : 0;
out:
	free(c);
	return r;
}
