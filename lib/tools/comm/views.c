// SPDX-License-Identifier: GPL-2.0-only
/*
 * Views of `cdt comm` profiles: the summary, the all/TS/FS matrices at
 * thread, core and node level, threads, cache lines, data objects, code
 * locations, and one-line findings that say where to look.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/view.h"
#include "lib/tools/comm/model.h"
#include "lib/tools/comm/parts.h"
#include "output/heatmap.h"

#define KV(key, ...) (table_row(t) || table_cell(t, "%s", key) || table_cell(t, __VA_ARGS__))

/* A row under min_share of the total is hidden, as perf c2c does. */
static int comm_hidden(const struct comm_model *m, const struct view_opts *o, double w,
		       size_t row)
{
	return (o->top && row >= o->top) || (o->min_share > 0 && m->total[CM_ALL] > 0 &&
					     w < o->min_share * m->total[CM_ALL]);
}

static const struct comm_model *comm_get(const struct profile *p)
{
	const struct comm_model *m = comm_of(p);

	if (!m)
		errno = ENOMEM;
	return m;
}

static int view_summary(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "key", "value", NULL };
	const struct comm_model *m = comm_get(p);
	int err;

	(void)o;
	if (!m)
		return -ENOMEM;
	table_init(t, NULL, cols);
	err = view_summary_run(p, t);
	if (!err)
		err = KV("count_unit", "%s", m->unit) ||
		      KV("detections", "%" PRIu64, m->events) ||
		      KV("detections_on_samples", "%" PRIu64, m->by_sample) ||
		      KV("detections_on_traps", "%" PRIu64, m->by_trap) ||
		      KV("traps_at_writer", "%" PRIu64, m->by_writer) ||
		      KV("traps_decoded", "%" PRIu64, m->exact_traps) ||
		      KV("all_total", "%.6g", m->total[CM_ALL]) ||
		      KV("ts_total", "%.6g", m->total[CM_TS]) ||
		      KV("fs_total", "%.6g", m->total[CM_FS]) ||
		      KV("fs_share", "%.4f", m->total[CM_ALL] > 0 ?
			 m->total[CM_FS] / m->total[CM_ALL] : 0) ||
		      KV("recycled_total", "%.6g", m->total[CM_RC]);
	/* Bytes only where a count is a number of line transfers. */
	if (!err && !m->soft)
		err = KV("est_bytes", "%.6g", m->total[CM_ALL] * 64) ||
		      KV("ts_est_bytes", "%.6g", m->total[CM_TS] * 64) ||
		      KV("fs_est_bytes", "%.6g", m->total[CM_FS] * 64);
	if (!err)
		err = view_summary_errors(p, t);
	return err ? -ENOMEM : 0;
}

/* Row i of a matrix as a label: thread (rank.thread when merged), core or node id. */
static const char *matrix_label(const struct profile *p, const struct comm_model *m, int lv,
				size_t i, char *buf, size_t len)
{
	if (lv == CL_THREAD)
		return profile_thread_label(p, (uint32_t)i, buf, len);
	snprintf(buf, len, "%d", m->ids[lv][i]);
	return buf;
}

/* Every cell (CSV); text leaves out cells under min_share of their matrix's total. */
static int view_matrix(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { "matrix", "level", view_thread_col(p, "from:r", "from"),
			       view_thread_col(p, "to:r", "to"), "count:r", NULL };
	const struct comm_model *m = comm_get(p);
	size_t shown = 0, all = 0;
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Communication matrices", cols);
	for (int k = 0; k < CM_NKIND && !err; k++)
		for (int lv = 0; lv < CL_NLEVEL && !err; lv++)
			for (size_t i = 0; i < m->n[lv] && !err; i++)
				for (size_t j = 0; j < m->n[lv] && !err; j++) {
					double c = comm_cell(m, lv, k, i, j);
					char a[32], b[32];

					all++;
					if ((o->top && shown >= o->top) ||
					    (o->min_share > 0 && c < o->min_share * m->total[k]))
						continue;
					shown++;
					err = table_row(t) ||
					      table_cell(t, "%s", comm_kind_name(k)) ||
					      table_cell(t, "%s", comm_level_name(lv)) ||
					      table_cell(t, "%s", matrix_label(p, m, lv, i, a, sizeof(a))) ||
					      table_cell(t, "%s", matrix_label(p, m, lv, j, b, sizeof(b))) ||
					      table_cell(t, "%.6g", c);
				}
	t->hidden = all - shown;
	return err ? -ENOMEM : 0;
}

static void labels_free(char **l, size_t n)
{
	for (size_t i = 0; l && i < n; i++)
		free(l[i]);
	free(l);
}

