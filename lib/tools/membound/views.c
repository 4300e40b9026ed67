// SPDX-License-Identifier: GPL-2.0-only
/*
 * Views of `cdt membound` profiles: the verdicts per phase, the intervals,
 * the threads, a timeline of sparklines, and the summary.  Columns are
 * documented in cdt-membound(1) and stay stable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tools/membound/model.h"
#include "lib/tools/membound/parts.h"

#define KV(key, ...) (table_row(t) || table_cell(t, "%s", key) || table_cell(t, __VA_ARGS__))

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* 1.5 KiB, 12 MiB, 3.1 GiB */
static const char *bytes_text(double v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", v, unit[u]);
	return buf;
}

static const char *level_col(const struct mb_tally *x)
{
	return x->level >= 0 ? mb_level_name(x->level) : "";
}

/* "achieved ~44 GB/s of a measured 48.6 GB/s DRAM peak (2 threads, 33%
 * of the bytes written), 160 pairs; " or nothing. */
static size_t mb_bw_text(const struct mb_tally *x, char *buf, size_t len)
{
	int n;

	char run[64] = "";

	if (x->bw < 0 || x->bw_peak <= 0 || x->level < 0)
		return 0;
	/* Threads that waited for a CPU drew more while they ran. */
	if (x->bw_run > 1.1 * x->bw)
		snprintf(run, sizeof(run), " (%.3g GB/s while its threads ran)", x->bw_run / 1e9);
	n = snprintf(buf, len, "achieved ~%.3g GB/s%s of a measured %.3g GB/s %s peak (%u thread%s, "
		     "%.0f%% of the bytes written), %" PRIu64 " pairs; ", x->bw / 1e9, run,
		     x->bw_peak / 1e9, mb_level_name(x->level), x->pr_threads,
		     x->pr_threads == 1 ? "" : "s",
		     100 * (x->pr_bytes > 0 ? x->pr_wbytes / x->pr_bytes : 0), x->pr_valid);
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* The soft estimate's evidence for a verdict, in words. */
static void mb_evidence(const struct mb_model *m, const struct mb_tally *x, char *buf,
			size_t len)
{
	char fp[32], sz[32];
	size_t n;

	if (m->pmu) {
		snprintf(buf, len, "memory bound %.0f%% of cycles, bandwidth bound %.0f%%, "
			 "latency bound %.0f%%%s", 100 * x->mem_bound, 100 * x->bw_bound,
			 100 * x->lat_bound, x->scaled ? " (multiplexed counters, scaled)" : "");
		return;
	}
	bytes_text(x->footprint, fp, sizeof(fp));
	n = (size_t)snprintf(buf, len, "estimate: ");
	n += mb_bw_text(x, buf + n, len - n);
	buf += n;
	len -= n;
	switch (x->verdict) {
	case MB_V_LATENCY:
		snprintf(buf, len, "%.0f%% of the sampled lines about to be loaded were "
			 "in %s, %.0f%% in L3", 100 * share(x->where[MB_W_DRAM], x->probed),
			 x->level == MB_DRAM ? "DRAM" : "L3 or DRAM",
			 100 * share(x->where[MB_W_L3], x->probed));
		break;
	case MB_V_BANDWIDTH:
		if (x->level > MB_L1 && x->level <= MB_DRAM && m->cal.size[x->level - 1] > 0)
			bytes_text(m->cal.size[x->level - 1], sz, sizeof(sz));
		else
			snprintf(sz, sizeof(sz), "-");
		snprintf(buf, len, "%.0f%% of the time at memory instructions, working "
			 "set ~%s%s%s, %.0f%% of the lines about to be loaded beyond L2",
			 100 * share(x->mem, x->samples), fp,
			 x->level > MB_L1 ? " > " : " in L1", x->level > MB_L1 ? sz : "",
			 100 * share(x->where[MB_W_L3] + x->where[MB_W_DRAM], x->probed));
		break;
	case MB_V_UNKNOWN:
		if (x->samples >= MB_MIN_SAMPLES) {
			snprintf(buf, len, "%.0f%% of the time at memory instructions, working set "
				 "~%s beyond the caches, and %" PRIu64 " pairs of samples that "
				 "moved through it (%d needed)", 100 * share(x->mem, x->samples), fp,
				 x->pr_valid, MB_RATE_MIN_PAIRS);
			break;
		}
		snprintf(buf, len, "%" PRIu64 " samples (%d needed)", x->samples, MB_MIN_SAMPLES);
		break;
	default:
		snprintf(buf, len, "%.0f%% of the time at memory instructions, working "
			 "set ~%s", 100 * share(x->mem, x->samples), fp);
	}
}

/* "bandwidth bound at DRAM", "not memory bound", ... */
static void mb_verdict_text(const struct mb_tally *x, char *buf, size_t len)
{
	switch (x->verdict) {
	case MB_V_BANDWIDTH:
	case MB_V_LATENCY:
		snprintf(buf, len, "%s bound at %s", mb_verdict_name(x->verdict),
			 mb_level_name(x->level));
		break;
	case MB_V_NOT_MEMORY:
		snprintf(buf, len, "not memory bound");
		break;
	default:
		snprintf(buf, len, "too few samples to tell");
	}
}

/* GB/s (10^9 bytes/s); empty when not measured. */
static int gbs_cell(struct table *t, double v)
{
	return v >= 0 ? table_cell(t, "%.2f", v / 1e9) : table_cell(t, "%s", "");
}

static int gbs_kv(struct table *t, const char *key, double v)
{
	return table_row(t) || table_cell(t, "%s", key) || gbs_cell(t, v);
}

static int view_summary(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "key", "value", NULL };
	const struct mb_model *m = membound_of(p);
	const char *v;
	char verdict[64], fp[32];
	int err;

	(void)o;
	if (!m)
		return -ENOMEM;
	table_init(t, NULL, cols);
	mb_verdict_text(&m->all, verdict, sizeof(verdict));
	v = profile_meta(p, "membound_method");
	err = view_summary_run(p, t) ||
	      KV("method", "%s", v ? v : "?") ||
	      KV("counters", "%s", (v = profile_meta(p, "membound_counters")) ? v : "") ||
	      KV("calibration", "%s%s", m->cal.have ? "" : "none in this profile",
		 m->cal.have ? ((v = profile_meta(p, "calib_quick")) && !strcmp(v, "1") ?
				"quick" : "full") : "") ||
	      KV("intervals", "%zu", m->niv) ||
	      KV("interval_ms", "%" PRIu64, m->interval_ns / 1000000) ||
	      KV("phases", "%zu", m->nph) ||
	      KV("samples", "%" PRIu64, m->all.samples) ||
	      KV("probed", "%" PRIu64, m->all.probed) ||
	      KV("probe_faulted", "%" PRIu64, m->all.faulted) ||
	      KV("mem_share", "%.3f", share(m->all.mem, m->all.samples)) ||
	      KV("dram_share", "%.3f", share(m->all.where[MB_W_DRAM], m->all.probed)) ||
	      KV("l3_share", "%.3f", share(m->all.where[MB_W_L3], m->all.probed)) ||
	      KV("footprint", "%s", bytes_text(m->all.footprint, fp, sizeof(fp))) ||
	      KV("pairs", "%" PRIu64, m->all.pr_n) ||
	      KV("pairs_valid", "%" PRIu64, m->all.pr_valid) ||
	      gbs_kv(t, "achieved_gbs", m->all.bw) ||
	      gbs_kv(t, "peak_gbs", m->all.bw_peak) ||
	      gbs_kv(t, "running_gbs", m->all.bw_run) ||
	      KV("l1_bytes", "%.0f", m->cal.size[MB_L1]) ||
	      KV("l2_bytes", "%.0f", m->cal.size[MB_L2]) ||
	      KV("l3_bytes", "%.0f", m->cal.size[MB_L3]) ||
	      KV("verdict", "%s", verdict);
	if (!err)
		err = view_summary_errors(p, t);
	return err ? -ENOMEM : 0;
}

