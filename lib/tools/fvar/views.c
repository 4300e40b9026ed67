// SPDX-License-Identifier: GPL-2.0-only
/*
 * Views of `cdt fvar` profiles: the summary, findings (the functions the
 * paper's Table 1 flags, each with its contexts, spread, histogram and a
 * verdict), functions, contexts, threads, instances and drops.
 *
 * Time metrics are in ns in every table (CSV keeps exact units); the
 * findings print them with a unit for people.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/names.h"
#include "lib/core/view.h"
#include "lib/tools/fvar/model.h"
#include "lib/tools/fvar/parts.h"

#define KV(key, ...) (table_row(t) || table_cell(t, "%s", key) || table_cell(t, __VA_ARGS__))
#define FV_HIST_BINS 24
#define FV_FINDINGS 5

static const struct fv_model *fv_get(const struct profile *p)
{
	const struct fv_model *m = fvar_of(p);

	if (!m)
		errno = ENOMEM;
	return m;
}

/* Columns named for the metrics: "<metric>_<what>:r".  A table keeps
 * pointers to its column names, so they live here, one set per view. */
struct fv_cols {
	const char *c[TABLE_MAX_COLS + 1];
	char (*names)[40];
	int n;
};

static char fv_names_functions[FV_MAX_METRICS * 3][40], fv_names_contexts[FV_MAX_METRICS * 3][40],
	fv_names_instances[FV_MAX_METRICS][40];

static void fv_cols_add(struct fv_cols *c, const char *name)
{
	if (c->n < TABLE_MAX_COLS)
		c->c[c->n++] = name;
	c->c[c->n] = NULL;
}

static void fv_cols_list(struct fv_cols *c, const char *const *names)
{
	for (; *names; names++)
		fv_cols_add(c, *names);
}

static void fv_cols_metrics(struct fv_cols *c, const struct fv_model *m, const char *const *what,
			    int nwhat)
{
	int k = 0;

	for (uint32_t i = 0; i < m->nmetrics; i++)
		for (int w = 0; w < nwhat; w++, k++) {
			snprintf(c->names[k], sizeof(c->names[k]), "%s_%s:r", m->metric[i], what[w]);
			fv_cols_add(c, c->names[k]);
		}
}

static void fv_code(const struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
		    char *buf, size_t len)
{
	if (!addr) {
		snprintf(buf, len, "?");
		return;
	}
	names_code(p, pid, time, addr, buf, len);
}

/* A function's name alone ("f" of "f (a.c:12)"), from its entry. */
void fvar_func_name(const struct profile *p, const struct fv_func *f, char *buf, size_t len)
{
	const struct prof_sym *s = profile_sym(p, f->pid, f->time, SYM_CODE, f->entry);

	if (s && s->name)
		snprintf(buf, len, "%s", s->name);
	else
		fv_code(p, f->pid, f->time, f->entry, buf, len);
}

/* A call site: the call instruction ends just before the return address. */
static void fv_site(const struct profile *p, uint32_t pid, uint64_t time, uint64_t ret,
		    char *buf, size_t len)
{
	if (!ret)
		snprintf(buf, len, "(caller not found)");
	else
		fv_code(p, pid, time, ret - 1, buf, len);
}

