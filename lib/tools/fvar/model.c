// SPDX-License-Identifier: GPL-2.0-only
/*
 * Aggregating an fvar profile (see fvar.h and model.h).
 *
 * Instances: each REC_FVAR_INST goes into the Welford state of its
 * function in its context (the function's entry and the return address of
 * the call), and of its thread's part of the function.  A function's state
 * is the merge of its contexts' (welford_merge), so it equals one pass
 * over all its instances.
 *
 * Time: a sample counts for every distinct function on its stack (the
 * sampled one and the callers the agent found), in the context of the
 * return address above it; the share of a function is its samples over
 * the run's.  With the soft source a sample stands for period_ns of CPU
 * time, so a function's calls are estimated as its samples times
 * period_ns over its mean CPU (else wall) time per instance.
 *
 * Variance: cv_intra is metric 0's standard deviation within threads,
 * pooled (sum of the threads' M2 over n - threads), over its mean: what
 * differs from call to call, not from thread to thread.  cv_threads is
 * the CV of the per-thread sample totals over the threads that ran the
 * function at all.
 */
#include "lib/tools/fvar/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/names.h"

#define FV_NONE UINT32_MAX

struct fv_acc {
	struct fv_model m;
	size_t fn_cap, ctx_cap, thr_cap;
	struct hash fn_ix, ctx_ix, thr_ix;
	/* (image, address) to function or context, before names are made */
	struct fv_addr *fn_addr, *ctx_addr;
	size_t nfn_addr, fn_addr_cap, nctx_addr, ctx_addr_cap;
	struct hash fn_addr_ix, ctx_addr_ix;
	uint64_t rng;
};

/* An address seen in a process image, and what it stands for. */
struct fv_addr {
	uint32_t image, idx;
	uint64_t entry, ret;
};

/* idx of (image, entry, ret) in an address cache, or FV_NONE. */
static uint32_t fv_addr_find(const struct fv_addr *v, const struct hash *ix, uint64_t hv,
			     uint32_t image, uint64_t entry, uint64_t ret)
{
	for (size_t c = 0, i; (i = hash_walk(ix, hv, &c)) != HASH_NONE;)
		if (v[i].image == image && v[i].entry == entry && v[i].ret == ret)
			return v[i].idx;
	return FV_NONE;
}

static int fv_addr_add(struct fv_addr **v, size_t *n, size_t *cap, struct hash *ix, uint64_t hv,
		       uint32_t image, uint64_t entry, uint64_t ret, uint32_t idx)
{
	if (array_grow(v, cap, *n, sizeof(**v)) || hash_add(ix, hv, *n))
		return -ENOMEM;
	(*v)[*n] = (struct fv_addr){ .image = image, .idx = idx, .entry = entry, .ret = ret };
	++*n;
	return 0;
}

/*
 * The function at entry, the same in every process and rank that runs
 * the same code: known by its name and place ("f (a.c:12)", or
 * "module+0x1a2b" in stripped code), which no load address changes.
 * Addresses already seen are cached per process image.
 */
static uint32_t fv_find_fn(struct fv_acc *a, const struct profile *p, uint32_t pid,
			   uint64_t time, uint64_t entry)
{
	uint32_t image = profile_image(p, pid, time), idx;
	uint64_t hv = hash_mix(hash_u64(image), entry), hn;
	char id[512];
	struct fv_func *f;

	idx = fv_addr_find(a->fn_addr, &a->fn_addr_ix, hv, image, entry, 0);
	if (idx != FV_NONE)
		return idx;
	names_code(p, pid, time, entry, id, sizeof(id));
	hn = hash_bytes(id, strlen(id));
	for (size_t c = 0, i; idx == FV_NONE && (i = hash_walk(&a->fn_ix, hn, &c)) != HASH_NONE;)
		if (!strcmp(a->m.fn[i].id, id))
			idx = (uint32_t)i;
	if (idx == FV_NONE) {
		if (array_grow(&a->m.fn, &a->fn_cap, a->m.nfn, sizeof(*a->m.fn)) ||
		    hash_add(&a->fn_ix, hn, a->m.nfn))
			return FV_NONE;
		f = &a->m.fn[a->m.nfn];
		f->id = strdup(id);
		if (!f->id)
			return FV_NONE;
		f->pid = pid;
		f->time = time;
		f->entry = entry;
		idx = (uint32_t)a->m.nfn++;
	}
	return fv_addr_add(&a->fn_addr, &a->nfn_addr, &a->fn_addr_cap, &a->fn_addr_ix, hv, image,
			   entry, 0, idx) ? FV_NONE : idx;
}

