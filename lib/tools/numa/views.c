// SPDX-License-Identifier: GPL-2.0-only
/*
 * Views of `cdt numa` profiles: per thread, the thread x node matrix, per
 * node, per data object with its first touch, a timeline, and findings.
 * Columns are documented in cdt-numa(1) and stay stable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/names.h"
#include "lib/core/objmap.h"
#include "lib/tools/numa/model.h"
#include "lib/tools/numa/parts.h"
#include "output/heatmap.h"

#define KV(key, ...) (table_row(t) || table_cell(t, "%s", key) || table_cell(t, __VA_ARGS__))

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static const char *node_text(int node, char *buf, size_t len)
{
	if (node < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%d", node);
	return buf;
}

static const char *thread_label(const struct profile *p, uint32_t i, char *buf, size_t len)
{
	if (i == UINT32_MAX) {
		snprintf(buf, len, "?");
		return buf;
	}
	return profile_thread_label(p, i, buf, len);
}

static int view_summary(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "key", "value", NULL };
	const struct numa_model *m = numa_of(p);
	uint64_t known;
	int err;

	(void)o;
	if (!m)
		return -ENOMEM;
	table_init(t, NULL, cols);
	known = m->local + m->remote;
	err = view_summary_run(p, t) ||
	      KV("numa_nodes", "%d", m->nnodes) ||
	      KV("memory_samples", "%" PRIu64, m->samples) ||
	      KV("local_pct", "%.1f", pct(m->local, known)) ||
	      KV("remote_pct", "%.1f", pct(m->remote, known)) ||
	      KV("unknown_node", "%" PRIu64, m->unknown) ||
	      KV("node_from_first_touch", "%" PRIu64, m->inferred) ||
	      KV("fault_pages", "%" PRIu64, m->fault_pages) ||
	      KV("agent_fault_pages", "%" PRIu64, m->agent_faults);
	if (!err && m->pred.on)
		err = KV("predicted_remote_pct", "%.1f", pct(m->pred_remote, m->pred_local +
							       m->pred_remote)) ||
		      KV("prediction", "a model: %d nodes of %d CPUs, threads placed %s in "
			 "creation order, each page on the node of the thread that first "
			 "touched it", m->pred.nodes, m->pred.per_node_used,
			 m->pred.policy == NUMA_BIND_SCATTER ? "scatter" : "compact") ||
		      KV("predicted_unknown", "%" PRIu64, m->pred_unknown);
	if (!err)
		err = view_summary_errors(p, t);
	return err ? -ENOMEM : 0;
}

static int view_threads(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { view_thread_col(p, "thread:r", "thread"), "pid:r", "tid:r", "name",
			       "node:r", "samples:r", "local:r", "remote:r", "unknown:r",
			       "remote_pct:r", "node_moves:r", "cpu_moves:r", "first_touches:r",
			       "local_dram:r", "remote_dram:r", "remote_cache:r",
			       "predicted_remote_pct:r", "served_l1:r", "served_l2:r", "served_l3:r",
			       "served_local_dram:r", "served_remote_dram:r",
			       "served_remote_cache:r", NULL };
	const struct numa_model *m = numa_of(p);
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Threads: accesses by where their memory was", cols);
	for (size_t i = 0; i < m->nthr && !err; i++) {
		const struct numa_thr *x = &m->thr[i];
		char lab[32], nd[16], c[3][24], pr[16], sv[NUMA_SERVED_OTHER][24];
		uint64_t said = 0;

		if (o->top && i >= o->top) {
			t->hidden = m->nthr - i;
			break;
		}
		for (int k = 0; k < 3; k++)
			snprintf(c[k], sizeof(c[k]), x->have_counts ? "%" PRIu64 "%s" : "",
				 x->counts[k + 1], x->scaled ? "*" : "");
		snprintf(pr, sizeof(pr), m->pred.on ? "%.1f" : "",
			 pct(x->pred_remote, x->pred_local + x->pred_remote));
		/* Where the PMU said each sample was served: empty without. */
		for (int k = NUMA_SERVED_L1; k < NUMA_SERVED_N; k++)
			said += x->served[k];
		for (int k = NUMA_SERVED_L1; k < NUMA_SERVED_OTHER; k++)
			snprintf(sv[k], sizeof(sv[k]), said ? "%" PRIu64 : "", x->served[k]);
		err = table_row(t) ||
		      table_cell(t, "%s", thread_label(p, x->index, lab, sizeof(lab))) ||
		      table_cell(t, "%u", profile_os_pid(p, x->pid)) ||
		      table_cell(t, "%u", x->tid) ||
		      table_cell(t, "%.16s", p->tasks[i].name) ||
		      table_cell(t, "%s", node_text(x->node, nd, sizeof(nd))) ||
		      table_cell(t, "%" PRIu64, x->samples) ||
		      table_cell(t, "%" PRIu64, x->local) ||
		      table_cell(t, "%" PRIu64, x->remote) ||
		      table_cell(t, "%" PRIu64, x->unknown) ||
		      table_cell(t, "%.1f", pct(x->remote, x->local + x->remote)) ||
		      table_cell(t, "%" PRIu64, x->node_moves) ||
		      table_cell(t, "%" PRIu64, x->cpu_moves) ||
		      table_cell(t, "%" PRIu64, x->faults) ||
		      table_cell(t, "%s", c[0]) || table_cell(t, "%s", c[1]) ||
		      table_cell(t, "%s", c[2]) || table_cell(t, "%s", pr) ||
		      table_cell(t, "%s", sv[NUMA_SERVED_L1]) ||
		      table_cell(t, "%s", sv[NUMA_SERVED_L2]) ||
		      table_cell(t, "%s", sv[NUMA_SERVED_L3]) ||
		      table_cell(t, "%s", sv[NUMA_SERVED_LOCAL_DRAM]) ||
		      table_cell(t, "%s", sv[NUMA_SERVED_REMOTE_DRAM]) ||
		      table_cell(t, "%s", sv[NUMA_SERVED_REMOTE_CACHE]) ? -ENOMEM : 0;
	}
	if (!err)
		snprintf(t->note, sizeof(t->note), "node: where most of its samples ran; * "
			 "counters scaled for multiplexing");
	return err;
}

