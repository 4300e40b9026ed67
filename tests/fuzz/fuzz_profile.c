// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target for the front end behind the cdt.data reader: the input is
 * a cdt.data file, taken all the way through what `cdt report` and a run
 * do with a profile.
 *
 *  1. Read as cdt report reads it (cmd/report.c: the tool's records
 *     folded as they come); a failure must be clean, -EBADMSG, -EPROTO or
 *     -ENOMEM with a message.  Then every view of its tool with several
 *     options (every row; the top row; the report's defaults; --sort by
 *     each column), as text and CSV, and the tool's default report; for a
 *     profile of a tool this cdt does not know, or of none, what needs no
 *     tool (the summary rows, the object map, names).
 *  2. Read again with the records kept and the threads numbered, as after
 *     a live run (the models build from kept records then), every view
 *     again (text with the defaults, CSV of every row) and the report,
 *     then written and read back: the writer must take whatever the
 *     reader took, and the copy must hold as many of each thing.
 *  3. Read twice into one profile, as ranks 0 and 1 of a merge, every
 *     view again as in 2, then written and read back.
 *
 * Output goes to /dev/null.  The input reaches profile_read() through a
 * memfd (/proc/self/fd/N); written profiles go to a private directory on
 * tmpfs where there is one (df_commit fsyncs), made once per process and
 * removed at exit.  The libFuzzer build links mutator.c; `make check`
 * replays tests/fuzz/corpus-profile with replay.c under ASan/UBSan.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/names.h"
#include "lib/core/objmap.h"
#include "lib/core/profile.h"
#include "lib/core/view_print.h"
#include "lib/tools/tool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: say which, for the one who triages the input. */
#define check(ok) ((ok) ? (void)0 : fz_fail(#ok, __LINE__))

static void fz_fail(const char *what, int line)
{
	fprintf(stderr, "fuzz_profile.c:%d: %s\n", line, what);
	abort();
}

/* Made once per process. */
static struct {
	FILE *null;
	int fd;         /* memfd of the input */
	char in[64];    /* /proc/self/fd/N */
	char dir[256];  /* private directory for written profiles */
	char out[300];
} fz = { .fd = -1 };

static void fz_cleanup(void)
{
	rmdir(fz.dir);
}

/* The (empty) directories of processes that ended without fz_cleanup:
 * libFuzzer kills its jobs, and a crash ends one. */
static void fz_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *de;
	char path[300];
	int pid;

	while (d && (de = readdir(d))) {
		if (sscanf(de->d_name, "cdt-fuzz-%d-", &pid) != 1 || pid <= 0 ||
		    !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		rmdir(path);
	}
	if (d)
		closedir(d);
}

static void fz_init(void)
{
	const char *tmp = getenv("TMPDIR");
	const char *base = !access("/dev/shm", W_OK) ? "/dev/shm" : tmp && *tmp ? tmp : "/tmp";

	if (fz.null)
		return;
	fz.null = fopen("/dev/null", "w");
	fz.fd = memfd_create("cdt-fuzz-input", MFD_CLOEXEC);
	check(fz.null && fz.fd >= 0);
	snprintf(fz.in, sizeof(fz.in), "/proc/self/fd/%d", fz.fd);
	fz_stale(base);
	snprintf(fz.dir, sizeof(fz.dir), "%s/cdt-fuzz-%d-XXXXXX", base, (int)getpid());
	check(mkdtemp(fz.dir) != NULL);
	snprintf(fz.out, sizeof(fz.out), "%s/out.data", fz.dir);
	atexit(fz_cleanup);
}

static void fz_input(const uint8_t *data, size_t size)
{
	size_t n = 0;
	ssize_t k;

	check(ftruncate(fz.fd, 0) == 0);
	while (n < size) {
		k = pwrite(fz.fd, data + n, size - n, (off_t)n);
		check(k > 0);
		n += (size_t)k;
	}
}

/* A profile as cmd/report.c sets one up: folding for a report, else kept. */
static void fz_profile(struct profile *p, int folding)
{
	profile_init(p);
	p->ops_of = tools_prof;
	p->folding = folding;
}

/* A read either worked or failed cleanly, saying why; merge: or the files
 * do not merge (-EINVAL). */
static void fz_read_ok(int r, const char *err, int merge)
{
	check(r == 0 || r == -EBADMSG || r == -EPROTO || r == -ENOMEM || (merge && r == -EINVAL));
	check(!r || err[0]);
}

static const struct view_opts fz_opts[] = {
	{ .top = VIEW_PRINT_TOP, .min_share = VIEW_PRINT_MIN_SHARE }, /* the defaults */
	{ .top = 0, .min_share = 0 },                              /* --csv, --show-all */
	{ .top = 1, .min_share = 0 },                              /* --top 1 */
};

/* One view as `cdt report --view NAME [--csv]` prints it, with the options of pr. */
static void fz_print(const struct profile *p, const struct view *v, struct view_print *pr,
		     int csv)
{
	pr->csv = csv;
	check(view_print_one(p, v, pr, 1) == 0);
}

/*
 * One view: as text with the defaults and as CSV of every row; all:
 * every option of fz_opts both ways, the table of a view whose text is a
 * heatmap too (the TUI shows it), and --sort by each column.  *sort: a
 * column of it, for the report's --sort.
 */
