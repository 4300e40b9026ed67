// SPDX-License-Identifier: GPL-2.0-only
/* cdt report: show a recorded profile as text or CSV. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cliopt.h"
#include "cmds.h"
#include "run.h"
#include "views.h"

#define REPORT_DEFAULT_TOP 20
#define REPORT_MIN_SHARE 0.0005 /* like perf c2c: hide rows under 0.05% */

struct report_opts {
	const char *input;
	const char *view;
	int csv, width, show_all, top_set;
	struct view_opts vo;
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt report [options]\n"
		"\n"
		"Show a profile written by a cdt tool.\n"
		"\n"
		"  -i, --input FILE   profile to read (default cdt.data)\n"
		"      --view NAME    one view only; --view list names them\n"
		"      --csv          CSV (header row, one record per line) of one view\n"
		"                     (default: the tool's first table view)\n"
		"      --top N        rows per table (default 20; 0 = all)\n"
		"      --sort COL     reserved; tables sort by samples\n"
		"      --show-all     also rows under 0.05%% of the total\n"
		"      --width N      text width (default: the terminal's, else 80)\n"
		"  -h, --help         this text\n");
}

static int report_width(int asked)
{
	struct winsize ws;

	if (asked)
		return asked;
	if (isatty(1) && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 80;
}

static int report_one(const struct profile *p, const struct view *v,
		      const struct report_opts *o, int width)
{
	struct table t;
	int err;

	if (!o->csv && v->text)
		return v->text(p, &o->vo, stdout, width);
	err = v->build(p, &o->vo, &t);
	if (!err) {
		if (o->csv)
			table_print_csv(&t, stdout);
		else
			table_print_text(&t, stdout, width);
	}
	table_free(&t);
	return err;
}

static int report_views(const struct profile *p, const struct tool_views *tv,
			const struct report_opts *o, int width)
{
	int r = 0;

	for (const char *const *n = tv->report; *n && !r; n++) {
		if (n != tv->report)
			putchar('\n');
		r = report_one(p, views_find(tv, *n), o, width);
	}
	return r;
}

int report_text(const struct profile *p)
{
	struct report_opts o = { .vo = { .top = REPORT_DEFAULT_TOP, .min_share = REPORT_MIN_SHARE } };
	const struct tool_views *tv = views_for(profile_meta(p, "tool"));

	if (!tv)
		return -EINVAL;
	return report_views(p, tv, &o, report_width(0));
}

static int report_parse(int argc, char **argv, struct report_opts *o)
{
	const char *v;
	uint64_t n;
	int r;

	for (int i = 1; i < argc;) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			report_usage(stdout);
			return 1;
		}
		if ((r = cliopt_match(argc, argv, &i, "-i", "--input", &v))) {
			if (r < 0)
				return -EINVAL;
			if (o->input) {
				fprintf(stderr, "cdt report: one -i at a time for now\n");
				return -EINVAL;
			}
			o->input = v;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--view", &o->view))) {
			if (r < 0)
				return -EINVAL;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--sort", &o->vo.sort))) {
			if (r < 0)
				return -EINVAL;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--top", &v))) {
			if (r < 0 || cliopt_u64("--top", v, 0, &n))
				return -EINVAL;
			o->vo.top = (size_t)n;
			o->top_set = 1;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--width", &v))) {
			if (r < 0 || cliopt_u64("--width", v, 0, &n) || n < 40 || n > 10000) {
				fprintf(stderr, "cdt report: --width takes 40 to 10000\n");
				return -EINVAL;
			}
			o->width = (int)n;
		} else if (cliopt_match(argc, argv, &i, NULL, "--csv", NULL)) {
			o->csv = 1;
		} else if (cliopt_match(argc, argv, &i, NULL, "--show-all", NULL)) {
			o->show_all = 1;
		} else {
			fprintf(stderr, "cdt report: unknown option '%s'\n", argv[i]);
			report_usage(stderr);
			return -EINVAL;
		}
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .vo = { .top = REPORT_DEFAULT_TOP, .min_share = REPORT_MIN_SHARE } };
	const struct tool_views *tv;
	const struct view *v;
	struct profile p;
	char err[512];
	int r, status = EXIT_CDT_FAILED, width;

	r = report_parse(argc, argv, &o);
	if (r)
		return r > 0 ? 0 : EXIT_CDT_FAILED;
	if (!o.input)
		o.input = "cdt.data";
	/* CSV feeds pipelines: every row unless asked otherwise. */
	if (o.show_all || o.csv)
		o.vo.min_share = 0;
	if (o.csv && !o.top_set)
		o.vo.top = 0;
	profile_init(&p);
	r = profile_read(&p, o.input, err, sizeof(err));
	if (r) {
		fprintf(stderr, "cdt report: %s: %s\n", o.input, err[0] ? err : strerror(-r));
		goto out;
	}
	tv = views_for(profile_meta(&p, "tool"));
	if (!tv) {
		fprintf(stderr, "cdt report: %s was written by tool '%s', which this cdt "
			"cannot show\n", o.input, profile_meta(&p, "tool") ? profile_meta(&p, "tool") : "?");
		goto out;
	}
	width = report_width(o.width);
	if (o.view && !strcmp(o.view, "list")) {
		for (v = tv->views; v->name; v++)
			printf("%-10s %s\n", v->name, v->help);
		status = 0;
		goto out;
	}
	if (o.view || o.csv) {
		v = views_find(tv, o.view ? o.view : tv->report[1] ? tv->report[1] : tv->report[0]);
		if (!v) {
			fprintf(stderr, "cdt report: no view '%s' for %s profiles; --view list "
				"names them\n", o.view, tv->tool);
			goto out;
		}
		r = report_one(&p, v, &o, width);
	} else {
		r = report_views(&p, tv, &o, width);
	}
	if (r) {
		fprintf(stderr, "cdt report: %s\n", strerror(-r));
		goto out;
	}
	status = fflush(stdout) ? EXIT_CDT_FAILED : 0;
out:
	profile_free(&p);
	return status;
}