/* "12.3 us": a value of metric k, with its unit (m NULL: ns). */
void fvar_value_text(const struct fv_model *m, uint32_t k, double v, char *buf, size_t len)
{
	if (m && !m->metric_ns[k])
		snprintf(buf, len, "%.4g", v);
	else if (v >= 1e9)
		snprintf(buf, len, "%.3g s", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.3g ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.3g us", v / 1e3);
	else
		snprintf(buf, len, "%.3g ns", v);
}

static int view_summary(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "key", "value", NULL };
	const struct fv_model *m = fv_get(p);
	size_t flagged = 0, untimed = 0;
	int err;

	(void)o;
	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < m->nfn; i++) {
		flagged += m->fn[i].flagged != 0;
		untimed += m->fn[i].untimed != 0;
	}
	table_init(t, NULL, cols);
	err = view_summary_run(p, t);
	if (!err)
		err = KV("instances", "%" PRIu64, m->instances) ||
		      KV("fvar_samples", "%" PRIu64, m->samples) ||
		      KV("functions", "%zu", m->nfn) ||
		      KV("functions_flagged", "%zu", flagged) ||
		      KV("functions_untimed", "%zu", untimed) ||
		      KV("calibration_runs", "%u", m->calib_runs);
	for (uint32_t k = 0; k < m->nmetrics && !err; k++) {
		char key[48];

		snprintf(key, sizeof(key), "bias_%s", m->metric[k]);
		err = KV(key, "%.6g", m->bias[k]);
		snprintf(key, sizeof(key), "resolution_%s", m->metric[k]);
		err = err || KV(key, "%.6g", FV_RESOLUTION * m->spread[k]);
	}
	for (int c = 1; c < FV_NCAUSE && !err; c++) {
		char key[48];

		snprintf(key, sizeof(key), "%s_%s", c == FV_NOTE_FOREIGN ? "reads" : "dropped",
			 fv_cause_name(c));
		err = KV(key, "%" PRIu64, m->drops[c]);
	}
	if (!err)
		err = view_summary_errors(p, t);
	return err ? -ENOMEM : 0;
}

/* The instances kept for function f, all its contexts: metric 0's values,
 * and with times, when each began (ns).  NULL on ENOMEM. */
double *fvar_instances(const struct fv_model *m, size_t f, double **times, size_t *n)
{
	size_t total = 0, k = 0;
	double *v, *t = NULL;

	for (size_t i = 0; i < m->nctx; i++)
		if (m->ctx[i].func == f)
			total += m->ctx[i].nres;
	*n = 0;
	v = malloc((total ? total : 1) * sizeof(*v));
	if (times)
		t = *times = malloc((total ? total : 1) * sizeof(*t));
	if (!v || (times && !t)) {
		free(v);
		free(t);
		return NULL;
	}
	for (size_t i = 0; i < m->nctx; i++)
		for (size_t j = 0; m->ctx[i].func == f && j < m->ctx[i].nres; j++, k++) {
			v[k] = m->ctx[i].res[j].v[0];
			if (t)
				t[k] = (double)m->ctx[i].res[j].time;
		}
	*n = k;
	return v;
}

static int fv_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A histogram of sorted values as one character per bin, heights in
 * "_.:-=+*#%@" (no space: the findings wrap at spaces), linear from the
 * smallest to the largest value. */
static void fv_sparkline(const double *v, size_t n, char *buf, size_t len)
{
	static const char levels[] = "_.:-=+*#%@";
	unsigned bins[FV_HIST_BINS] = { 0 }, most = 0;
	double lo = n ? v[0] : 0, hi = n ? v[n - 1] : 0;

	for (size_t i = 0; i < n; i++) {
		int b = hi > lo ? (int)((v[i] - lo) / (hi - lo) * FV_HIST_BINS) : 0;

		if (b >= FV_HIST_BINS)
			b = FV_HIST_BINS - 1;
		if (++bins[b] > most)
			most = bins[b];
	}
	for (size_t b = 0; b < FV_HIST_BINS && b + 1 < len; b++) {
		size_t l = bins[b] && most ? 1 + (size_t)((double)(bins[b] - 1) * 8.0 / most) : 0;

		buf[b] = levels[l > 9 ? 9 : l];
		buf[b + 1] = '\0';
	}
}

/*
 * Two modes, if the sorted values split into two groups that each hold a
 * tenth or more of them and whose means lie further apart than twice the
 * sum of their spreads: the best split of one dimension into two (the
 * least within-group sum of squares), found with prefix sums.
 */