/* The cells every row of a tally has, from verdict to scaled (the
 * counter metrics empty under the soft estimate). */
static int tally_cells(struct table *t, const struct mb_model *m, const struct mb_tally *x)
{
	const double pmu[5] = { x->active, x->productive, x->mem_bound, x->bw_bound,
				x->lat_bound };
	int err = table_cell(t, "%s", mb_verdict_name(x->verdict)) ||
		  table_cell(t, "%s", level_col(x)) ||
		  table_cell(t, "%" PRIu64, x->samples) ||
		  table_cell(t, "%.3f", share(x->mem, x->samples)) ||
		  table_cell(t, "%" PRIu64, x->probed) ||
		  table_cell(t, "%.3f", share(x->where[MB_W_NEAR], x->probed)) ||
		  table_cell(t, "%.3f", share(x->where[MB_W_L3], x->probed)) ||
		  table_cell(t, "%.3f", share(x->where[MB_W_DRAM], x->probed)) ||
		  table_cell(t, "%.0f", x->footprint);

	for (int k = 0; k < 5 && !err; k++)
		err = m->pmu && pmu[k] >= 0 ? table_cell(t, "%.3f", pmu[k]) : table_cell(t, "%s", "");
	return err || table_cell(t, "%d", x->scaled) || gbs_cell(t, x->bw) ||
	       gbs_cell(t, x->bw_peak) || table_cell(t, "%" PRIu64, x->pr_valid) ||
	       gbs_cell(t, x->bw_run);
}