static void fz_view(const struct profile *p, const struct view *v, int all, char *sort,
		    size_t len)
{
	struct view_print pr;
	struct table t;

	view_print_init(&pr);
	pr.out = fz.null;
	for (size_t i = 0; i < (all ? sizeof(fz_opts) / sizeof(fz_opts[0]) : 2); i++) {
		pr.vo = fz_opts[i];
		if (all || i == 0)
			fz_print(p, v, &pr, 0);
		if (all || i == 1)
			fz_print(p, v, &pr, 1);
	}
	if (!all)
		return;
	/* narrow enough to cut cells */
	check(v->build(p, &fz_opts[1], &t) == 0);
	table_print_text(&t, fz.null, 40);
	for (int c = 0; c < t.ncols; c++) {
		size_t n = strlen(t.cols[c]) - (t.right[c] ? 2 : 0);
		char col[64];

		snprintf(col, sizeof(col), "%.*s", (int)n, t.cols[c]);
		snprintf(sort, len, "%s", col);
		pr.vo = fz_opts[0];
		pr.vo.sort = col;
		fz_print(p, v, &pr, 0);
	}
	table_free(&t);
}

/* What needs no tool: a profile of a tool this cdt does not know, or of none. */
static void fz_toolless(const struct profile *p)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct objmap *m = NULL;
	struct objmap_obj ob;
	struct table t;
	char buf[512];
	uint64_t off;

	table_init(&t, NULL, cols);
	check(view_summary_run(p, &t) == 0 && view_summary_errors(p, &t) == 0);
	table_print_text(&t, fz.null, 80);
	table_print_csv(&t, fz.null);
	table_free(&t);
	check(objmap_build(&m, p) == 0);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct rec_sample *s = &p->samples[i];

		names_code(p, s->pid, s->time, s->ip, buf, sizeof(buf));
		names_data(p, s->pid, s->time, s->addr, s->flags & SAMPLE_F_STACK, buf,
			   sizeof(buf), &off);
		if (!objmap_find(m, s->pid, s->addr, s->time, &ob) && ob.group != OBJMAP_NO_GROUP)
			objmap_path_text(m, ob.group, buf, sizeof(buf));
	}
	for (size_t i = 0; i < p->ntraps; i++) {
		const struct rec_trap *x = &p->traps[i];

		names_code(p, x->pid, x->time, x->ip, buf, sizeof(buf));
		objmap_find(m, x->pid, x->wp_addr, x->time, &ob);
	}
	for (uint32_t g = 0; g < objmap_ngroups(m); g++)
		objmap_path_text(m, g, buf, sizeof(buf));
	objmap_free(m);
}

/* Every view of the profile's tool (all: in every form, see fz_view), and
 * its default report. */
static void fz_views(const struct profile *p, int all)
{
	const struct tool *tool = tools_find(profile_meta(p, "tool"));
	struct view_print pr;
	char sort[64] = "";

	if (!tool) {
		fz_toolless(p);
		return;
	}
	/* The report's --sort takes a column of a view the report shows. */
	for (const struct view *v = tool->views; v->name; v++) {
		char col[64] = "";

		fz_view(p, v, all, col, sizeof(col));
		for (const char *const *r = tool->report; *r && col[0]; r++)
			if (!strcmp(*r, v->name))
				snprintf(sort, sizeof(sort), "%s", col);
	}
	view_print_init(&pr);
	pr.out = fz.null;
	check(view_print_report(p, tool->views, tool->report, &pr) == 0);
	if (!all)
		return;
	/* --sort on the report: a column of one of its views (the last one's) */
	pr.vo.sort = sort;
	pr.width = 40;
	check(view_print_report(p, tool->views, tool->report, &pr) == 0);
}

/* Written and read back: the writer takes what the reader took, and the
 * copy holds every record the profile had. */
static void fz_roundtrip(const struct profile *p)
{
	struct profile b;
	char err[512];
	int r = profile_write(p, fz.out);

	if (r)
		fprintf(stderr, "profile_write: %s\n", strerror(-r));
	check(r == 0);
	fz_profile(&b, p->folding);
	r = profile_read(&b, fz.out, err, sizeof(err));
	if (r)
		fprintf(stderr, "profile_read of the copy: %s\n", err);
	check(r == 0);
#define SAME(f) (b.f == p->f || \
		 (fprintf(stderr, "the copy has %s %zu, not %zu\n", #f, (size_t)b.f, (size_t)p->f), 0))
	check(SAME(nmeta) && SAME(topo.ncpus) && SAME(nprocs) && SAME(ntasks) && SAME(nmmaps) &&
	      SAME(nsyms) && SAME(nsamples) && SAME(ntraps) && SAME(nerrors) &&
	      SAME(objs.nallocs) && SAME(objs.nfrees) && SAME(have_run) && SAME(ntool_recs));
#undef SAME
	profile_free(&b);
	unlink(fz.out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	char err[512];
	int r, r2;

	fz_init();
	fz_input(data, size);

	/* 1. cdt report */
	fz_profile(&p, 1);
	r = profile_read(&p, fz.in, err, sizeof(err));
	fz_read_ok(r, err, 0);
	if (!r)
		fz_views(&p, 1);
	profile_free(&p);

	/* 2. records kept, threads numbered: as after a live run; the same verdict */
	fz_profile(&p, 0);
	r2 = profile_read(&p, fz.in, err, sizeof(err));
	check(r2 == r);
	if (!r2) {
		profile_number_tasks(&p);
		fz_views(&p, 0);
		fz_roundtrip(&p);
	}
	profile_free(&p);
	if (r)
		return 0;

	/* 3. the file merged with itself as ranks 0 and 1 */
	fz_profile(&p, 1);
	r = profile_merge_read(&p, fz.in, 0, err, sizeof(err));
	check(r == 0);
	r = profile_merge_read(&p, fz.in, 1, err, sizeof(err));
	fz_read_ok(r, err, 1);
	check(r != -EBADMSG && r != -EPROTO); /* the same file read well just before */
	if (!r) {
		fz_views(&p, 0);
		fz_roundtrip(&p);
	}
	profile_free(&p);
	return 0;
}
