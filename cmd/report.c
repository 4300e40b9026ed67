// SPDX-License-Identifier: GPL-2.0-only
/* cdt report: show a recorded profile as text, CSV, JSON or in the TUI. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "lib/core/array.h"
#include "lib/core/cliopt.h"
#include "lib/core/run.h"
#include "lib/core/view_print.h"
#include "lib/core/view_tui.h"
#include "lib/tools/tool.h"
#include "output/json.h"
#include "output/trace.h"

struct report_opts {
	const char *input;   /* the one file, or what the TUI's top row names */
	char **inputs;       /* -i, globs expanded; merged when more than one */
	uint32_t *ranks;
	size_t ninputs, inputs_cap;
	const char *view;
	int show_all, top_set, tui, json, chrome;
	struct view_print pr;
};

/* --csv without --view: the first view of the text report after its
 * summary, which is the view people look at first. */
static const char *report_default_view(const struct tool *t)
{
	return t->report[0] && t->report[1] ? t->report[1] : t->report[0];
}

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt report [options]\n"
		"\n"
		"Show a profile written by a cdt tool.\n"
		"\n"
		"  -i, --input FILE   profile to read (default cdt.data; - for stdin); several -i,\n"
		"                     or a quoted glob ('cdt.data.*'), merge processes or ranks:\n"
		"                     threads become rank.thread\n"
		"      --view NAME    one view only; --view list names them\n"
		"      --csv          CSV (header row, one record per line) of one view;\n"
		"                     default: the text report's first view after the summary\n"
		"                     (");
	for (size_t i = 0; tools[i]; i++)
		fprintf(f, "%s%s: %s", i ? ", " : "", tools[i]->name, report_default_view(tools[i]));
	fprintf(f, ")\n"
		"      --json         every view (or the --view) as one JSON document, with\n"
		"                     the profile's settings; see cdt-report(1)\n"
		"      --format F     text, csv (--csv), json (--json), or chrome: a timeline\n"
		"                     (fvar's instances) as Chrome trace-event JSON for\n"
		"                     ui.perfetto.dev and chrome://tracing\n"
		"      --top N        rows per table (default 20; 0 = all)\n"
		"      --sort COL     sort tables by a column: numbers from the largest,\n"
		"                     text from A (--view list, then --csv, shows columns)\n"
		"      --show-all     also rows under 0.05%% of the total\n"
		"      --width N      text width (default 80; 'full': no limit, nothing cut)\n"
		"      --tui          explore the profile in the terminal: heatmaps, sortable\n"
		"                     tables, drill-down (? there lists the keys)\n"
		"  -h, --help         this text\n");
}

static int report_input_add(struct report_opts *o, const char *path)
{
	char *dup;

	for (size_t i = 0; i < o->ninputs; i++)
		if (!strcmp(o->inputs[i], path))
			return 0; /* a glob and an -i may name a file twice */
	if (array_grow(&o->inputs, &o->inputs_cap, o->ninputs, sizeof(*o->inputs)))
		return -ENOMEM;
	dup = strdup(path);
	if (!dup)
		return -ENOMEM;
	o->inputs[o->ninputs++] = dup;
	return 0;
}

/* -i VALUE: a file, or a glob cdt expands (quoted, so the shell did not). */
static int report_input(struct report_opts *o, const char *v)
{
	glob_t g;
	int r;

	/* As -o - writes a profile: a pipe is read as it comes. */
	if (!strcmp(v, "-"))
		return report_input_add(o, "/dev/stdin");
	if (!strpbrk(v, "*?["))
		return report_input_add(o, v);
	r = glob(v, 0, NULL, &g);
	if (r == GLOB_NOMATCH) {
		fprintf(stderr, "cdt report: -i %s: no file matches\n", v);
		return -ENOENT;
	}
	if (r) {
		fprintf(stderr, "cdt report: -i %s: %s\n", v,
			r == GLOB_NOSPACE ? "out of memory" : "cannot read a directory");
		return r == GLOB_NOSPACE ? -ENOMEM : -EIO;
	}
	r = 0;
	for (size_t i = 0; i < g.gl_pathc && !r; i++)
		r = report_input_add(o, g.gl_pathv[i]);
	globfree(&g);
	return r;
}

static void report_inputs_free(struct report_opts *o)
{
	for (size_t i = 0; i < o->ninputs; i++)
		free(o->inputs[i]);
	free(o->inputs);
	free(o->ranks);
}