/* The n labels of a level, for the heatmap; NULL on ENOMEM. */
static char **labels_of(const struct profile *p, const struct comm_model *m, int lv)
{
	char **l = calloc(m->n[lv] + 1, sizeof(*l));

	for (size_t i = 0; l && i < m->n[lv]; i++) {
		char buf[32];

		l[i] = strdup(matrix_label(p, m, lv, i, buf, sizeof(buf)));
		if (!l[i]) {
			labels_free(l, m->n[lv]);
			return NULL;
		}
	}
	return l;
}

/* Text: the thread-level all, TS and FS heatmaps, then core and node
 * level when there is more than one of them. */
static int view_matrix_text(const struct profile *p, const struct view_opts *o, FILE *f,
			    int width)
{
	static const char *const what[CM_NKIND] = { "All communication", "True sharing",
						    "False sharing", "Recycled by the allocator" };
	const struct comm_model *m = comm_get(p);
	char title[128];
	int err = 0;

	(void)o;
	if (!m)
		return -ENOMEM;
	for (int lv = 0; lv < CL_NLEVEL && !err; lv++) {
		char **labels;

		if ((lv != CL_THREAD && m->n[lv] < 2) || m->n[lv] == 0)
			continue;
		labels = labels_of(p, m, lv);
		if (!labels)
			return -ENOMEM;
		for (int k = 0; k < CM_NKIND && !err; k++) {
			struct heatmap h = { title, m->n[lv], m->m[lv][k],
					     (const char *const *)labels, m->unit };

			if (k == CM_RC && m->total[k] <= 0)
				continue; /* most programs: not a word about it */

			snprintf(title, sizeof(title), "%s, %s x %s (total %.4g)", what[k],
				 comm_level_name(lv), comm_level_name(lv), m->total[k]);
			if (lv || k)
				fputc('\n', f);
			/* An empty matrix says so in one line, not in a blank grid. */
			if (m->total[k] <= 0)
				err = fprintf(f, "%s, %s x %s: none detected\n", what[k],
					      comm_level_name(lv), comm_level_name(lv)) < 0 ? -EIO : 0;
			else
				err = heatmap_print(f, &h, width);
		}
		labels_free(labels, m->n[lv]);
	}
	return err;
}

/* Every thread (it maps indices to pids); --top cuts the list. */
static int view_threads(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { view_thread_col(p, "index:r", "index"), "pid:r", "tid:r", "name",
			       "samples:r", "traps:r", "all:r", "ts:r", "fs:r", "recycled:r", NULL };
	const struct comm_model *m = comm_get(p);
	size_t n;
	int err = 0;

	if (!m)
		return -ENOMEM;
	n = m->n[CL_THREAD];
	table_init(t, "Threads", cols);
	for (size_t i = 0; i < p->ntasks && !err; i++) {
		const struct rec_task *k = &p->tasks[i];
		double w[CM_NKIND] = { 0 };
		char lab[32];

		if (o->top && i >= o->top) {
			t->hidden = p->ntasks - i;
			break;
		}
		for (int c = 0; c < CM_NKIND; c++)
			for (size_t j = 0; j < n && i < n; j++)
				w[c] += comm_cell(m, CL_THREAD, c, i, j);
		err = table_row(t) ||
		      table_cell(t, "%s", profile_thread_label(p, k->index, lab, sizeof(lab))) ||
		      table_cell(t, "%u", profile_os_pid(p, k->pid)) ||
		      table_cell(t, "%u", k->tid) || table_cell(t, "%.16s", k->name) ||
		      table_cell(t, "%" PRIu64, k->st.samples) ||
		      table_cell(t, "%" PRIu64, k->st.traps) || table_cell(t, "%.6g", w[CM_ALL]) ||
		      table_cell(t, "%.6g", w[CM_TS]) || table_cell(t, "%.6g", w[CM_FS]) ||
		      table_cell(t, "%.6g", w[CM_RC]);
	}
	return err ? -ENOMEM : 0;
}

static int view_lines(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "line", "object", "offset:r", "all:r", "ts:r",
					    "fs:r", "events:r", "threads", "code", "recycled:r",
					    "also_on_line", NULL };
	const struct comm_model *m = comm_get(p);
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Contended cache lines", cols);
	for (size_t i = 0; i < m->nlines && !err; i++) {
		const struct comm_line *l = &m->lines[i];
		char thr[512], code[1024];

		if (comm_hidden(m, o, l->w[CM_ALL], i)) {
			t->hidden = m->nlines - i;
			break;
		}
		comm_line_threads(p, l, thr, sizeof(thr));
		comm_line_code(p, l, code, sizeof(code));
		err = table_row(t) || table_cell(t, "0x%" PRIx64, l->line) ||
		      table_cell(t, "%s", l->object) || table_cell(t, "%" PRIu64, l->offset) ||
		      table_cell(t, "%.6g", l->w[CM_ALL]) || table_cell(t, "%.6g", l->w[CM_TS]) ||
		      table_cell(t, "%.6g", l->w[CM_FS]) || table_cell(t, "%" PRIu64, l->events) ||
		      table_cell(t, "%s", thr) || table_cell(t, "%s", code) ||
		      table_cell(t, "%.6g", l->w[CM_RC]) || table_cell(t, "%s", l->also ? l->also : "");
	}
	return err ? -ENOMEM : 0;
}