static int fv_modes(const double *v, size_t n, double mean[2], double frac[2])
{
	double sum = 0, sq = 0, best = INFINITY, ls = 0, lq = 0;
	size_t cut = 0;

	if (n < 20)
		return 0;
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		sq += v[i] * v[i];
	}
	for (size_t i = 1; i < n; i++) {
		double rs, rq, w;

		ls += v[i - 1];
		lq += v[i - 1] * v[i - 1];
		rs = sum - ls;
		rq = sq - lq;
		w = (lq - ls * ls / (double)i) + (rq - rs * rs / (double)(n - i));
		if (w < best) {
			best = w;
			cut = i;
		}
	}
	if (cut < n / 10 || n - cut < n / 10)
		return 0;
	{
		double s0 = 0, q0 = 0, s1 = 0, q1 = 0, sd0, sd1;

		for (size_t i = 0; i < cut; i++) {
			s0 += v[i];
			q0 += v[i] * v[i];
		}
		s1 = sum - s0;
		q1 = sq - q0;
		mean[0] = s0 / (double)cut;
		mean[1] = s1 / (double)(n - cut);
		sd0 = sqrt(fmax(q0 / (double)cut - mean[0] * mean[0], 0));
		sd1 = sqrt(fmax(q1 / (double)(n - cut) - mean[1] * mean[1], 0));
		frac[0] = (double)cut / (double)n;
		frac[1] = 1 - frac[0];
		return mean[1] - mean[0] > 2 * (sd0 + sd1);
	}
}

const char *fvar_verdict(const struct fv_model *m, const struct fv_func *f)
{
	int costly = fv_share(m, &f->st) > m->flag_share;
	int varies = f->st.cv_intra > m->flag_cv || f->st.cv_threads > m->flag_cv_threads;

	if (f->untimed)
		return costly ? "a high cost in calls shorter than cdt can time here: their number, "
				"not their spread, is the cost" :
				"calls shorter than cdt can time here";
	if (costly && varies)
		return f->st.cv_threads > m->flag_cv_threads && f->st.cv_intra <= m->flag_cv ?
		       "high cost, uneven across threads: look at how the work is divided" :
		       "high variance, high cost: look at what differs between calls";
	if (costly)
		return "high cost, steady: its variance is not the problem";
	if (varies)
		return "varies, but little of the run: reducing its variance gains little";
	return "little of the run, steady: nothing to do about variance";
}

/* Function f's top 3 call sites, with their instances and commonest paths. */
static void fv_sites(const struct profile *p, const struct fv_model *m, size_t f, char *sites,
		     size_t len)
{
	size_t o = 0, shown = 0;

	sites[0] = '\0';
	for (size_t i = 0; i < m->nctx && shown < 3; i++) {
		const struct fv_ctx *x = &m->ctx[i];
		char site[256];

		if (x->func != f || !x->st.m[0].n)
			continue;
		fv_site(p, x->pid, x->time, x->ret, site, sizeof(site));
		o += (size_t)snprintf(sites + o, len - (o < len ? o : len), "%s%s (%" PRIu64 ")",
				      shown ? "; " : "", site, x->st.m[0].n);
		if (x->npath && o < len)
			o += (size_t)snprintf(sites + o, len - o, " via %s (%.0f%% of %" PRIu64
					      " paths)", x->path[0].text,
					      100.0 * (double)x->path[0].n / (double)x->path_n,
					      x->path_n);
		if (o >= len)
			o = len - 1;
		shown++;
	}
}

/* One finding: function f, its top contexts, its spread and verdict. */
static int fv_finding(const struct profile *p, const struct fv_model *m, size_t f,
		      struct table *t)
{
	const struct fv_func *fn = &m->fn[f];
	char name[256], sites[2048], metrics[512] = "", spark[FV_HIST_BINS + 1] = "";
	char modes[160] = "", lo[32], hi[32], a[32], b[32], across[64] = "";
	double mean[2], frac[2], calls = fv_calls(m, &fn->st);
	size_t n = 0, o = 0;
	double *v;
	int err;