/* The number N of a name ending in ".N" (cdt.data.N under a launcher), or -1. */
static long long report_rank_of(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	char *end;
	long long n;

	if (!dot || (slash && dot < slash) || !dot[1] || strspn(dot + 1, "0123456789") !=
							  strlen(dot + 1))
		return -1;
	n = strtoll(dot + 1, &end, 10);
	return n <= UINT32_MAX - 1 ? n : -1;
}

static int report_path_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int report_rank_cmp(const void *a, const void *b)
{
	long long x = report_rank_of(*(char *const *)a), y = report_rank_of(*(char *const *)b);

	return (x > y) - (x < y);
}

/*
 * The rank of each input: the N of cdt.data.N when every file has a
 * distinct one (the launcher's rank, see cdt(1)), else the position in
 * the list sorted by name (numbers in names by value).  Inputs end up
 * in rank order.
 */
static int report_ranks(struct report_opts *o)
{
	int by_name = 0;

	o->ranks = calloc(o->ninputs, sizeof(*o->ranks));
	if (!o->ranks)
		return -ENOMEM;
	qsort(o->inputs, o->ninputs, sizeof(*o->inputs), report_path_cmp);
	for (size_t i = 0; i < o->ninputs && !by_name; i++)
		by_name = report_rank_of(o->inputs[i]) < 0;
	if (!by_name) {
		qsort(o->inputs, o->ninputs, sizeof(*o->inputs), report_rank_cmp);
		for (size_t i = 1; i < o->ninputs && !by_name; i++)
			by_name = report_rank_of(o->inputs[i]) == report_rank_of(o->inputs[i - 1]);
		if (by_name)
			qsort(o->inputs, o->ninputs, sizeof(*o->inputs), report_path_cmp);
	}
	for (size_t i = 0; i < o->ninputs; i++)
		o->ranks[i] = by_name ? (uint32_t)i : (uint32_t)report_rank_of(o->inputs[i]);
	return 0;
}