static int view_objects(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "object", "all:r", "ts:r", "fs:r", "fs_share:r",
					    "lines:r", "recycled:r", NULL };
	const struct comm_model *m = comm_get(p);
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Data objects", cols);
	for (size_t i = 0; i < m->nobjs && !err; i++) {
		const struct comm_object *b = &m->objs[i];

		if (comm_hidden(m, o, b->w[CM_ALL], i)) {
			t->hidden = m->nobjs - i;
			break;
		}
		err = table_row(t) || table_cell(t, "%s", b->name) ||
		      table_cell(t, "%.6g", b->w[CM_ALL]) || table_cell(t, "%.6g", b->w[CM_TS]) ||
		      table_cell(t, "%.6g", b->w[CM_FS]) ||
		      table_cell(t, "%.3f", b->w[CM_ALL] > 0 ? b->w[CM_FS] / b->w[CM_ALL] : 0) ||
		      table_cell(t, "%" PRIu64, b->lines) || table_cell(t, "%.6g", b->w[CM_RC]);
	}
	return err ? -ENOMEM : 0;
}

static int view_code(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "location", "all:r", "ts:r", "fs:r", "events:r",
					    "recycled:r", "inlined", NULL };
	const struct comm_model *m = comm_get(p);
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Code taking part in communication", cols);
	for (size_t i = 0; i < m->ncodes && !err; i++) {
		const struct comm_code *c = &m->codes[i];

		if (comm_hidden(m, o, c->w[CM_ALL], i)) {
			t->hidden = m->ncodes - i;
			break;
		}
		err = table_row(t) || table_cell(t, "%s", c->loc) ||
		      table_cell(t, "%.6g", c->w[CM_ALL]) || table_cell(t, "%.6g", c->w[CM_TS]) ||
		      table_cell(t, "%.6g", c->w[CM_FS]) || table_cell(t, "%" PRIu64, c->events) ||
		      table_cell(t, "%.6g", c->w[CM_RC]) || table_cell(t, "%s", c->inl ? c->inl : "");
	}
	return err ? -ENOMEM : 0;
}

/* "threads 1, 2 and 3" */
static size_t thread_list(const struct profile *p, const struct comm_line *l, int writers,
			  char *buf, size_t len)
{
	size_t o = 0, n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < l->nthr && o < len; i++) {
		char lab[32];

		if (writers && !l->thr[i].wbytes)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", n++ ? ", " : "",
				      profile_thread_label(p, l->thr[i].thread, lab, sizeof(lab)));
	}
	return n;
}

/*
 * A sentence per major finding: a line that carries at least 5% of all
 * communication, with COMM_FINDING_MIN_EVENTS events or more.  Its verdict
 * and advice come from the bytes each thread touched over the whole run
 * (comm_line_verdict), not from the per-access TS/FS split, which calls a
 * hand-off of elements between threads false sharing whenever two sampled
 * 8-byte ranges miss each other.
 */