/* Long form: one row per thread and memory node with accesses. */
static int view_matrix(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { view_thread_col(p, "thread:r", "thread"), "thread_node:r",
			       "memory_node:r", "accesses:r", "share_pct:r", NULL };
	const struct numa_model *m = numa_of(p);
	size_t rows = 0, shown = 0;
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Thread x memory node: sampled accesses", cols);
	for (size_t i = 0; i < m->nthr && !err; i++)
		for (int n = 0; n < m->nnodes && !err; n++) {
			const struct numa_thr *x = &m->thr[i];
			char lab[32], nd[16];

			if (!x->by_node[n])
				continue;
			rows++;
			if (o->top && shown >= o->top)
				continue;
			shown++;
			err = table_row(t) ||
			      table_cell(t, "%s", thread_label(p, x->index, lab, sizeof(lab))) ||
			      table_cell(t, "%s", node_text(x->node, nd, sizeof(nd))) ||
			      table_cell(t, "%d", n) ||
			      table_cell(t, "%" PRIu64, x->by_node[n]) ||
			      table_cell(t, "%.1f", pct(x->by_node[n], x->local + x->remote)) ?
				      -ENOMEM : 0;
		}
	t->hidden = rows - shown;
	return err;
}

/* Text: a row per thread, a cell per memory node, shaded by the share
 * of the thread's accesses (the heatmap's ramp), then the percentages. */