	fvar_func_name(p, fn, name, sizeof(name));
	fv_sites(p, m, f, sites, sizeof(sites));
	if (fn->untimed) {
		fvar_value_text(m, 0, fv_resolution(m), a, sizeof(a));
		return table_row(t) ||
		       table_cell(t, "%s: shorter than cdt can time here (resolution %s)%s; "
				  "%.0f%% of the run's samples; at least %.3g calls; %" PRIu64
				  " instance%s measured, each within cdt's noise: no mean, no "
				  "spread; called from %s",
				  name, a, fv_share(m, &fn->st) > m->flag_share ?
				  ", a high cost: their number, not their spread, is the cost" : "",
				  fv_share(m, &fn->st) * 100, calls,
				  fn->st.m[0].n, fn->st.m[0].n == 1 ? "" : "s",
				  sites[0] ? sites : "?") ? -ENOMEM : 0;
	}
	for (uint32_t k = 0; k < m->nmetrics; k++) {
		const struct welford *w = &fn->st.m[k];

		fvar_value_text(m, k, w->mean, a, sizeof(a));
		fvar_value_text(m, k, welford_sd(w), b, sizeof(b));
		o += (size_t)snprintf(metrics + o, sizeof(metrics) - (o < sizeof(metrics) ? o : sizeof(metrics)),
				      "%s%s mean %s sd %s cv %.0f%%", k ? "; " : "", m->metric[k], a,
				      b, welford_cv(w) * 100);
		if (o >= sizeof(metrics))
			o = sizeof(metrics) - 1;
	}
	v = fvar_instances(m, f, NULL, &n);
	if (!v)
		return -ENOMEM;
	qsort(v, n, sizeof(*v), fv_dcmp);
	if (n) {
		fv_sparkline(v, n, spark, sizeof(spark));
		fvar_value_text(m, 0, v[0], lo, sizeof(lo));
		fvar_value_text(m, 0, v[n - 1], hi, sizeof(hi));
	}
	if (fv_modes(v, n, mean, frac)) {
		fvar_value_text(m, 0, mean[0], a, sizeof(a));
		fvar_value_text(m, 0, mean[1], b, sizeof(b));
		snprintf(modes, sizeof(modes), "; two modes: %s (%.0f%%) and %s (%.0f%%)", a,
			 frac[0] * 100, b, frac[1] * 100);
	}
	free(v);
	if (fn->st.nthreads > 1)
		snprintf(across, sizeof(across), ", across %u threads %.0f%%", fn->st.nthreads,
			 fn->st.cv_threads * 100);
	err = table_row(t) ||
	      table_cell(t, "%s: %s; %.0f%% of the run's samples; %" PRIu64 " instance%s measured "
			 "of about %.3g calls; %s; cv within threads %.0f%%%s; called from %s; "
			 "%s: [%s %s %s]%s",
			 name, fvar_verdict(m, fn), fv_share(m, &fn->st) * 100, fn->st.m[0].n,
			 fn->st.m[0].n == 1 ? "" : "s", calls, metrics, fn->st.cv_intra * 100,
			 across, sites[0] ? sites : "?", m->nmetrics ? m->metric[0] : "?",
			 n ? lo : "-", spark, n ? hi : "-", modes);
	return err ? -ENOMEM : 0;
}

/* Function f for a page of its own: name, verdict, numbers, call sites
 * and drops, one item per line, into buf. */