/* The function at entry called from the call that returns to ret: its
 * context, known by the call site's name and place (ret 0: unknown). */
static uint32_t fv_find_ctx(struct fv_acc *a, const struct profile *p, uint32_t pid,
			    uint64_t time, uint64_t entry, uint64_t ret)
{
	uint32_t image = profile_image(p, pid, time), fn, idx;
	uint64_t hv = hash_mix(hash_mix(hash_u64(image), entry), ret), hn;
	char site[512] = "";
	struct fv_ctx *x;

	idx = fv_addr_find(a->ctx_addr, &a->ctx_addr_ix, hv, image, entry, ret);
	if (idx != FV_NONE)
		return idx;
	fn = fv_find_fn(a, p, pid, time, entry);
	if (fn == FV_NONE)
		return FV_NONE;
	if (ret)
		names_code(p, pid, time, ret - 1, site, sizeof(site));
	hn = hash_mix(hash_u64(fn), hash_bytes(site, strlen(site)));
	for (size_t c = 0, i; idx == FV_NONE && (i = hash_walk(&a->ctx_ix, hn, &c)) != HASH_NONE;)
		if (a->m.ctx[i].func == fn && !strcmp(a->m.ctx[i].site, site))
			idx = (uint32_t)i;
	if (idx == FV_NONE) {
		if (array_grow(&a->m.ctx, &a->ctx_cap, a->m.nctx, sizeof(*a->m.ctx)) ||
		    hash_add(&a->ctx_ix, hn, a->m.nctx))
			return FV_NONE;
		x = &a->m.ctx[a->m.nctx];
		x->site = strdup(site);
		if (!x->site)
			return FV_NONE;
		x->pid = pid;
		x->func = fn;
		x->time = time;
		x->entry = entry;
		x->ret = ret;
		idx = (uint32_t)a->m.nctx++;
	}
	return fv_addr_add(&a->ctx_addr, &a->nctx_addr, &a->ctx_addr_cap, &a->ctx_addr_ix, hv,
			   image, entry, ret, idx) ? FV_NONE : idx;
}

static struct fv_thr *fv_find_thr(struct fv_acc *a, uint32_t func, uint32_t thread)
{
	uint64_t hv = hash_mix(hash_u64(func), thread);
	struct fv_thr *t;

	for (size_t c = 0, i; (i = hash_walk(&a->thr_ix, hv, &c)) != HASH_NONE;)
		if (a->m.thr[i].func == func && a->m.thr[i].thread == thread)
			return &a->m.thr[i];
	if (array_grow(&a->m.thr, &a->thr_cap, a->m.nthr, sizeof(*a->m.thr)) ||
	    hash_add(&a->thr_ix, hv, a->m.nthr))
		return NULL;
	t = &a->m.thr[a->m.nthr++];
	t->func = func;
	t->thread = thread;
	return t;
}

static uint32_t fv_thread(const struct profile *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	const struct rec_task *t = profile_task_by_tid(p, pid, tid, time);

	return t ? t->index : FV_NONE;
}

static void fv_first(struct fv_acc *a, uint64_t time)
{
	if (time && (!a->m.start || time < a->m.start))
		a->m.start = time;
}

/* Algorithm R: every instance offered has the same chance to be kept. */
static int fv_keep(struct fv_acc *a, struct fv_ctx *x, const struct rec_fvar_inst *r,
		   uint32_t thread, uint32_t nm)
{
	struct fv_inst *in;
	uint64_t k;

	x->offered++;
	if (!x->res) {
		x->res = calloc(FV_RESERVOIR, sizeof(*x->res));
		if (!x->res)
			return -ENOMEM;
	}
	if (x->nres < FV_RESERVOIR) {
		in = &x->res[x->nres++];
	} else {
		a->rng = a->rng * 6364136223846793005ull + 1442695040888963407ull;
		k = (a->rng >> 11) % x->offered;
		if (k >= FV_RESERVOIR)
			return 0;
		in = &x->res[k];
	}
	in->time = r->time;
	in->thread = thread;
	for (uint32_t i = 0; i < nm; i++)
		in->v[i] = (double)r->v[i];
	return 0;
}