#define TALLY_COLS "verdict", "level", "samples:r", "mem_share:r", "probed:r", "near_share:r", \
		   "l3_share:r", "dram_share:r", "footprint_bytes:r", "active:r", \
		   "productive:r", "memory_bound:r", "bandwidth_bound:r", "latency_bound:r", \
		   "scaled:r", "achieved_gbs:r", "peak_gbs:r", "pairs:r", "running_gbs:r"

static int view_intervals(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "interval:r", "start_s:r", "end_s:r", TALLY_COLS,
					    NULL };
	const struct mb_model *m = membound_of(p);
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Intervals: where the time went", cols);
	for (size_t k = 0; k < m->niv && !err; k++) {
		if (o->top && k >= o->top) {
			t->hidden = m->niv - k;
			break;
		}
		err = table_row(t) ||
		      table_cell(t, "%zu", k) ||
		      table_cell(t, "%.3f", (double)m->iv[k].start / 1e9) ||
		      table_cell(t, "%.3f", (double)m->iv[k].end / 1e9) ||
		      tally_cells(t, m, &m->iv[k].t);
	}
	return err ? -ENOMEM : 0;
}

static int view_threads(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { view_thread_col(p, "thread:r", "thread"), "pid:r", "tid:r", "name",
			       TALLY_COLS, NULL };
	const struct mb_model *m = membound_of(p);
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Threads", cols);
	for (size_t i = 0; i < m->nthr && !err; i++) {
		char lab[32];

		if (o->top && i >= o->top) {
			t->hidden = m->nthr - i;
			break;
		}
		err = table_row(t) ||
		      table_cell(t, "%s", profile_thread_label(p, (uint32_t)i, lab, sizeof(lab))) ||
		      table_cell(t, "%u", profile_os_pid(p, m->thr[i].pid)) ||
		      table_cell(t, "%u", m->thr[i].tid) ||
		      table_cell(t, "%.16s", p->tasks[i].name) ||
		      tally_cells(t, m, &m->thr[i].t);
	}
	return err ? -ENOMEM : 0;
}

/* "intervals 12-40 (2.1 s): bandwidth bound at DRAM (...), in f (a.c:8)" */
static void mb_phase_text(const struct mb_model *m, const struct mb_phase *ph, char *buf,
			  size_t len)
{
	char v[64], ev[256];

	mb_verdict_text(&ph->t, v, sizeof(v));
	mb_evidence(m, &ph->t, ev, sizeof(ev));
	snprintf(buf, len, "intervals %u-%u (%.1f s): %s (%s)%s%s", ph->first, ph->last,
		 (double)(ph->end - ph->start) / 1e9, v, ev, ph->func[0] ? ", in " : "",
		 ph->func[0] ? ph->func[0] : "");
}