void fvar_func_text(const struct profile *p, const struct fv_model *m, size_t f, char *name,
		    size_t namelen, char *buf, size_t len)
{
	const struct fv_func *fn = &m->fn[f];
	FILE *out = fmemopen(buf, len, "w");

	buf[0] = '\0';
	if (!out)
		return;
#define PUT(...) fprintf(out, __VA_ARGS__)
	fvar_func_name(p, fn, name, namelen);
	PUT("%s\n%s%s\n\n", name, fn->flagged ? "flagged: " : "", fvar_verdict(m, fn));
	if (fn->untimed) {
		char r[32];

		fvar_value_text(m, 0, fv_resolution(m), r, sizeof(r));
		PUT("%.1f%% of the run's samples; at least %.3g calls; %" PRIu64 " instances "
		    "measured, each under cdt's resolution here (%s): no mean, no spread\n",
		    fv_share(m, &fn->st) * 100, fv_calls(m, &fn->st), fn->st.m[0].n, r);
	} else {
		PUT("%.1f%% of the run's samples; %" PRIu64 " instances measured of about %.3g "
		    "calls\n", fv_share(m, &fn->st) * 100, fn->st.m[0].n, fv_calls(m, &fn->st));
	}
	for (uint32_t k = 0; k < m->nmetrics && !fn->untimed; k++) {
		const struct welford *w = &fn->st.m[k];
		char a[32], b[32], lo[32], hi[32];

		fvar_value_text(m, k, w->mean, a, sizeof(a));
		fvar_value_text(m, k, welford_sd(w), b, sizeof(b));
		fvar_value_text(m, k, w->min, lo, sizeof(lo));
		fvar_value_text(m, k, w->max, hi, sizeof(hi));
		PUT("%-8s mean %s  sd %s  cv %.0f%%  from %s to %s\n", m->metric[k], a, b,
		    welford_cv(w) * 100, lo, hi);
	}
	if (!fn->untimed)
		PUT("cv within threads %.0f%%", fn->st.cv_intra * 100);
	if (fn->st.nthreads > 1)
		PUT("%sacross %u threads %.0f%% (of their samples)", fn->untimed ? "" : "; ",
		    fn->st.nthreads, fn->st.cv_threads * 100);
	PUT("\n\nCall sites:\n");
	for (size_t i = 0; i < m->nctx; i++) {
		const struct fv_ctx *x = &m->ctx[i];
		char site[256], a[32];

		if (x->func != f || (!x->st.m[0].n && !x->st.samples))
			continue;
		fv_site(p, x->pid, x->time, x->ret, site, sizeof(site));
		fvar_value_text(m, 0, x->st.m[0].mean, a, sizeof(a));
		if (fn->untimed)
			PUT("  %s: %" PRIu64 " instances, %.1f%% of the samples\n", site,
			    x->st.m[0].n, fv_share(m, &x->st) * 100);
		else
			PUT("  %s: %" PRIu64 " instances, mean %s, cv %.0f%%, %.1f%% of the samples\n",
			    site, x->st.m[0].n, a, welford_cv(&x->st.m[0]) * 100,
			    fv_share(m, &x->st) * 100);
		for (uint32_t k = 0; k < x->npath; k++)
			PUT("    via %s (%" PRIu64 " of %" PRIu64 " paths)\n", x->path[k].text,
			    x->path[k].n, x->path_n);
	}
	for (int c = 1; c < FV_NCAUSE; c++)
		if (fn->st.drops[c])
			PUT("%s %s: %" PRIu64 "\n", c == FV_NOTE_FOREIGN ? "slot read by other code," :
			    "dropped,", fv_cause_name(c), fn->st.drops[c]);
#undef PUT
	fclose(out);
}

static int view_findings(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "finding", NULL };
	const struct fv_model *m = fv_get(p);
	const char *traps = profile_meta(p, "debug_traps");
	size_t shown = 0;
	int err = 0;

	(void)o;
	if (!m)
		return -ENOMEM;
	table_init(t, "Findings", cols);
	/* The run's reason first: without traps the drop counts say nothing. */
	if (!m->instances && traps)
		return table_row(t) ||
		       table_cell(t, "no function instance was measured (%" PRIu64 " samples): "
				  "debug-register traps were %s on the machine of the run, and "
				  "fvar times an instance between two of them; the functions' "
				  "shares of the samples stand", m->samples, traps) ? -ENOMEM : 0;
	if (!m->instances)
		return table_row(t) ||
		       table_cell(t, "no function instance was measured (%" PRIu64 " samples; see "
				  "the dropped_* counts in the summary)", m->samples) ? -ENOMEM : 0;
	/* Flagged functions first (the order), then the costliest measured. */
	for (size_t i = 0; i < m->nfn && shown < FV_FINDINGS && !err; i++) {
		size_t f = m->order[i];

		if (m->fn[f].st.m[0].n < 2)
			continue;
		err = fv_finding(p, m, f, t);
		shown++;
	}
	return err;
}

static int view_findings_text(const struct profile *p, const struct view_opts *o, FILE *f,
			      int width)
{
	return view_items_text(view_findings, p, o, f, width);
}