/* r's call path as text (fv_path); 0, or -ENOSPC if it did not fit. */
static int fv_path_text(const struct profile *p, const struct rec_fvar_inst *r, char *buf,
			size_t len)
{
	char prev[256] = "", cur[256];
	size_t o = 0;
	unsigned rep = 0;

	buf[0] = 0;
	for (uint32_t k = 0; k <= r->npath; k++) {
		if (k < r->npath)
			names_code(p, r->pid, r->time, r->tail[k] - 1, cur, sizeof(cur));
		if (k < r->npath && rep && !strcmp(cur, prev)) {
			rep++;
			continue;
		}
		if (rep > 1)
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, " x%u", rep);
		if (k < r->npath)
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", k ? " < " : "",
					      cur);
		if (o >= len)
			return -ENOSPC;
		memcpy(prev, cur, sizeof(prev));
		rep = 1;
	}
	return 0;
}

static int fv_add_path(struct fv_ctx *x, const struct profile *p, const struct rec_fvar_inst *r)
{
	char text[2048];

	if (r->h.size < sizeof(*r) || !r->npath)
		return 0;
	x->path_n++;
	if (fv_path_text(p, r, text, sizeof(text))) {
		x->path_other++;
		return 0;
	}
	for (uint32_t i = 0; i < x->npath; i++)
		if (!strcmp(x->path[i].text, text)) {
			x->path[i].n++;
			return 0;
		}
	if (x->npath == FV_CTX_PATHS) {
		x->path_other++;
		return 0;
	}
	x->path[x->npath].text = strdup(text);
	if (!x->path[x->npath].text)
		return -ENOMEM;
	x->path[x->npath++].n = 1;
	return 0;
}

static int fv_add_inst(struct fv_acc *a, const struct profile *p, const struct rec_fvar_inst *r)
{
	uint32_t thread = fv_thread(p, r->pid, r->tid, r->time);
	uint32_t xi = fv_find_ctx(a, p, r->pid, r->time, r->entry, r->ret);
	uint32_t nm = r->nmetrics < a->m.nmetrics ? r->nmetrics : a->m.nmetrics;
	struct fv_ctx *x;
	struct fv_thr *t;

	if (xi == FV_NONE)
		return -ENOMEM;
	x = &a->m.ctx[xi];
	for (uint32_t i = 0; i < nm; i++)
		welford_add(&x->st.m[i], (double)r->v[i]);
	x->st.zeros += nm && !r->v[0];
	if (thread != FV_NONE) {
		t = fv_find_thr(a, x->func, thread);
		if (!t)
			return -ENOMEM;
		if (nm)
			welford_add(&t->m0, (double)r->v[0]);
	}
	a->m.instances++;
	fv_first(a, r->time);
	if (fv_add_path(x, p, r))
		return -ENOMEM;
	return fv_keep(a, x, r, thread, nm);
}

static int fv_add_drop(struct fv_acc *a, const struct profile *p, const struct rec_fvar_drop *r)
{
	uint32_t xi;

	a->m.drops[r->cause]++;
	if (!r->entry)
		return 0;
	xi = fv_find_ctx(a, p, r->pid, r->time, r->entry, r->ret);
	if (xi == FV_NONE)
		return -ENOMEM;
	a->m.ctx[xi].st.drops[r->cause]++;
	return 0;
}

/* The function each level of a sample is in: the sampled IP, then each
 * caller's return address; its context is the return address above it. */
static int fv_add_sample(struct fv_acc *a, const struct profile *p,
			 const struct rec_fvar_sample *r)
{
	uint32_t thread = fv_thread(p, r->pid, r->tid, r->time);
	uint32_t n = r->ncallers < FV_MAX_CALLERS ? r->ncallers : FV_MAX_CALLERS;
	uint32_t seen[FV_MAX_CALLERS + 1], nseen = 0, seen_ctx[FV_MAX_CALLERS + 1], nctx = 0;

	a->m.samples++;
	fv_first(a, r->time);
	/* A call sample counts a call of the function it stands at, alone. */
	if (r->flags & FV_SAMPLE_CALL) {
		a->m.call_samples = 1;
		n = 0;
	}
	for (uint32_t k = 0; k <= n; k++) {
		uint64_t ret = k < n ? r->caller[k] : 0;
		uint32_t xi, j;
		struct fv_thr *t;

		if (!r->entry[k])
			continue; /* in no function the agent knew */
		xi = fv_find_ctx(a, p, r->pid, r->time, r->entry[k], ret);
		if (xi == FV_NONE)
			return -ENOMEM;
		/* A recursive function counts once per sample, in each of its
		 * contexts and in all. */
		for (j = 0; j < nctx && seen_ctx[j] != xi; j++)
			;
		if (j == nctx) {
			seen_ctx[nctx++] = xi;
			a->m.ctx[xi].st.samples++;
		}
		for (j = 0; j < nseen && seen[j] != a->m.ctx[xi].func; j++)
			;
		if (j < nseen)
			continue;
		seen[nseen++] = a->m.ctx[xi].func;
		a->m.fn[a->m.ctx[xi].func].st.samples++;
		if (thread == FV_NONE)
			continue;
		t = fv_find_thr(a, a->m.ctx[xi].func, thread);
		if (!t)
			return -ENOMEM;
		t->samples++;
	}
	return 0;
}