static int view_matrix_text(const struct profile *p, const struct view_opts *o, FILE *f,
			    int width)
{
	const struct numa_model *m = numa_of(p);
	const char *ramp = HEATMAP_SHADES;
	size_t nshade = strlen(ramp);
	int shown = 0;

	(void)width;
	if (!m)
		return -ENOMEM;
	fprintf(f, "Thread x memory node: share of each thread's sampled accesses\n");
	fprintf(f, "%8s %4s  ", "thread", "node");
	for (int n = 0; n < m->nnodes; n++)
		fprintf(f, "%-2d", n % 100);
	fprintf(f, "  by memory node (%%)\n");
	for (size_t i = 0; i < m->nthr; i++) {
		const struct numa_thr *x = &m->thr[i];
		uint64_t all = x->local + x->remote;
		char lab[32], nd[16];

		if (!all)
			continue;
		if (o->top && (size_t)shown >= o->top)
			break;
		shown++;
		fprintf(f, "%8s %4s  ", thread_label(p, x->index, lab, sizeof(lab)),
			node_text(x->node, nd, sizeof(nd)));
		for (int n = 0; n < m->nnodes; n++) {
			double s = (double)x->by_node[n] / (double)all;
			size_t k = s <= 0 ? 0 : 1 + (size_t)(s * (double)(nshade - 2) + 0.5);

			fprintf(f, "%c%c", ramp[k < nshade ? k : nshade - 1],
				ramp[k < nshade ? k : nshade - 1]);
		}
		fprintf(f, " ");
		for (int n = 0; n < m->nnodes; n++)
			fprintf(f, " %5.1f", pct(x->by_node[n], all));
		fprintf(f, "\n");
	}
	if (!shown)
		fprintf(f, "  (no sampled access with a known node)\n");
	fprintf(f, "shades \"%s\": 0 to 100%% of the thread's accesses\n", ramp);
	return ferror(f) ? -EIO : 0;
}

static int view_nodes(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "node:r", "cpus:r", "threads:r", "local:r",
					     "remote_out:r", "remote_in:r", "pages:r", NULL };
	const struct numa_model *m = numa_of(p);
	int err = 0;

	(void)o;
	if (!m)
		return -ENOMEM;
	table_init(t, "Nodes: traffic out of and into each node", cols);
	for (int n = 0; n < m->nnodes && !err; n++) {
		uint64_t thr = 0, pages = 0;
		int cpus = 0;

		for (int c = 0; c < p->topo.ncpus; c++)
			cpus += p->topo.cpus[c].node == n;
		for (size_t i = 0; i < m->nthr; i++)
			thr += m->thr[i].node == n;
		for (size_t i = 0; i < m->nobj; i++)
			pages += m->obj[i].landed[n];
		err = table_row(t) || table_cell(t, "%d", n) || table_cell(t, "%d", cpus) ||
		      table_cell(t, "%" PRIu64, thr) ||
		      table_cell(t, "%" PRIu64, m->node_local[n]) ||
		      table_cell(t, "%" PRIu64, m->node_out[n]) ||
		      table_cell(t, "%" PRIu64, m->node_in[n]) ||
		      table_cell(t, "%" PRIu64, pages) ? -ENOMEM : 0;
	}
	if (!err)
		snprintf(t->note, sizeof(t->note), "remote_out: its threads' accesses to other "
			 "nodes' memory; remote_in: other nodes' threads' accesses to its memory");
	return err;
}

/* "0:45,1:55": a share per node with any. */
static void node_shares(const uint64_t *v, int n, char *buf, size_t len)
{
	uint64_t all = 0;
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		all += v[i];
	for (int i = 0; i < n && at < len; i++)
		if (v[i])
			at += (size_t)snprintf(buf + at, len - at, "%s%d:%.0f", at ? "," : "", i,
					       pct(v[i], all));
}

/* The node most of an object's pages landed on; -1 if none. */
static int obj_home(const struct numa_model *m, const struct numa_obj *x)
{
	uint64_t best = 0;
	int home = -1;

	for (int n = 0; n < m->nnodes; n++)
		if (x->landed[n] > best) {
			best = x->landed[n];
			home = n;
		}
	return home;
}

/* The node whose threads access an object most; -1 if none. */
static int obj_user(const struct numa_model *m, const struct numa_obj *x, uint64_t *share_of)
{
	uint64_t best = 0, all = 0;
	int user = -1;

	for (int n = 0; n < m->nnodes; n++) {
		all += x->by_thread_node[n];
		if (x->by_thread_node[n] > best) {
			best = x->by_thread_node[n];
			user = n;
		}
	}
	*share_of = all;
	return user;
}