static int view_findings(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "finding", NULL };
	const struct comm_model *m = comm_get(p);
	size_t shown = 0, thin = 0;
	int err = 0;

	(void)o;
	if (!m)
		return -ENOMEM;
	table_init(t, "Findings", cols);
	if (m->events == 0 || m->total[CM_ALL] <= 0)
		return table_row(t) || table_cell(t, "no communication between threads was detected") ?
		       -ENOMEM : 0;
	for (size_t i = 0; i < m->nlines && shown < 5 && !err; i++) {
		const struct comm_line *l = &m->lines[i];
		double share = l->w[CM_ALL] / m->total[CM_ALL];
		char who[256], bytes[512], code[512], what[200], also[300];
		const char *advice = "";
		enum comm_verdict v;
		uint64_t least;
		size_t nw;

		if (share < 0.05)
			break;
		if (l->events < COMM_FINDING_MIN_EVENTS) {
			thin++;
			continue;
		}
		v = comm_line_verdict(l, &least);
		nw = thread_list(p, l, 1, who, sizeof(who));
		if (!nw || v == CV_RECYCLED)
			thread_list(p, l, 0, who, sizeof(who));
		comm_line_threads(p, l, bytes, sizeof(bytes));
		comm_line_code(p, l, code, sizeof(code));
		if (l->also && l->also[0])
			snprintf(also, sizeof(also), "; the line also holds %s", l->also);
		else
			also[0] = '\0';
		if (v == CV_RECYCLED) {
			err = table_row(t) ||
			      table_cell(t, "recycled by the allocator on %s (offset %" PRIu64 ", line 0x%"
					 PRIx64 ", %.0f%% of all, %" PRIu64 " event%s): blocks one thread "
					 "freed were allocated again to another (threads %s), and the line "
					 "went with them; no data is shared, so padding cannot help; code: "
					 "%s; keep the threads (a pool) or each thread's block from one "
					 "round to the next to avoid it", l->object, l->offset, l->line,
					 share * 100, l->events, l->events == 1 ? "" : "s", who, code);
			shown++;
			continue;
		}
		if (v == CV_SAME_DATA) {
			snprintf(what, sizeof(what), "sharing of the same data");
			advice = "; the threads use the same bytes, so padding cannot help: share "
				 "them less often (a copy per thread, updates batched or reduced)";
		} else if (v == CV_FALSE) {
			snprintf(what, sizeof(what), "false sharing (%s confidence: each thread's "
				 "bytes stayed apart over %" PRIu64 "+ of its accesses, %.0f%% of "
				 "the line's sharing seen apart)",
				 comm_confidence_name(comm_line_confidence(l, least)), least,
				 100 * l->w[CM_FS] / (l->w[CM_TS] + l->w[CM_FS]));
			advice = "; pad or align the fields each thread writes to their own lines";
		} else {
			snprintf(what, sizeof(what), "%s sharing",
				 l->w[CM_FS] > l->w[CM_TS] ? "false" : "true");
		}
		err = table_row(t) ||
		      table_cell(t, "%s on %s (offset %" PRIu64 ", line 0x%" PRIx64 ", %.0f%% of all, "
				 "%" PRIu64 " event%s%s): thread%s %s %s%s; bytes by thread %s; code: %s%s",
				 what, l->object, l->offset, l->line, share * 100, l->events,
				 l->events == 1 ? "" : "s", also, nw > 1 || !nw ? "s" : "", who,
				 nw ? (nw > 1 ? "write" : "writes") : "access",
				 nw ? " it" : " it (none writes)", bytes, code, advice);
		shown++;
	}
	if (!err && thin)
		err = table_row(t) ||
		      table_cell(t, "%zu line%s 5%% or more of all communication on fewer than %d "
				 "events: too little evidence for a finding (the lines view lists "
				 "%s)", thin, thin == 1 ? " carries" : "s carry",
				 COMM_FINDING_MIN_EVENTS, thin == 1 ? "it" : "them");
	for (size_t i = 0; i < m->nobjs && i < 3 && !err; i++) {
		const struct comm_object *b = &m->objs[i];
		double share = b->w[CM_ALL] / m->total[CM_ALL];
		char rc[64] = "";

		if (share < 0.2 || b->lines < 2)
			continue;
		if (b->w[CM_RC] > 0)
			snprintf(rc, sizeof(rc), ", %.0f%% recycled by the allocator",
				 100 * b->w[CM_RC] / b->w[CM_ALL]);
		err = table_row(t) ||
		      table_cell(t, "%s carries %.0f%% of all communication over %" PRIu64
				 " lines, %.0f%% of it false sharing%s", b->name, share * 100, b->lines,
				 b->w[CM_ALL] > 0 ? 100 * b->w[CM_FS] / b->w[CM_ALL] : 0, rc);
	}
	if (!err && !shown && !thin)
		err = table_row(t) || table_cell(t, "communication is spread thin: no cache line "
					      "carries 5%% of it");
	return err ? -ENOMEM : 0;
}

/* Findings as wrapped bullet points: sentences, not table cells. */
static int view_findings_text(const struct profile *p, const struct view_opts *o, FILE *f,
			      int width)
{
	return view_items_text(view_findings, p, o, f, width);
}

const struct view comm_views[] = {
	{ "summary", "settings, totals (all, TS, FS), run and agent cost", view_summary, NULL },
	{ "findings", "one line per major finding: where to look", view_findings,
	  view_findings_text },
	{ "matrix", "all/TS/FS matrices at thread, core and node level", view_matrix,
	  view_matrix_text },
	{ "threads", "thread index to pid, tid and name, with totals", view_threads, NULL },
	{ "lines", "contended cache lines: object, offset, threads, code", view_lines, NULL },
	{ "objects", "data objects by communication", view_objects, NULL },
	{ "code", "source locations taking part in communication", view_code, NULL },
	{ "processes", "each process: parent, execs, how it ended", view_processes, NULL },
	{ NULL, NULL, NULL, NULL },
};

const char *const comm_report[] = { "summary", "findings", "matrix", "lines", "objects",
				    "code", NULL };