static int fv_add_calib(struct fv_acc *a, const struct rec_fvar_calib *r)
{
	if (a->m.calib_runs)
		return 0;
	a->m.calib_runs = r->runs;
	for (int k = 0; k < FV_MAX_METRICS; k++) {
		a->m.bias[k] = (double)r->bias[k];
		a->m.spread[k] = (double)r->spread[k];
	}
	return 0;
}

static int fv_add_total(struct fv_acc *a, const struct rec_fvar_total *r)
{
	for (uint32_t k = 0; k < r->nmetrics && k < FV_MAX_METRICS; k++)
		a->m.total[k] += (double)r->v[k];
	return 0;
}

static int fv_acc_add(struct fv_acc *a, const struct profile *p, const struct rec_hdr *h)
{
	switch (h->type) {
	case REC_FVAR_TOTAL:
		return fv_add_total(a, (const struct rec_fvar_total *)h);
	case REC_FVAR_CALIB:
		return fv_add_calib(a, (const struct rec_fvar_calib *)h);
	case REC_FVAR_INST:
		return fv_add_inst(a, p, (const struct rec_fvar_inst *)h);
	case REC_FVAR_DROP:
		return fv_add_drop(a, p, (const struct rec_fvar_drop *)h);
	case REC_FVAR_SAMPLE:
		return fv_add_sample(a, p, (const struct rec_fvar_sample *)h);
	}
	return 0;
}

/* The metrics the run measured, from the profile's meta "metrics". */
static void fv_metrics(struct fv_model *m, const struct profile *p)
{
	const char *v = profile_meta(p, "metrics");
	const char *period = profile_meta(p, "period");

	m->nmetrics = 0;
	while (v && *v && m->nmetrics < FV_MAX_METRICS) {
		size_t len = strcspn(v, ",");
		char *name = m->metric[m->nmetrics];

		snprintf(name, sizeof(m->metric[0]), "%.*s", (int)len, v);
		m->metric_ns[m->nmetrics] = !strcmp(name, "wall") || !strcmp(name, "cpu");
		m->nmetrics++;
		v += len + (v[len] == ',');
	}
	m->period = period ? strtod(period, NULL) : 0;
	m->flag_share = FV_FLAG_SHARE;
	m->flag_cv = FV_FLAG_CV;
	m->flag_cv_threads = FV_FLAG_CV_THREADS;
	if ((v = profile_meta(p, "flag_share")))
		m->flag_share = strtod(v, NULL);
	if ((v = profile_meta(p, "flag_cv")))
		m->flag_cv = strtod(v, NULL);
	if ((v = profile_meta(p, "flag_cv_threads")))
		m->flag_cv_threads = strtod(v, NULL);
}

double fv_share(const struct fv_model *m, const struct fv_stats *st)
{
	if (m->call_samples)
		return m->nmetrics && m->total[0] > 0 ?
		       fv_calls(m, st) * st->m[0].mean / m->total[0] : 0;
	return m->samples ? (double)st->samples / (double)m->samples : 0;
}

int fv_untimed(const struct fv_model *m, const struct fv_stats *st)
{
	const struct welford *w = &st->m[0];

	return w->n && (w->mean < fv_resolution(m) ||
			(m->metric_ns[0] && 2 * st->zeros >= w->n &&
			 w->mean < FV_ZEROS_MEAN * fv_resolution(m)));
}