/* The metrics' mean, sd and cv; empty for an untimed function's. */
static int fv_stats_cells(struct table *t, const struct fv_model *m, const struct fv_stats *st,
			  int untimed)
{
	int err = 0;

	for (uint32_t k = 0; k < m->nmetrics && !err; k++)
		err = untimed ? table_cell(t, "%s", "") || table_cell(t, "%s", "") ||
				table_cell(t, "%s", "") :
		      table_cell(t, "%.6g", st->m[k].mean) ||
		      table_cell(t, "%.6g", welford_sd(&st->m[k])) ||
		      table_cell(t, "%.4f", welford_cv(&st->m[k]));
	return err;
}

static const char *const fv_what[] = { "mean", "sd", "cv" };

/* A CV, empty for an untimed function. */
static int fv_cv_cell(struct table *t, int untimed, double cv)
{
	return untimed ? table_cell(t, "%s", "") : table_cell(t, "%.4f", cv);
}

static int view_functions(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const struct fv_model *m = fv_get(p);
	struct fv_cols c = { .names = fv_names_functions };
	int err = 0;

	if (!m)
		return -ENOMEM;
	fv_cols_list(&c, (const char *const[]){ "function", "flagged:r", "instances:r",
						"calls_est:r", "share:r", "cv:r", "cv_intra:r",
						"cv_threads:r", "threads:r", "timed:r", NULL });
	fv_cols_metrics(&c, m, fv_what, 3);
	table_init(t, "Functions, flagged first, then by share of the run", c.c);
	for (size_t i = 0; i < m->nfn && !err; i++) {
		const struct fv_func *f = &m->fn[m->order[i]];
		char name[256];

		if (o->top && t->nrows >= o->top) {
			t->hidden++;
			continue;
		}
		fvar_func_name(p, f, name, sizeof(name));
		err = table_row(t) || table_cell(t, "%s", name) ||
		      table_cell(t, "%d", f->flagged) ||
		      table_cell(t, "%" PRIu64, f->st.m[0].n) ||
		      table_cell(t, "%.0f", fv_calls(m, &f->st)) ||
		      table_cell(t, "%.4f", fv_share(m, &f->st)) ||
		      fv_cv_cell(t, f->untimed, welford_cv(&f->st.m[0])) ||
		      fv_cv_cell(t, f->untimed, f->st.cv_intra) ||
		      table_cell(t, "%.4f", f->st.cv_threads) ||
		      table_cell(t, "%u", f->st.nthreads) || table_cell(t, "%d", f->st.m[0].n && !f->untimed) ||
		      fv_stats_cells(t, m, &f->st, f->untimed);
	}
	return err ? -ENOMEM : 0;
}

static int view_contexts(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const struct fv_model *m = fv_get(p);
	struct fv_cols c = { .names = fv_names_contexts };
	int err = 0;

	if (!m)
		return -ENOMEM;
	fv_cols_list(&c, (const char *const[]){ "function", "call_site", "instances:r", "share:r",
						"cv:r", NULL });
	fv_cols_metrics(&c, m, fv_what, 3);
	fv_cols_add(&c, "call_path");
	fv_cols_add(&c, "path_share:r");
	fv_cols_add(&c, "paths:r");
	table_init(t, "Functions by calling context (call site)", c.c);
	for (size_t r = 0; r < m->nfn && !err; r++) {
		size_t f = m->order[r];

		for (size_t i = 0; i < m->nctx && !err; i++) {
			const struct fv_ctx *x = &m->ctx[i];
			char name[256], site[256];

			if (x->func != f || !x->st.m[0].n)
				continue;
			if (o->top && t->nrows >= o->top) {
				t->hidden++;
				continue;
			}
			fvar_func_name(p, &m->fn[x->func], name, sizeof(name));
			fv_site(p, x->pid, x->time, x->ret, site, sizeof(site));
			err = table_row(t) || table_cell(t, "%s", name) ||
			      table_cell(t, "%s", site) ||
			      table_cell(t, "%" PRIu64, x->st.m[0].n) ||
			      table_cell(t, "%.4f", fv_share(m, &x->st)) ||
			      fv_cv_cell(t, m->fn[f].untimed, welford_cv(&x->st.m[0])) ||
			      fv_stats_cells(t, m, &x->st, m->fn[f].untimed) ||
			      table_cell(t, "%s", x->npath ? x->path[0].text : "") ||
			      table_cell(t, "%.4f", x->path_n ? (double)x->path[0].n /
								  (double)x->path_n : 0.0) ||
			      table_cell(t, "%u", x->npath);
		}
	}
	return err ? -ENOMEM : 0;
}