static int view_verdicts(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = {
		"phase:r", "first_interval:r", "last_interval:r", "start_s:r", "end_s:r",
		"start_ns:r", "end_ns:r",
		"verdict", "level", "method", "samples:r", "mem_share:r", "l3_share:r",
		"dram_share:r", "footprint_bytes:r", "top_function", "top_share:r", "functions",
		"text", "achieved_gbs:r", "peak_gbs:r", "pairs:r", "running_gbs:r", NULL };
	const struct mb_model *m = membound_of(p);
	const char *method = profile_meta(p, "membound_method");
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Verdicts, one per phase", cols);
	for (size_t i = 0; i < m->nph && !err; i++) {
		const struct mb_phase *ph = &m->ph[i];
		char text[1024], funcs[1024] = "";
		size_t n = 0;

		if (o->top && i >= o->top) {
			t->hidden = m->nph - i;
			break;
		}
		for (int f = 0; f < MB_TOP_FUNCS && ph->func[f]; f++) {
			n += (size_t)snprintf(funcs + n, sizeof(funcs) - n, "%s%s %.0f%%",
					      f ? "; " : "", ph->func[f], 100 * ph->func_share[f]);
			if (n >= sizeof(funcs))
				n = sizeof(funcs) - 1;
		}
		mb_phase_text(m, ph, text, sizeof(text));
		err = table_row(t) ||
		      table_cell(t, "%zu", i) ||
		      table_cell(t, "%u", ph->first) ||
		      table_cell(t, "%u", ph->last) ||
		      table_cell(t, "%.3f", (double)ph->start / 1e9) ||
		      table_cell(t, "%.3f", (double)ph->end / 1e9) ||
		      table_cell(t, "%" PRIu64, m->t0 + ph->start) ||
		      table_cell(t, "%" PRIu64, m->t0 + ph->end) ||
		      table_cell(t, "%s", mb_verdict_name(ph->t.verdict)) ||
		      table_cell(t, "%s", level_col(&ph->t)) ||
		      table_cell(t, "%s", method ? method : "") ||
		      table_cell(t, "%" PRIu64, ph->t.samples) ||
		      table_cell(t, "%.3f", share(ph->t.mem, ph->t.samples)) ||
		      table_cell(t, "%.3f", share(ph->t.where[MB_W_L3], ph->t.probed)) ||
		      table_cell(t, "%.3f", share(ph->t.where[MB_W_DRAM], ph->t.probed)) ||
		      table_cell(t, "%.0f", ph->t.footprint) ||
		      table_cell(t, "%s", ph->func[0] ? ph->func[0] : "") ||
		      table_cell(t, "%.3f", ph->func[0] ? ph->func_share[0] : 0) ||
		      table_cell(t, "%s", funcs) ||
		      table_cell(t, "%s", text) ||
		      gbs_cell(t, ph->t.bw) ||
		      gbs_cell(t, ph->t.bw_peak) ||
		      table_cell(t, "%" PRIu64, ph->t.pr_valid) ||
		      gbs_cell(t, ph->t.bw_run);
	}
	return err ? -ENOMEM : 0;
}

/* The verdicts as sentences, and what the estimate is. */
static int view_findings(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "finding", NULL };
	const struct mb_model *m = membound_of(p);
	int err = 0;

	(void)o;
	if (!m)
		return -ENOMEM;
	table_init(t, "Verdicts", cols);
	if (!m->pmu)
		err = table_row(t) ||
		      table_cell(t, "%s", "An estimate without hardware counters: from where "
				 "samples fell (memory instructions or not), where the line each "
				 "was about to load was (a timed load against this machine's "
				 "calibrated latencies), the footprint of the objects sampled, and "
				 "the bandwidth achieved, from how far each thread's accesses moved "
				 "between a sample and its follow-up, against the calibrated peak.  "
				 "cdt-membound(1) says which verdicts it gives and how sure they "
				 "are.");
	if (!err && !m->cal.have)
		err = table_row(t) ||
		      table_cell(t, "%s", "The profile holds no calibration: levels cannot be "
				 "told apart (cdt membound --calibrate).");
	for (size_t i = 0; i < m->nph && !err; i++) {
		char text[1024];

		mb_phase_text(m, &m->ph[i], text, sizeof(text));
		err = table_row(t) || table_cell(t, "%s", text);
	}
	if (!err && !m->nph)
		err = table_row(t) || table_cell(t, "%s", "no samples: nothing to say");
	return err ? -ENOMEM : 0;
}