double fv_resolution(const struct fv_model *m)
{
	return m->nmetrics ? FV_RESOLUTION * m->spread[0] : 0;
}

double fv_calls(const struct fv_model *m, const struct fv_stats *st)
{
	int k = -1;

	if (m->call_samples)
		return (double)st->samples * m->period;
	/* An untimed function's calls took under R each: at least this many. */
	if (fv_untimed(m, st))
		return m->period ? (double)st->samples * m->period / fv_resolution(m) : 0;
	for (uint32_t i = 0; i < m->nmetrics; i++)
		if (!strcmp(m->metric[i], "cpu") || (k < 0 && !strcmp(m->metric[i], "wall")))
			k = (int)i;
	if (k < 0 || !m->period || !st->m[k].n || st->m[k].mean <= 0)
		return 0;
	return (double)st->samples * m->period / st->m[k].mean;
}

/* cv_intra and cv_threads of function f from its threads' parts. */
static void fv_spread(struct fv_model *m, uint32_t f)
{
	struct fv_stats *st = &m->fn[f].st;
	struct welford tot = { 0 };
	double within = 0;
	uint64_t n = 0, groups = 0;

	for (size_t i = 0; i < m->nthr; i++) {
		const struct fv_thr *t = &m->thr[i];

		if (t->func != f)
			continue;
		within += t->m0.m2;
		n += t->m0.n;
		groups += t->m0.n > 0;
		if (t->samples) {
			/* Call samples count calls: a thread's time is its calls
			 * times its mean instance. */
			welford_add(&tot, m->call_samples ? (double)t->samples * t->m0.mean :
					  (double)t->samples);
			st->nthreads++;
		}
	}
	if (n > groups && st->m[0].mean > 0)
		st->cv_intra = sqrt(within / (double)(n - groups)) / st->m[0].mean;
	/* Population CV: the threads are all there are, not a sample of them. */
	if (tot.n > 1 && tot.mean > 0)
		st->cv_threads = sqrt(tot.m2 / (double)tot.n) / tot.mean;
}

static int fv_rank_cmp(const void *x, const void *y, void *arg)
{
	const struct fv_model *m = arg;
	const struct fv_func *a = &m->fn[*(const size_t *)x], *b = &m->fn[*(const size_t *)y];

	if (a->flagged != b->flagged)
		return b->flagged - a->flagged;
	if (a->st.samples != b->st.samples)
		return a->st.samples < b->st.samples ? 1 : -1;
	if (a->st.m[0].n != b->st.m[0].n)
		return a->st.m[0].n < b->st.m[0].n ? 1 : -1;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
}

static void fv_acc_index_free(struct fv_acc *a)
{
	hash_free(&a->fn_ix);
	hash_free(&a->ctx_ix);
	hash_free(&a->thr_ix);
	hash_free(&a->fn_addr_ix);
	hash_free(&a->ctx_addr_ix);
	free(a->fn_addr);
	free(a->ctx_addr);
	a->fn_addr = a->ctx_addr = NULL;
	a->nfn_addr = a->nctx_addr = a->fn_addr_cap = a->ctx_addr_cap = 0;
}

static int fv_finish(struct fv_acc *a)
{
	struct fv_model *m = &a->m;

	for (size_t i = 0; i < m->nctx; i++) {
		struct fv_ctx *x = &m->ctx[i];
		struct fv_stats *f = &m->fn[x->func].st;

		for (uint32_t k = 0; k < m->nmetrics; k++)
			welford_merge(&f->m[k], &x->st.m[k]);
		f->zeros += x->st.zeros;
		for (int c = 0; c < FV_NCAUSE; c++)
			f->drops[c] += x->st.drops[c];
		if (x->st.m[0].n > 1)
			x->st.cv_intra = welford_cv(&x->st.m[0]);
		for (uint32_t j = 1; j < x->npath; j++)
			for (uint32_t k = j; k > 0 && x->path[k].n > x->path[k - 1].n; k--) {
				struct fv_path tmp = x->path[k];

				x->path[k] = x->path[k - 1];
				x->path[k - 1] = tmp;
			}
	}
	m->order = calloc(m->nfn ? m->nfn : 1, sizeof(*m->order));
	if (!m->order)
		return -ENOMEM;
	for (size_t i = 0; i < m->nfn; i++) {
		struct fv_func *f = &m->fn[i];

		fv_spread(m, (uint32_t)i);
		f->untimed = fv_untimed(m, &f->st);
		/* Untimed: the instances measure cdt, and so would any spread
		 * of them, across threads too (the threads' samples are shares
		 * of time, and say nothing of a call's). */
		f->flagged = !f->untimed && fv_share(m, &f->st) > m->flag_share &&
			     f->st.m[0].n > 1 && (f->st.cv_intra > m->flag_cv ||
						  f->st.cv_threads > m->flag_cv_threads);
		m->order[i] = i;
	}
	qsort_r(m->order, m->nfn, sizeof(*m->order), fv_rank_cmp, m);
	fv_acc_index_free(a);
	return 0;
}