/* What to do about an object with remote accesses. */
static void obj_advice(const struct profile *p, const struct numa_model *m,
		       const struct numa_obj *x, char *buf, size_t len)
{
	int home = obj_home(m, x), users = 0;
	char lab[32];

	for (int n = 0; n < m->nnodes; n++)
		users += x->by_thread_node[n] > 0;
	buf[0] = '\0';
	if (x->remote < 10 && x->pred_remote < 10)
		return; /* too few to say */
	if (x->ft_thread != UINT32_MAX && x->ft_thread_pages * 10 >= x->pages * 9 && users > 1)
		snprintf(buf, len, "thread %s touched %.0f%% of its pages first%s: initialise "
			 "it in parallel, each thread the part it uses, or interleave it "
			 "(numactl --interleave, mbind MPOL_INTERLEAVE)",
			 thread_label(p, x->ft_thread, lab, sizeof(lab)),
			 pct(x->ft_thread_pages, x->pages),
			 home >= 0 ? " on its node" : "");
	else if (users > 1)
		snprintf(buf, len, "used from %d nodes: split it per node, or interleave it",
			 users);
	else
		snprintf(buf, len, "used from one node but placed on another: allocate and "
			 "initialise it on the thread that uses it, or bind that thread to "
			 "the memory's node");
}

static int view_objects(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { "object", "kind", "samples:r", "remote:r", "remote_pct:r",
			       "unknown:r", "used_from", "pages:r", "landed_on",
			       view_thread_col(p, "first_touch_thread:r", "first_touch_thread"),
			       "first_touch_pct:r", "first_touch_threads:r", "first_touch_at", "alloc_site",
			       "predicted_remote_pct:r", "suggestion", NULL };
	const struct numa_model *m = numa_of(p);
	struct objmap *om = NULL;
	size_t shown = 0;
	int err;

	if (!m)
		return -ENOMEM;
	table_init(t, "Data objects by remote accesses, with their first touch", cols);
	err = objmap_build(&om, p);
	for (size_t i = 0; i < m->nobj && !err; i++) {
		const struct numa_obj *x = &m->obj[i];
		char used[128], landed[128], lab[32], at[512], site[1024], pr[16], adv[320], ftp[16];
		const struct objmap_group *g = x->group != OBJMAP_NO_GROUP && om ?
					       objmap_group(om, x->group) : NULL;

		if (o->top && shown >= o->top)
			break;
		if (m->samples && (double)x->samples / (double)m->samples < o->min_share &&
		    !x->pages)
			continue;
		shown++;
		node_shares(x->by_thread_node, m->nnodes, used, sizeof(used));
		node_shares(x->landed, m->nnodes, landed, sizeof(landed));
		at[0] = site[0] = '\0';
		if (x->ft_thread_pages)
			names_code(p, x->ft_pid, x->ft_time, x->ft_ip, at, sizeof(at));
		if (g && om)
			objmap_path_text(om, x->group, site, sizeof(site));
		snprintf(pr, sizeof(pr), m->pred.on ? "%.1f" : "",
			 pct(x->pred_remote, x->pred_local + x->pred_remote));
		obj_advice(p, m, x, adv, sizeof(adv));
		snprintf(ftp, sizeof(ftp), x->ft_thread_pages ? "%.0f" : "",
			 pct(x->ft_thread_pages, x->pages));
		err = table_row(t) ||
		      table_cell(t, "%s", x->name) ||
		      table_cell(t, "%s", g ? objmap_kind_name(g->kind) : "none") ||
		      table_cell(t, "%" PRIu64, x->samples) ||
		      table_cell(t, "%" PRIu64, x->remote) ||
		      table_cell(t, "%.1f", pct(x->remote, x->local + x->remote)) ||
		      table_cell(t, "%" PRIu64, x->unknown) ||
		      table_cell(t, "%s", used) ||
		      table_cell(t, "%" PRIu64, x->pages) ||
		      table_cell(t, "%s", landed) ||
		      table_cell(t, "%s", x->ft_thread_pages ?
				 thread_label(p, x->ft_thread, lab, sizeof(lab)) : "") ||
		      table_cell(t, "%s", ftp) || table_cell(t, "%u", x->ft_threads) ||
		      table_cell(t, "%s", at) || table_cell(t, "%s", site) ||
		      table_cell(t, "%s", pr) || table_cell(t, "%s", adv) ? -ENOMEM : 0;
	}
	t->hidden = m->nobj - shown;
	objmap_free(om);
	return err;
}