static int view_threads(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const struct fv_model *m = fv_get(p);
	const char *cols[] = { "function", view_thread_col(p, "thread:r", "thread"),
			       "samples:r", "share_of_function:r", "instances:r", "mean:r", NULL };
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Functions by thread (metric 0's mean; samples for the spread)", cols);
	for (size_t r = 0; r < m->nfn && !err; r++) {
		size_t f = m->order[r];

		for (size_t i = 0; i < m->nthr && !err; i++) {
			const struct fv_thr *x = &m->thr[i];
			const struct fv_func *fn = &m->fn[f];
			char name[256], lab[32];

			if (x->func != f)
				continue;
			if (o->top && t->nrows >= o->top) {
				t->hidden++;
				continue;
			}
			fvar_func_name(p, fn, name, sizeof(name));
			err = table_row(t) || table_cell(t, "%s", name) ||
			      table_cell(t, "%s", profile_thread_label(p, x->thread, lab, sizeof(lab))) ||
			      table_cell(t, "%" PRIu64, x->samples) ||
			      table_cell(t, "%.4f", fn->st.samples ?
					 (double)x->samples / (double)fn->st.samples : 0) ||
			      table_cell(t, "%" PRIu64, x->m0.n) ||
			      (fn->untimed ? table_cell(t, "%s", "") :
					     table_cell(t, "%.6g", x->m0.mean));
		}
	}
	return err ? -ENOMEM : 0;
}

/* One kept instance as a row of the instances view or the timeline. */
typedef int (*fv_inst_row)(const struct profile *p, const struct fv_model *m, struct table *t,
			   const char *name, const char *site, const struct fv_ctx *x,
			   const struct fv_inst *in);

/* The table of the kept instances: columns cols, then one per metric;
 * each row begins with what row() writes, and ends with the metrics. */
static int fv_instances(const struct profile *p, const struct view_opts *o, struct table *t,
			const char *title, const char *const *cols, fv_inst_row row)
{
	const struct fv_model *m = fv_get(p);
	struct fv_cols c = { .names = fv_names_instances };
	int err = 0;

	if (!m)
		return -ENOMEM;
	fv_cols_list(&c, cols);
	for (uint32_t k = 0; k < m->nmetrics; k++) {
		snprintf(c.names[k], sizeof(c.names[k]), "%s:r", m->metric[k]);
		fv_cols_add(&c, c.names[k]);
	}
	table_init(t, title, c.c);
	for (size_t i = 0; i < m->nctx && !err; i++) {
		const struct fv_ctx *x = &m->ctx[i];
		char name[256], site[256];

		if (!x->nres)
			continue;
		fvar_func_name(p, &m->fn[x->func], name, sizeof(name));
		fv_site(p, x->pid, x->time, x->ret, site, sizeof(site));
		for (size_t j = 0; j < x->nres && !err; j++) {
			if (o->top && t->nrows >= o->top) {
				t->hidden++;
				continue;
			}
			err = table_row(t) || row(p, m, t, name, site, x, &x->res[j]);
			for (uint32_t k = 0; k < m->nmetrics && !err; k++)
				err = table_cell(t, "%.0f", x->res[j].v[k]);
		}
	}
	return err ? -ENOMEM : 0;
}

static double fv_since(const struct fv_model *m, const struct fv_inst *in)
{
	return in->time >= m->start ? (double)(in->time - m->start) : 0;
}

static int fv_inst_cells(const struct profile *p, const struct fv_model *m, struct table *t,
			 const char *name, const char *site, const struct fv_ctx *x,
			 const struct fv_inst *in)
{
	char lab[32];

	(void)x;
	return table_cell(t, "%s", name) || table_cell(t, "%s", site) ||
	       table_cell(t, "%s", profile_thread_label(p, in->thread, lab, sizeof(lab))) ||
	       table_cell(t, "%.9f", fv_since(m, in) / 1e9);
}

static int view_instances(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { "function", "call_site", view_thread_col(p, "thread:r", "thread"),
			       "time_s:r", NULL };
	int err = fv_instances(p, o, t, "Instances kept (a reservoir per context), by time", cols,
			       fv_inst_cells);

	if (!err && !o->sort) {
		int col = table_col(t, "time_s");

		err = col >= 0 ? table_sort(t, col) : 0;
		/* table_sort puts numbers largest first; a timeline reads forward. */
		for (size_t a = 0, b = t->nrows ? t->nrows - 1 : 0; !err && a < b; a++, b--)
			for (int k = 0; k < t->ncols; k++) {
				char *tmp = t->cells[a * (size_t)t->ncols + (size_t)k];

				t->cells[a * (size_t)t->ncols + (size_t)k] =
					t->cells[b * (size_t)t->ncols + (size_t)k];
				t->cells[b * (size_t)t->ncols + (size_t)k] = tmp;
			}
	}
	return err;
}

/* An instance as a slice of its thread from its entry, as long as its
 * wall time (else its first metric). */
static int fv_trace_cells(const struct profile *p, const struct fv_model *m, struct table *t,
			  const char *name, const char *site, const struct fv_ctx *x,
			  const struct fv_inst *in)
{
	uint32_t dur = 0;

	for (uint32_t k = 0; k < m->nmetrics; k++)
		if (!strcmp(m->metric[k], "wall"))
			dur = k;
	return table_cell(t, "%s", name) || table_cell(t, "%u", profile_os_pid(p, x->pid)) ||
	       table_cell(t, "%u", in->thread) || table_cell(t, "%.3f", fv_since(m, in) / 1e3) ||
	       table_cell(t, "%.3f", m->nmetrics ? in->v[dur] / 1e3 : 0) ||
	       table_cell(t, "%s", site);
}

/* The instances kept as a timeline (--format chrome). */
int fvar_timeline(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "name", "pid:r", "tid:r", "ts_us:r", "dur_us:r",
					    "call_site", NULL };

	return fv_instances(p, o, t, "Instances", cols, fv_trace_cells);
}