static int text_findings(const struct profile *p, const struct view_opts *o, FILE *f, int width)
{
	return view_items_text(view_findings, p, o, f, width);
}

/* One character per column for a share: ' ' none .. '#' all. */
static char spark(double v)
{
	static const char ramp[] = " .:-=+*#";

	if (v <= 0)
		return ' ';
	if (v >= 1)
		return '#';
	return ramp[1 + (int)(v * (double)(sizeof(ramp) - 2))];
}

static char verdict_char(const struct mb_tally *x)
{
	switch (x->verdict) {
	case MB_V_BANDWIDTH: return x->level == MB_DRAM ? 'B' : (char)('1' + x->level);
	case MB_V_LATENCY: return x->level == MB_DRAM ? 'L' : 'l';
	case MB_V_NOT_MEMORY: return '.';
	}
	return '?';
}

/* Sparklines: a column per interval (or per few, to fit the width). */
static int text_timeline(const struct profile *p, const struct view_opts *o, FILE *f, int width)
{
	const struct mb_model *m = membound_of(p);
	static const char *const rows[] = { "memory", "L3 lines", "DRAM lines", "verdict" };
	size_t cols, per;
	char *line;

	(void)o;
	if (!m)
		return -ENOMEM;
	if (!m->niv)
		return fprintf(f, "no intervals\n") < 0 ? -EIO : 0;
	cols = width > 24 ? (size_t)width - 14 : 10;
	per = (m->niv + cols - 1) / cols;
	cols = (m->niv + per - 1) / per;
	if (!(line = malloc(cols + 1)))
		return -ENOMEM;
	fprintf(f, "Timeline: %zu intervals of %" PRIu64 " ms, %zu a column\n", m->niv,
		m->interval_ns / 1000000, per);
	for (int r = 0; r < 4; r++) {
		for (size_t c = 0; c < cols; c++) {
			struct mb_tally x = { 0 };

			for (size_t k = c * per; k < (c + 1) * per && k < m->niv; k++) {
				x.samples += m->iv[k].t.samples;
				x.mem += m->iv[k].t.mem;
				x.probed += m->iv[k].t.probed;
				x.where[MB_W_L3] += m->iv[k].t.where[MB_W_L3];
				x.where[MB_W_DRAM] += m->iv[k].t.where[MB_W_DRAM];
			}
			line[c] = r == 0 ? spark(share(x.mem, x.samples)) :
				  r == 1 ? spark(share(x.where[MB_W_L3], x.probed)) :
				  r == 2 ? spark(share(x.where[MB_W_DRAM], x.probed)) :
				  verdict_char(&m->iv[c * per].t);
		}
		line[cols] = 0;
		fprintf(f, "%-12s |%s|\n", rows[r], line);
	}
	fprintf(f, "%-12s  B bandwidth bound at DRAM, 1/2/3 at L1/L2/L3, L latency bound\n"
		"%-12s  at DRAM, l elsewhere, . not memory bound, ? too few samples\n", "", "");
	free(line);
	return ferror(f) ? -EIO : 0;
}

/* The timeline's table: the intervals view. */
static int view_timeline(const struct profile *p, const struct view_opts *o, struct table *t)
{
	return view_intervals(p, o, t);
}

const struct view membound_views[] = {
	{ "summary", "the run, the method and the overall verdict", view_summary, NULL },
	{ "findings", "the verdicts as sentences", view_findings, text_findings },
	{ "membound-verdicts", "one verdict per phase, with its top functions", view_verdicts,
	  NULL },
	{ "membound-intervals", "every interval: shares, footprint, verdict", view_intervals,
	  NULL },
	{ "membound-threads", "every thread: shares, footprint, verdict", view_threads, NULL },
	{ "timeline", "sparklines of the intervals", view_timeline, text_timeline },
	{ NULL, NULL, NULL, NULL }
};

const char *const membound_report[] = { "findings", "timeline", "membound-threads", NULL };