static int view_timeline(const struct profile *p, const struct view_opts *o, struct table *t)
{
	const char *cols[] = { "interval:r", "start_ms:r", view_thread_col(p, "thread:r", "thread"),
			       "local:r", "remote:r", "unknown:r", "remote_pct:r", NULL };
	const struct numa_model *m = numa_of(p);
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Timeline: each thread's accesses per interval", cols);
	for (size_t i = 0; i < m->niv && !err; i++) {
		const struct numa_interval *v = &m->iv[i];
		char lab[32];

		if (o->top && i >= o->top) {
			t->hidden = m->niv - i;
			break;
		}
		err = table_row(t) || table_cell(t, "%u", v->k) ||
		      table_cell(t, "%.0f", (double)v->k * (double)m->interval_ns / 1e6) ||
		      table_cell(t, "%s", thread_label(p, m->thr[v->thread].index, lab,
						       sizeof(lab))) ||
		      table_cell(t, "%" PRIu64, v->local) ||
		      table_cell(t, "%" PRIu64, v->remote) ||
		      table_cell(t, "%" PRIu64, v->unknown) ||
		      table_cell(t, "%.1f", pct(v->remote, v->local + v->remote)) ? -ENOMEM : 0;
	}
	return err;
}

/* The findings: what is remote, why, and what to do. */
static int view_findings(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "finding", NULL };
	const struct numa_model *m = numa_of(p);
	uint64_t known;
	size_t n = 0;
	char buf[1024];
	int err = 0;

	if (!m)
		return -ENOMEM;
	table_init(t, "Findings", cols);
	known = m->local + m->remote;