static int view_drops(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "function", "call_site", "cause", "count:r", NULL };
	const struct fv_model *m = fv_get(p);
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Instances not measured, by cause", cols);
	for (size_t i = 0; i < m->nctx && !err; i++) {
		const struct fv_ctx *x = &m->ctx[i];
		char name[256], site[256];

		for (int c = 1; c < FV_NCAUSE && !err; c++) {
			if (!x->st.drops[c])
				continue;
			if (o->top && t->nrows >= o->top) {
				t->hidden++;
				continue;
			}
			fvar_func_name(p, &m->fn[x->func], name, sizeof(name));
			fv_site(p, x->pid, x->time, x->ret, site, sizeof(site));
			err = table_row(t) || table_cell(t, "%s", name) || table_cell(t, "%s", site) ||
			      table_cell(t, "%s", fv_cause_name(c)) ||
			      table_cell(t, "%" PRIu64, x->st.drops[c]);
		}
	}
	if (!err && !o->sort) {
		int col = table_col(t, "count");

		err = col >= 0 ? table_sort(t, col) : 0;
	}
	return err ? -ENOMEM : 0;
}

const struct view fvar_views[] = {
	{ "summary", "settings, instances, drops by cause, run and agent cost", view_summary,
	  NULL },
	{ "findings", "the functions to look at: cost, variance, contexts, histogram",
	  view_findings, view_findings_text },
	{ "functions", "per function: instances, calls, share, CV, each metric", view_functions,
	  NULL },
	{ "contexts", "per function and call site", view_contexts, NULL },
	{ "threads", "per function and thread: samples and instances", view_threads, NULL },
	{ "instances", "the instances kept, by time", view_instances, NULL },
	{ "drops", "instances not measured, by function and cause", view_drops, NULL },
	{ "processes", "each process: parent, execs, how it ended", view_processes, NULL },
	{ NULL, NULL, NULL, NULL },
};

const char *const fvar_report[] = { "summary", "findings", "functions", NULL };