/* The profile of every input, folded as it is read; 0 or -errno (said). */
static int report_read(struct profile *p, struct report_opts *o)
{
	char err[512];
	int r = 0;

	p->ops_of = tools_prof;
	p->folding = 1;
	if (o->ninputs == 1) {
		r = profile_read(p, o->inputs[0], err, sizeof(err));
		if (r)
			fprintf(stderr, "cdt report: %s: %s\n", o->inputs[0],
				err[0] ? err : strerror(-r));
		return r;
	}
	r = report_ranks(o);
	for (size_t i = 0; i < o->ninputs && !r; i++) {
		r = profile_merge_read(p, o->inputs[i], o->ranks[i], err, sizeof(err));
		if (r)
			fprintf(stderr, "cdt report: %s: %s\n", o->inputs[i],
				err[0] ? err : strerror(-r));
	}
	return r;
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
			if (r < 0 || report_input(o, v))
				return -EINVAL;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--view", &o->view))) {
			if (r < 0)
				return -EINVAL;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--sort", &o->pr.vo.sort))) {
			if (r < 0)
				return -EINVAL;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--top", &v))) {
			if (r < 0)
				return -EINVAL; /* said */
			if (cliopt_parse_u64(v, 0, &n)) {
				fprintf(stderr, "cdt report: --top takes a number of rows (0: all), "
					"not '%s'\n", v);
				return -EINVAL;
			}
			o->pr.vo.top = (size_t)n;
			o->top_set = 1;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--width", &v))) {
			if (r < 0)
				return -EINVAL; /* said */
			if (!strcmp(v, "full")) {
				o->pr.width = VIEW_PRINT_WIDTH_FULL;
			} else if (cliopt_parse_u64(v, 0, &n) || n < 40 || n > 10000) {
				fprintf(stderr, "cdt report: --width takes 40 to 10000, or full; "
					"not '%s'\n", v);
				return -EINVAL;
			} else {
				o->pr.width = (int)n;
			}
		} else if (cliopt_match(argc, argv, &i, NULL, "--csv", NULL)) {
			o->pr.csv = 1;
		} else if (cliopt_match(argc, argv, &i, NULL, "--json", NULL)) {
			o->json = 1;
		} else if ((r = cliopt_match(argc, argv, &i, NULL, "--format", &v))) {
			if (r < 0)
				return -EINVAL; /* said */
			if (!strcmp(v, "csv")) {
				o->pr.csv = 1;
			} else if (!strcmp(v, "json")) {
				o->json = 1;
			} else if (!strcmp(v, "chrome")) {
				o->chrome = 1;
			} else if (strcmp(v, "text")) {
				fprintf(stderr, "cdt report: --format takes text, csv, json or chrome, "
					"not '%s'\n", v);
				return -EINVAL;
			}
		} else if (cliopt_match(argc, argv, &i, NULL, "--show-all", NULL)) {
			o->show_all = 1;
		} else if (cliopt_match(argc, argv, &i, NULL, "--tui", NULL)) {
			o->tui = 1;
		} else if (argv[i][0] != '-' || !argv[i][1]) {
			/* One line, as for every usage error: the usage would bury it. */
			fprintf(stderr, "cdt report: unexpected argument '%s'; a profile is read "
				"with -i FILE\n", argv[i]);
			return -EINVAL;
		} else {
			fprintf(stderr, "cdt report: unknown option '%s'; cdt report --help "
				"lists them\n", argv[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* A view's table for JSON, as CSV has it: sorted by --sort when the view
 * has that column, then cut to --top.  The caller frees t. */
static int report_json_build(const struct profile *p, const struct view *v,
			     const struct view_opts *vo, struct table *t)
{
	struct view_opts all = *vo;
	int err, col;

	if (vo->sort)
		all.top = 0;
	err = v->build(p, &all, t);
	if (err || !vo->sort || (col = table_col(t, vo->sort)) < 0)
		return err;
	err = table_sort(t, col);
	table_top(t, vo->top);
	return err;
}

/*
 * --sort: the one view asked for must have the column; over every view,
 * at least one must, as in the text report.  Checked before anything is
 * written.  0 or -errno (-ECANCELED: said).
 */
static int report_json_sort_check(const struct profile *p, const struct view *views,
				  const struct view *one, const char *col)
{
	struct view_opts vo = { .top = 1 };
	char cols[512];
	struct table t;
	int err = 0, found = 0;

	for (const struct view *v = one ? one : views; v->name && !err && !found; v++) {
		err = v->build(p, &vo, &t);
		found = !err && table_col(&t, col) >= 0;
		if (!err && !found && one) {
			table_col_names(&t, cols, sizeof(cols));
			fprintf(stderr, "cdt report: --sort %s: the %s view has no such column; "
				"its columns: %s\n", col, v->name, cols);
			err = -ECANCELED;
		}
		table_free(&t);
		if (one)
			break;
	}
	if (!err && !found) {
		fprintf(stderr, "cdt report: --sort %s: no view has such a column; --csv --view "
			"NAME shows a view's columns\n", col);
		err = -ECANCELED;
	}
	return err;
}

/* --format chrome: the tool's timeline as trace events.  0 or -errno
 * (-ECANCELED: said). */
static int report_chrome(const struct profile *p, const struct tool *tool,
			 const struct report_opts *o)
{
	struct table t = { 0 };
	int err;

	if (!tool->timeline) {
		fprintf(stderr, "cdt report: %s profiles have no timeline for --format chrome\n",
			tool->name);
		return -ECANCELED;
	}
	if (o->view && strcmp(o->view, tool->timeline_view)) {
		fprintf(stderr, "cdt report: --format chrome shows the %s view of %s profiles, "
			"not '%s'\n", tool->timeline_view, tool->name, o->view);
		return -ECANCELED;
	}
	err = tool->timeline(p, &o->pr.vo, &t);
	if (!err)
		err = trace_write(stdout, &t);
	table_free(&t);
	return err;
}

/*
 * --json: the profile's settings (its meta) and every view, or the one
 * named, as tables; output/json.c renders them.  0 or -errno
 * (-ECANCELED: said).
 */
static int report_json(const struct profile *p, const struct tool *tool,
		       const struct report_opts *o)
{
	const struct view *one = NULL;
	struct json_doc d;
	struct table t;
	int err = 0;

	if (o->view) {
		one = view_find(tool->views, o->view);
		if (!one) {
			fprintf(stderr, "cdt report: no view '%s' for %s profiles; --view list "
				"names them\n", o->view, tool->name);
			return -ECANCELED;
		}
	}
	if (o->pr.vo.sort && (err = report_json_sort_check(p, tool->views, one, o->pr.vo.sort)))
		return err;
	json_begin(&d, stdout);
	for (size_t i = 0; i < p->nmeta; i++)
		json_meta(&d, p->meta[i].key, p->meta[i].value);
	for (const struct view *v = one ? one : tool->views; v && v->name && !err;
	     v = one ? NULL : v + 1) {
		err = report_json_build(p, v, &o->pr.vo, &t);
		if (!err)
			json_table(&d, v->name, &t);
		table_free(&t);
	}
	if (!err)
		err = json_end(&d);
	return err;
}

/* The TUI's exit status: 0, 128+N after signal N, 125 on failure. */
static int report_tui(const struct profile *p, const struct tool *tool, const char *input)
{
	const char *once = getenv("CDT_TUI_EXIT_AFTER_DRAW"); /* tests and benchmarks */
	struct view_tui_opts to = { tool->name, input, once && !strcmp(once, "1") };
	int sig, r = view_tui_run(p, tool->views, tool->tui, &to, &sig);

	if (r == -ENOTTY) {
		fprintf(stderr, "cdt report: --tui cannot use this terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "unset");
		return EXIT_CDT_FAILED;
	}
	if (r) {
		fprintf(stderr, "cdt report: --tui: %s\n", strerror(-r));
		return EXIT_CDT_FAILED;
	}
	return sig ? 128 + sig : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { 0 };
	const struct tool *tool;
	const struct view *v;
	struct profile p;
	char name[256];
	int r, status = EXIT_CDT_FAILED;

	profile_init(&p);
	view_print_init(&o.pr);
	r = report_parse(argc, argv, &o);
	if (r) {
		status = r > 0 ? 0 : EXIT_CDT_FAILED;
		goto out;
	}
	if (!o.ninputs && report_input_add(&o, "cdt.data"))
		goto out;
	o.input = o.inputs[0];
	if (o.ninputs > 1) {
		snprintf(name, sizeof(name), "%zu files merged", o.ninputs);
		o.input = name;
	}
	if (o.tui && (o.pr.csv || o.json || o.view)) {
		fprintf(stderr, "cdt report: --tui shows every view; it takes no --csv, --json "
			"or --view\n");
		goto out;
	}
	if (o.json + o.pr.csv + o.chrome > 1) {
		fprintf(stderr, "cdt report: --csv, --json and --format chrome are different "
			"formats; give one\n");
		goto out;
	}
	if (o.tui && o.chrome) {
		fprintf(stderr, "cdt report: --tui shows every view; it takes no --format\n");
		goto out;
	}
	if (o.tui && !isatty(1)) {
		fprintf(stderr, "cdt report: --tui needs a terminal on standard output; "
			"in pipelines use the text report or --csv\n");
		goto out;
	}
	/* CSV and JSON feed pipelines: every row unless asked otherwise. */
	if (o.show_all || o.pr.csv || o.json || o.chrome)
		o.pr.vo.min_share = 0;
	if ((o.pr.csv || o.json || o.chrome) && !o.top_set)
		o.pr.vo.top = 0;
	if (report_read(&p, &o))
		goto out;
	tool = tools_find(profile_meta(&p, "tool"));
	if (!tool) {
		fprintf(stderr, "cdt report: %s was written by tool '%s', which this cdt "
			"cannot show\n", o.input, profile_meta(&p, "tool") ? profile_meta(&p, "tool") : "?");
		goto out;
	}
	if (o.tui) {
		status = report_tui(&p, tool, o.input);
		goto out;
	}
	if (o.view && !strcmp(o.view, "list")) {
		for (v = tool->views; v->name; v++)
			printf("%-10s %s\n", v->name, v->help);
		status = 0;
		goto out;
	}
	if (o.chrome) {
		r = report_chrome(&p, tool, &o);
	} else if (o.json) {
		r = report_json(&p, tool, &o);
	} else if (o.view || o.pr.csv) {
		v = view_find(tool->views, o.view ? o.view : report_default_view(tool));
		if (!v) {
			fprintf(stderr, "cdt report: no view '%s' for %s profiles; --view list "
				"names them\n", o.view, tool->name);
			goto out;
		}
		r = view_print_one(&p, v, &o.pr, 1);
	} else {
		r = view_print_report(&p, tool->views, tool->report, &o.pr);
	}
	if (r) {
		if (r != -ECANCELED)
			fprintf(stderr, "cdt report: %s\n", strerror(-r));
		goto out;
	}
	status = fflush(stdout) ? EXIT_CDT_FAILED : 0;
out:
	profile_free(&p);
	report_inputs_free(&o);
	return status;
}