#define SAY(...) (snprintf(buf, sizeof(buf), __VA_ARGS__), n++, \
		  table_row(t) || table_cell(t, "%s", buf) ? -ENOMEM : 0)
	if (!strcmp(profile_meta(p, "source") ? profile_meta(p, "source") : "", "none"))
		err = SAY("Counting mode (--count): no access was sampled; first touch and "
			  "migrations were watched; counters: %s.",
			  profile_meta(p, "numa_counters") ? profile_meta(p, "numa_counters") : "none");
	else if (m->nnodes < 2)
		err = SAY("This machine has one NUMA node: every access is local (%" PRIu64
			  " sampled).%s", known, m->pred.on ? "" :
			  " --predict N shows which would be remote on N nodes.");
	else if (known)
		err = SAY("%.1f%% of %" PRIu64 " sampled accesses with a known node were remote.",
			  pct(m->remote, known), known);
	for (size_t i = 0; i < m->nthr && !err; i++) {
		const struct numa_thr *x = &m->thr[i];
		char lab[32];

		if (x->local + x->remote >= 20 && x->remote * 4 >= x->local + x->remote)
			err = SAY("Thread %s (node %d): %.0f%% of its accesses are remote.",
				  thread_label(p, x->index, lab, sizeof(lab)), x->node,
				  pct(x->remote, x->local + x->remote));
		if (!err) {
			uint64_t said = 0, far = x->served[NUMA_SERVED_REMOTE_DRAM] +
						 x->served[NUMA_SERVED_REMOTE_CACHE];

			for (int k = NUMA_SERVED_L1; k < NUMA_SERVED_N; k++)
				said += x->served[k];
			if (said >= 20 && far * 10 >= said)
				err = SAY("Thread %s: the PMU served %.0f%% of its sampled loads "
					  "from remote DRAM and %.0f%% from a remote cache.",
					  thread_label(p, x->index, lab, sizeof(lab)),
					  pct(x->served[NUMA_SERVED_REMOTE_DRAM], said),
					  pct(x->served[NUMA_SERVED_REMOTE_CACHE], said));
		}
		if (!err && x->node_moves)
			err = SAY("Thread %s moved between nodes %" PRIu64 " times: its memory "
				  "stays behind; pin it (--bind, taskset, OMP_PROC_BIND).",
				  thread_label(p, x->index, lab, sizeof(lab)), x->node_moves);
	}
	for (size_t i = 0, k = 0; i < m->nobj && k < (o->top ? o->top : 5) && !err; i++) {
		const struct numa_obj *x = &m->obj[i];
		uint64_t all, use = 0;
		int user = obj_user(m, x, &all), home = obj_home(m, x);
		char lab[32], at[512], adv[320];

		(void)user;
		if (x->remote * 10 < x->local + x->remote || x->remote < 10)
			continue;
		k++;
		use = all - (home >= 0 ? x->by_thread_node[home] : 0);
		at[0] = '\0';
		if (x->ft_thread_pages)
			names_code(p, x->ft_pid, x->ft_time, x->ft_ip, at, sizeof(at));
		obj_advice(p, m, x, adv, sizeof(adv));
		if (x->ft_thread_pages)
			err = SAY("%s: first touched by thread %s at %s; %.0f%% of its pages on "
				  "node %d; %.0f%% of its accesses come from other nodes: %s.",
				  x->name, thread_label(p, x->ft_thread, lab, sizeof(lab)), at,
				  pct(x->landed[home >= 0 ? home : 0], x->pages), home,
				  pct(use, all), adv);
		else
			err = SAY("%s: %.0f%% of its sampled accesses are remote: %s.", x->name,
				  pct(x->remote, x->local + x->remote), adv);
	}
	if (!err && m->pred.on) {
		err = SAY("Prediction (a model, not a measurement) for %d nodes of %d CPUs, "
			  "threads placed %s, pages at first touch: %.1f%% of accesses would be "
			  "remote.", m->pred.nodes, m->pred.per_node_used,
			  m->pred.policy == NUMA_BIND_SCATTER ? "scatter" : "compact",
			  pct(m->pred_remote, m->pred_local + m->pred_remote));
		for (size_t i = 0, k = 0; i < m->nobj && k < 3 && !err; i++) {
			const struct numa_obj *x = &m->obj[i];
			char lab[32];

			if (x->pred_remote * 4 < x->pred_local + x->pred_remote || x->pred_remote < 10)
				continue;
			k++;
			err = SAY("Predicted: %.0f%% of the accesses to %s would be remote "
				  "(first touched by thread %s).",
				  pct(x->pred_remote, x->pred_local + x->pred_remote), x->name,
				  thread_label(p, x->ft_thread, lab, sizeof(lab)));
		}
	}
	if (!err && m->unknown * 10 > m->samples && m->samples)
		err = SAY("%" PRIu64 " of %" PRIu64 " samples are on pages whose node is "
			  "unknown (neither asked nor first touched while cdt watched).",
			  m->unknown, m->samples);
	if (!err && m->lost_faults)
		err = SAY("%" PRIu64 " page-fault samples were lost (the ring was full): "
			  "first touch is incomplete.", m->lost_faults);
	if (!err && !n)
		err = SAY("No memory samples with an address: nothing to say.");
#undef SAY
	return err;
}

static int numa_text_findings(const struct profile *p, const struct view_opts *o, FILE *f,
		       int width)
{
	return view_items_text(view_findings, p, o, f, width);
}

const struct view numa_views[] = {
	{ "summary", "run settings and totals, local and remote", view_summary, NULL },
	{ "findings", "what is remote, who first touched it, what to do", view_findings,
	  numa_text_findings },
	{ "numa-threads", "per thread: its node, local and remote accesses, migrations",
	  view_threads, NULL },
	{ "numa-matrix", "thread x memory node (text: a heatmap)", view_matrix,
	  view_matrix_text },
	{ "numa-nodes", "per node: local, remote out and in, pages", view_nodes, NULL },
	{ "numa-objects", "data objects by remote accesses, with first touch", view_objects,
	  NULL },
	{ "numa-timeline", "per interval (-I) and thread: local and remote", view_timeline,
	  NULL },
	{ "processes", "each process: parent, execs, how it ended", view_processes, NULL },
	{ NULL, NULL, NULL, NULL },
};

const char *const numa_report[] = { "findings", "numa-threads", "numa-matrix",
				    "numa-objects", NULL };