static void fv_model_free(struct fv_model *m)
{
	for (size_t i = 0; i < m->nctx; i++) {
		free(m->ctx[i].res);
		free(m->ctx[i].site);
		for (uint32_t k = 0; k < m->ctx[i].npath; k++)
			free(m->ctx[i].path[k].text);
	}
	for (size_t i = 0; i < m->nfn; i++)
		free(m->fn[i].id);
	free(m->ctx);
	free(m->fn);
	free(m->thr);
	free(m->order);
	memset(m, 0, sizeof(*m));
}

/* The profile's fvar state: the sums while records come, then the model. */
struct fv_state {
	struct fv_acc acc;
	int started, built, failed;
};

static void fv_state_free(void *data)
{
	struct fv_state *s = data;

	fv_acc_index_free(&s->acc);
	fv_model_free(&s->acc.m);
	free(s);
}

static struct fv_state *fv_state(const struct profile *p)
{
	return profile_cache(p, sizeof(struct fv_state), fv_state_free);
}

static int fv_fold(struct profile *p, const struct rec_hdr *r)
{
	struct fv_state *s;
	int err;

	if (r->type < REC_FVAR_INST || r->type > REC_FVAR_TOTAL)
		return 1;
	s = fv_state(p);
	if (!s)
		return -ENOMEM;
	if (s->built || s->failed)
		return 1;
	if (!s->started) {
		fv_metrics(&s->acc.m, p);
		s->started = 1;
	}
	err = fv_acc_add(&s->acc, p, r);
	if (err)
		s->failed = 1;
	return err;
}

const struct fv_model *fvar_of(const struct profile *p)
{
	struct fv_state *s = fv_state(p);
	int err = 0;

	if (!s || s->failed)
		return NULL;
	if (s->built)
		return &s->acc.m;
	if (!s->started) {
		fv_metrics(&s->acc.m, p);
		s->started = 1;
	}
	/* Kept records (a live run); folded ones are in the sums already. */
	for (size_t i = 0; i < p->ntool_recs && !err; i++)
		err = fv_acc_add(&s->acc, p, p->tool_recs[i]);
	if (!err)
		err = fv_finish(&s->acc);
	if (err) {
		s->failed = 1;
		return NULL;
	}
	s->built = 1;
	return &s->acc.m;
}

const char *fv_cause_name(int cause)
{
	static const char *const names[FV_NCAUSE] = {
		[FV_DROP_LONGJMP] = "longjmp",
		[FV_DROP_THROW] = "exception",
		[FV_DROP_EXEC] = "exec",
		[FV_DROP_THREAD_END] = "thread_end",
		[FV_DROP_UNWOUND] = "unwound",
		[FV_DROP_DEPTH] = "depth",
		[FV_DROP_NOT_CALLED] = "not_called",
		[FV_DROP_ARM] = "arm_failed",
		[FV_NOTE_FOREIGN] = "foreign_read",
	};

	return cause > 0 && cause < FV_NCAUSE && names[cause] ? names[cause] : "?";
}

static int fv_check_inst(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_fvar_inst *r = (const struct rec_fvar_inst *)h;

	if (r->nmetrics > FV_MAX_METRICS) {
		snprintf(why, whylen, "fvar instance with %u metrics", r->nmetrics);
		return -EBADMSG;
	}
	/* A record of the old size was given zero nstack and npath. */
	if ((r->nstack && r->npath) || r->npath > FV_MAX_PATH ||
	    sizeof(*r) + ((uint64_t)r->nstack + r->npath) * sizeof(r->tail[0]) > h->size) {
		snprintf(why, whylen, "fvar instance with %u stack words and %u path entries in "
			 "%u bytes", r->nstack, r->npath, h->size);
		return -EBADMSG;
	}
	return 0;
}

static int fv_check_drop(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_fvar_drop *r = (const struct rec_fvar_drop *)h;

	if (!r->cause || r->cause >= FV_NCAUSE) {
		snprintf(why, whylen, "fvar drop cause %u is unknown", r->cause);
		return -EBADMSG;
	}
	return 0;
}

static int fv_check_sample(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_fvar_sample *r = (const struct rec_fvar_sample *)h;

	if (r->ncallers > FV_MAX_CALLERS) {
		snprintf(why, whylen, "fvar sample with %u callers", r->ncallers);
		return -EBADMSG;
	}
	return 0;
}

static const struct rec_desc fv_types[] = {
	{ REC_FVAR_INST, REC_T_AGENT, FV_INST_V1, sizeof(struct rec_fvar_inst), "REC_FVAR_INST",
	  fv_check_inst },
	{ REC_FVAR_DROP, REC_T_AGENT, sizeof(struct rec_fvar_drop),
	  sizeof(struct rec_fvar_drop), "REC_FVAR_DROP", fv_check_drop },
	{ REC_FVAR_SAMPLE, REC_T_AGENT, sizeof(struct rec_fvar_sample),
	  sizeof(struct rec_fvar_sample), "REC_FVAR_SAMPLE", fv_check_sample },
	{ REC_FVAR_CALIB, REC_T_AGENT, sizeof(struct rec_fvar_calib),
	  sizeof(struct rec_fvar_calib), "REC_FVAR_CALIB", NULL },
	{ REC_FVAR_TOTAL, REC_T_AGENT, sizeof(struct rec_fvar_total),
	  sizeof(struct rec_fvar_total), "REC_FVAR_TOTAL", NULL },
};

static int fv_sym(const struct rec_hdr *h, prof_need_fn need, void *ctx)
{
	int err = 0;

	if (h->type == REC_FVAR_INST) {
		const struct rec_fvar_inst *r = (const struct rec_fvar_inst *)h;

		err = need(ctx, r->pid, r->time, SYM_CODE, r->entry);
		if (!err && r->ret)
			err = need(ctx, r->pid, r->time, SYM_CODE, r->ret - 1);
		for (uint32_t k = 0; !err && k < r->npath; k++)
			err = need(ctx, r->pid, r->time, SYM_CODE, r->tail[k] - 1);
	} else if (h->type == REC_FVAR_SAMPLE) {
		const struct rec_fvar_sample *r = (const struct rec_fvar_sample *)h;

		for (uint32_t k = 0; !err && k <= r->ncallers && k <= FV_MAX_CALLERS; k++) {
			if (r->entry[k])
				err = need(ctx, r->pid, r->time, SYM_CODE, r->entry[k]);
			if (!err && k < r->ncallers && k < FV_MAX_CALLERS)
				err = need(ctx, r->pid, r->time, SYM_CODE, r->caller[k] - 1);
		}
	} else if (h->type == REC_FVAR_DROP) {
		const struct rec_fvar_drop *r = (const struct rec_fvar_drop *)h;

		if (r->entry)
			err = need(ctx, r->pid, r->time, SYM_CODE, r->entry);
		if (!err && r->ret)
			err = need(ctx, r->pid, r->time, SYM_CODE, r->ret - 1);
	}
	return err;
}

static int fv_merge(struct rec_hdr *h, prof_pid_fn pid, void *ctx)
{
	switch (h->type) {
	case REC_FVAR_INST:
		return pid(ctx, &((struct rec_fvar_inst *)h)->pid);
	case REC_FVAR_DROP:
		return pid(ctx, &((struct rec_fvar_drop *)h)->pid);
	case REC_FVAR_SAMPLE:
		return pid(ctx, &((struct rec_fvar_sample *)h)->pid);
	case REC_FVAR_CALIB:
		return pid(ctx, &((struct rec_fvar_calib *)h)->pid);
	case REC_FVAR_TOTAL:
		return pid(ctx, &((struct rec_fvar_total *)h)->pid);
	}
	return 0;
}

/* Instances of merged files must be of the same metrics. */
static const char *const fv_agree[] = { "metrics", NULL };

const struct prof_ops fvar_prof = {
	.types = fv_types,
	.ntypes = sizeof(fv_types) / sizeof(fv_types[0]),
	.fold = fv_fold,
	.sym = fv_sym,
	.merge = fv_merge,
	.agree = fv_agree,
};
