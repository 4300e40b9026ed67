// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/datafile.h"
#include "lib/core/records.h"
#include "lib/core/symbolize.h"

enum { CAP_META, CAP_PROCS, CAP_TASKS, CAP_MMAPS, CAP_SAMPLES, CAP_TRAPS, CAP_ERRORS, CAP_TOOL,
       CAP_CPUS, CAP_N };
_Static_assert(CAP_N <= sizeof(((struct profile *)0)->caps) / sizeof(size_t), "profile.caps");

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
}

/*
 * Lookups by pid and (pid, tid), which every record of a report makes:
 * hashes over the processes and the tasks, each grown as they are added;
 * the tasks' is made again when they are renumbered.  A tid reused (exec
 * keeps the main thread's) has one task in the hash and the others in a
 * chain from it, so a lookup stops at its first match.  Small profiles
 * scan.
 */
struct prof_index {
	struct hash procs; /* over p->procs, by pid */
	size_t nprocs;     /* of p->procs in it */
	struct hash tasks; /* over p->tasks: the first task of each (pid, tid) */
	uint32_t *next;    /* per task: the next of its (pid, tid) + 1, 0 if none */
	size_t ntasks, next_cap;
	int tasks_stale;
};

#define PROF_IX_MIN 16 /* fewer entries: a scan is as fast */

static void profile_ix_free(struct profile *p)
{
	if (!p->ix)
		return;
	hash_free(&p->ix->procs);
	hash_free(&p->ix->tasks);
	free(p->ix->next);
	free(p->ix);
	p->ix = NULL;
}

/* The index of a profile being read; NULL (callers scan) without memory. */
static struct prof_index *profile_ix(const struct profile *p)
{
	/* Built on demand like the views' cache; no profile is defined const. */
	struct profile *q = (struct profile *)p;

	if (!q->ix)
		q->ix = calloc(1, sizeof(*q->ix));
	return q->ix;
}

static uint64_t profile_tid_hash(uint32_t pid, uint32_t tid)
{
	return hash_u64((uint64_t)pid << 32 | tid);
}

/* The process hash, with every process added since the last call. */
static const struct prof_index *profile_ix_procs(const struct profile *p)
{
	struct prof_index *x = profile_ix(p);

	if (!x)
		return NULL;
	for (; x->nprocs < p->nprocs; x->nprocs++)
		if (hash_add(&x->procs, hash_u64(p->procs[x->nprocs].pid), x->nprocs))
			return NULL;
	return x;
}

/* The first task of (pid, tid), or HASH_NONE. */
static size_t profile_ix_first(const struct profile *p, const struct prof_index *x,
			       uint32_t pid, uint32_t tid)
{
	for (size_t c = 0, i; (i = hash_walk(&x->tasks, profile_tid_hash(pid, tid), &c)) !=
			      HASH_NONE;)
		if (p->tasks[i].pid == pid && p->tasks[i].tid == tid)
			return i;
	return HASH_NONE;
}

/* Task i into the hash, or at the end of its (pid, tid)'s chain. */
static int profile_ix_task(const struct profile *p, struct prof_index *x, size_t i)
{
	const struct rec_task *t = &p->tasks[i];
	size_t k = profile_ix_first(p, x, t->pid, t->tid);

	if (array_grow(&x->next, &x->next_cap, i, sizeof(*x->next)))
		return -ENOMEM;
	x->next[i] = 0;
	if (k == HASH_NONE)
		return hash_add(&x->tasks, profile_tid_hash(t->pid, t->tid), i);
	while (x->next[k])
		k = x->next[k] - 1;
	x->next[k] = (uint32_t)i + 1;
	return 0;
}

/* The task hash, with every task added since the last call; made again
 * when the tasks were renumbered. */
static const struct prof_index *profile_ix_tasks(const struct profile *p)
{
	struct prof_index *x = profile_ix(p);

	if (!x)
		return NULL;
	if (x->tasks_stale) {
		hash_clear(&x->tasks);
		x->ntasks = 0;
		x->tasks_stale = 0;
	}
	for (; x->ntasks < p->ntasks; x->ntasks++)
		if (profile_ix_task(p, x, x->ntasks))
			return NULL;
	return x;
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->nmeta; i++) {
		free(p->meta[i].key);
		free(p->meta[i].value);
	}
	free(p->meta);
	topo_free(&p->topo);
	for (size_t i = 0; i < p->nprocs; i++)
		free(p->procs[i].exe);
	free(p->procs);
	free(p->tasks);
	for (size_t i = 0; i < p->nmmaps; i++)
		free(p->mmaps[i]);
	free(p->mmaps);
	free(p->samples);
	free(p->traps);
	for (size_t i = 0; i < p->nerrors; i++)
		free(p->errors[i].msg);
	free(p->errors);
	for (size_t i = 0; i < p->ntool_recs; i++)
		free(p->tool_recs[i]);
	free(p->tool_recs);
	for (size_t i = 0; i < p->nsyms; i++) {
		free(p->syms[i].name);
		free(p->syms[i].file);
		free(p->syms[i].module);
	}
	free(p->syms);
	hash_free(&p->sym_ix);
	if (p->cache && p->cache->free)
		p->cache->free(p->cache->data);
	free(p->cache);
	profile_objs_free(p);
	profile_ix_free(p);
	profile_merge_free(p);
	profile_init(p);
}

int profile_set_meta(struct profile *p, const char *key, const char *value)
{
	char *k, *v;

	for (size_t i = 0; i < p->nmeta; i++) {
		if (strcmp(p->meta[i].key, key))
			continue;
		v = strdup(value);
		if (!v)
			return -ENOMEM;
		free(p->meta[i].value);
		p->meta[i].value = v;
		return 0;
	}
	if (array_grow(&p->meta, &p->caps[CAP_META], p->nmeta, sizeof(*p->meta)))
		return -ENOMEM;
	k = strdup(key);
	v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	p->meta[p->nmeta].key = k;
	p->meta[p->nmeta].value = v;
	p->nmeta++;
	return 0;
}

const char *profile_meta(const struct profile *p, const char *key)
{
	for (size_t i = 0; i < p->nmeta; i++)
		if (!strcmp(p->meta[i].key, key))
			return p->meta[i].value;
	return NULL;
}

/* The latest task of (pid, tid): on the index, as a run that starts
 * thousands of threads looks up every new one (a scan was quadratic: a
 * third of cdt's CPU time over 20000 short threads). */
static struct rec_task *profile_find_task(const struct profile *p, uint32_t pid,
					  uint32_t tid)
{
	const struct prof_index *x = p->ntasks >= PROF_IX_MIN ? profile_ix_tasks(p) : NULL;
	size_t i;

	if (x) {
		i = profile_ix_first(p, x, pid, tid);
		if (i == HASH_NONE)
			return NULL;
		while (x->next[i])
			i = x->next[i] - 1;
		return &p->tasks[i];
	}
	for (i = p->ntasks; i-- > 0;)
		if (p->tasks[i].tid == tid && p->tasks[i].pid == pid)
			return &p->tasks[i];
	return NULL;
}

/* profile_task_by_tid on the index: it looks at the tasks of (pid, tid) only. */
static const struct rec_task *profile_task_ix(const struct profile *p,
					      const struct prof_index *x, uint32_t pid,
					      uint32_t tid, uint64_t time)
{
	size_t first = profile_ix_first(p, x, pid, tid), last = HASH_NONE;

	if (first == HASH_NONE)
		return NULL;
	/* The latest task (by position) that had started, else the first. */
	for (size_t i = first;; i = x->next[i] - 1) {
		if (p->tasks[i].start <= time)
			last = i;
		if (!x->next[i])
			break;
	}
	return &p->tasks[last != HASH_NONE ? last : first];
}

const struct rec_task *profile_task_by_tid(const struct profile *p, uint32_t pid,
					   uint32_t tid, uint64_t time)
{
	const struct rec_task *any = NULL;
	const struct prof_index *x = p->ntasks >= PROF_IX_MIN ? profile_ix_tasks(p) : NULL;

	if (x)
		return profile_task_ix(p, x, pid, tid, time);
	for (size_t i = p->ntasks; i-- > 0;) {
		const struct rec_task *t = &p->tasks[i];

		if (t->tid != tid || t->pid != pid)
			continue;
		if (t->start <= time)
			return t;
		any = t;
	}
	return any;
}

struct prof_proc *profile_find_proc(const struct profile *p, uint32_t pid)
{
	const struct prof_index *x = p->nprocs >= PROF_IX_MIN ? profile_ix_procs(p) : NULL;

	if (x) {
		for (size_t c = 0, i; (i = hash_walk(&x->procs, hash_u64(pid), &c)) != HASH_NONE;)
			if (p->procs[i].pid == pid)
				return &p->procs[i];
		return NULL;
	}
	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			return &p->procs[i];
	return NULL;
}

uint32_t profile_image(const struct profile *p, uint32_t pid, uint64_t time)
{
	const struct prof_proc *pr = profile_find_proc(p, pid);
	uint32_t gen = 0;

	for (unsigned i = 0; pr && i < pr->nexec; i++)
		if (pr->exec_time[i] <= time)
			gen = i + 1;
	return pid | gen << 22;
}

static int profile_add_proc(struct profile *p, const struct rec_proc *r)
{
	struct prof_proc *pr = profile_find_proc(p, r->pid);
	char *exe = strdup(r->exe);

	if (!exe)
		return -ENOMEM;
	if (pr) {
		/* The same pid again: exec replaced the image and its threads. */
		free(pr->exe);
		pr->flags |= PROC_F_EXEC | (r->flags & PROC_F_UNSEEN);
		pr->ended = 0;
		if (pr->nexec < PROF_MAX_EXEC)
			pr->exec_time[pr->nexec++] = r->time;
		for (size_t i = 0; i < p->ntasks; i++)
			if (p->tasks[i].pid == r->pid && !p->tasks[i].end)
				p->tasks[i].end = r->time;
	} else {
		if (array_grow(&p->procs, &p->caps[CAP_PROCS], p->nprocs, sizeof(*p->procs))) {
			free(exe);
			return -ENOMEM;
		}
		pr = &p->procs[p->nprocs++];
		pr->pid = r->pid;
		pr->ppid = r->ppid;
		pr->flags = r->flags;
		pr->start = r->time;
		pr->ended = 0;
		pr->nexec = 0;
	}
	pr->exe = exe;
	return 0;
}

static int profile_add_thread(struct profile *p, const struct rec_thread *r)
{
	struct rec_task *t = profile_find_task(p, r->pid, r->tid);
	const struct prof_proc *pr = profile_find_proc(p, r->pid);

	if (t && !t->end)
		return 0;
	if (array_grow(&p->tasks, &p->caps[CAP_TASKS], p->ntasks, sizeof(*p->tasks)))
		return -ENOMEM;
	t = &p->tasks[p->ntasks++];
	memset(t, 0, sizeof(*t));
	t->h.size = sizeof(*t);
	t->h.type = REC_TASK;
	t->index = UINT32_MAX;
	t->pid = r->pid;
	t->tid = r->tid;
	t->ppid = pr ? pr->ppid : 0;
	t->start = r->time;
	t->flags = r->flags;
	memcpy(t->name, r->name, sizeof(t->name));
	return 0;
}

static uint64_t profile_stats_events(const struct agent_stats *st, const struct agent_ext *x)
{
	return st->samples + st->steps + st->traps + st->chained + x->stray + x->async;
}

/*
 * The program's side of the cost: its threads' CPU time, the rate they
 * were sampled at, and the estimate of what the samples cost them.  Each
 * thread's handlers are weighed with its own measured cost per sample.
 */
static void profile_cost_program(const struct profile *p, struct prof_cost *c)
{
	const char *costs = profile_meta(p, "clock_costs_ns");
	unsigned long long tick, perf, posix, sw;
	uint64_t samples = 0;
	double cpu = 0;

	c->have_est = costs && sscanf(costs, "tick %llu perf %llu posix %llu switch %llu", &tick,
				      &perf, &posix, &sw) == 4;
	for (size_t i = 0; i < p->ntasks; i++) {
		const struct rec_task *t = &p->tasks[i];
		const struct agent_ext *x = &t->ext;
		uint64_t posix_n = x->posix_n < t->st.samples ? x->posix_n : t->st.samples;

		if (!x->cpu_ns)
			continue;
		cpu += (double)x->cpu_ns;
		samples += t->st.samples;
		c->posix_n += posix_n;
		c->perf_n += t->st.samples - posix_n;
		if (!c->have_est)
			continue;
		if (x->sample_cpu_n)
			c->est_handler_ns += (double)x->sample_cpu_ns / (double)x->sample_cpu_n *
					     (double)t->st.samples;
		c->est_kernel_ns += (double)posix_n * (double)posix +
				    (double)(t->st.samples - posix_n) * (double)perf;
		c->est_switch_ns += (double)x->perf_switches * (double)sw;
	}
	c->cpu_s = cpu / 1e9;
	c->rate_used = cpu > 0 ? (double)samples * 1e9 / cpu : 0;
}

/* Fewer samples than this per thread make too noisy a rate to warn on. */
#define COST_MIN_SAMPLES 100

void profile_cost(const struct profile *p, uint64_t now, struct prof_cost *c)
{
	uint64_t samples = 0, wall = 0, traps = 0, trap_wall = 0, last = 0;
	struct agent_ext x = { 0 };

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < p->ntasks; i++) {
		const struct rec_task *t = &p->tasks[i];

		samples += t->st.samples;
		wall += t->st.handler_ns;
		traps += t->st.traps;
		trap_wall += t->st.trap_ns;
		x.sample_cpu_ns += t->ext.sample_cpu_ns;
		x.sample_cpu_n += t->ext.sample_cpu_n;
		x.trap_cpu_ns += t->ext.trap_cpu_ns;
		x.trap_cpu_n += t->ext.trap_cpu_n;
		if (t->end > last)
			last = t->end;
	}
	profile_cost_program(p, c);
	c->cpu = x.sample_cpu_n > 0;
	c->sample_ns = c->cpu ? (double)x.sample_cpu_ns / (double)x.sample_cpu_n :
		       samples ? (double)wall / (double)samples : 0;
	c->trap_ns = x.trap_cpu_n ? (double)x.trap_cpu_ns / (double)x.trap_cpu_n :
		     traps ? (double)trap_wall / (double)traps : 0;
	/* The watchpoint traps a sample leads to are part of its cost. */
	c->all_ns = c->sample_ns + (samples ? c->trap_ns * (double)traps / (double)samples : 0);
	if (!now)
		now = last;
	for (size_t i = 0; i < p->ntasks; i++) {
		const struct rec_task *t = &p->tasks[i];
		uint64_t end = t->end ? t->end : now;
		/* Its CPU time, which the handlers count in; a 1.0 file has
		 * only its life, which also counts waiting for a core. */
		double span = t->ext.cpu_ns ? (double)t->ext.cpu_ns :
			      end > t->start ? (double)(end - t->start) : 0, share;

		if (t->st.samples < COST_MIN_SAMPLES || span <= 0)
			continue;
		share = (c->sample_ns * (double)t->st.samples +
			 c->trap_ns * (double)t->st.traps) / span;
		if (share > c->share) {
			c->share = share > 1 ? 1 : share;
			c->rate = (uint64_t)((double)t->st.samples * 1e9 / span);
		}
	}
}

/*
 * A thread's stats snapshot (REC_THREAD_STATS now and then, REC_THREAD_END
 * last); `ended` for the latter.  The counters only grow, so the latest
 * snapshot has the most events: at exit another thread flushes ours, and
 * a snapshot the thread sends meanwhile may reach the arena first.
 */
static void profile_thread_stats(struct profile *p, const struct rec_thread_end *r,
				 int ended)
{
	struct rec_task *t = profile_find_task(p, r->pid, r->tid);

	if (!t)
		return;
	if (ended)
		t->end = r->time;
	if (profile_stats_events(&r->st, &r->ext) < profile_stats_events(&t->st, &t->ext))
		return;
	t->st = r->st;
	t->ext = r->ext;
	if (r->name[0])
		memcpy(t->name, r->name, sizeof(t->name));
}

static int profile_add_mmap(struct profile *p, const struct rec_mmap *r)
{
	struct rec_mmap *m;

	for (size_t i = 0; i < p->nmmaps; i++) {
		m = p->mmaps[i];
		if (m->pid == r->pid && m->start == r->start && m->end == r->end &&
		    m->pgoff == r->pgoff && !strcmp(m->path, r->path))
			return 0;
	}
	if (array_grow(&p->mmaps, &p->caps[CAP_MMAPS], p->nmmaps, sizeof(*p->mmaps)))
		return -ENOMEM;
	m = malloc(r->h.size);
	if (!m)
		return -ENOMEM;
	memcpy(m, r, r->h.size);
	m->h.flags = 0;
	p->mmaps[p->nmmaps++] = m;
	return 0;
}

static int profile_add_error(struct profile *p, const struct rec_error *r)
{
	struct prof_error *e;

	for (size_t i = 0; i < p->nerrors; i++) {
		if (p->errors[i].err == r->err && !strcmp(p->errors[i].msg, r->msg)) {
			p->errors[i].count++;
			return 0;
		}
	}
	if (array_grow(&p->errors, &p->caps[CAP_ERRORS], p->nerrors, sizeof(*p->errors)))
		return -ENOMEM;
	e = &p->errors[p->nerrors];
	e->msg = strdup(r->msg);
	if (!e->msg)
		return -ENOMEM;
	e->pid = r->pid;
	e->tid = r->tid;
	e->err = r->err;
	e->count = 1;
	p->nerrors++;
	return 0;
}

static uint64_t profile_sym_hash(uint32_t pid, int kind, uint64_t addr)
{
	return hash_mix(addr, (uint64_t)kind << 32 | pid);
}

const struct prof_sym *profile_sym_image(const struct profile *p, uint32_t image, int kind,
					 uint64_t addr)
{
	for (size_t c = 0, i;
	     (i = hash_walk(&p->sym_ix, profile_sym_hash(image, kind, addr), &c)) != HASH_NONE;) {
		const struct prof_sym *s = &p->syms[i];

		if (s->addr == addr && s->pid == image && s->kind == kind)
			return s;
	}
	return NULL;
}

const struct prof_sym *profile_sym(const struct profile *p, uint32_t pid, uint64_t time,
				   int kind, uint64_t addr)
{
	return profile_sym_image(p, profile_image(p, pid, time), kind, addr);
}

static char *profile_strdup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

static int profile_put_sym(struct profile *p, uint32_t pid, int kind, uint64_t addr,
			   const struct sym_info *si)
{
	struct prof_sym *s;
	int err;

	if (profile_sym_image(p, pid, kind, addr))
		return 0;
	err = array_grow(&p->syms, &p->syms_cap, p->nsyms, sizeof(*p->syms));
	if (!err)
		err = hash_add(&p->sym_ix, profile_sym_hash(pid, kind, addr), p->nsyms);
	if (err)
		return err;
	s = &p->syms[p->nsyms];
	s->pid = pid;
	s->kind = (uint16_t)kind;
	s->addr = addr;
	s->start = si->start;
	s->size = si->size;
	s->line = si->line;
	s->name = profile_strdup_or_null(si->name);
	s->file = profile_strdup_or_null(si->file);
	s->module = profile_strdup_or_null(si->module);
	p->nsyms++;
	return 0;
}

static int profile_add_sym(struct profile *p, const struct rec_sym *r)
{
	struct sym_info si = { 0 };
	const char *str = r->str;

	si.name = r->name_len > 1 ? str : NULL;
	str += r->name_len;
	si.file = r->file_len > 1 ? str : NULL;
	str += r->file_len;
	si.module = r->module_len > 1 ? str : NULL;
	si.start = r->sym_start;
	si.size = r->sym_size;
	si.line = r->line;
	return profile_put_sym(p, r->pid, r->kind, r->addr, &si);
}

static int profile_keep(struct profile *p, const struct rec_hdr *r)
{
	struct rec_hdr *c;

	if (array_grow(&p->tool_recs, &p->caps[CAP_TOOL], p->ntool_recs,
			 sizeof(*p->tool_recs)))
		return -ENOMEM;
	c = malloc(r->size);
	if (!c)
		return -ENOMEM;
	memcpy(c, r, r->size);
	c->flags = 0;
	p->tool_recs[p->ntool_recs++] = c;
	return 0;
}

static int profile_add_cpu(struct profile *p, const struct rec_cpu *r)
{
	struct topo *t = &p->topo;

	if (!t->ncpus) /* none yet, or a merge dropped them (topo_free) */
		p->caps[CAP_CPUS] = 0;
	if (array_grow(&t->cpus, &p->caps[CAP_CPUS], (size_t)t->ncpus, sizeof(*t->cpus)))
		return -ENOMEM;
	t->cpus[t->ncpus++] = (struct topo_cpu){ r->cpu, r->core, r->socket, r->node };
	if (r->core >= t->ncores)
		t->ncores = r->core + 1;
	if (r->socket >= t->nsockets)
		t->nsockets = r->socket + 1;
	if (r->node >= t->nnodes)
		t->nnodes = r->node + 1;
	return 0;
}

/* The description of a record type: a core one, or the profile's tool's;
 * NULL for a type neither knows. */
static const struct rec_desc *profile_desc(const struct profile *p, uint16_t type)
{
	if (type < REC_TOOL_BASE)
		return rec_core(type);
	for (size_t i = 0; p->ops && i < p->ops->ntypes; i++)
		if (p->ops->types[i].type == type)
			return &p->ops->types[i];
	return NULL;
}

/*
 * The tool became known from its "tool" meta.  Its records that came
 * before were kept as a stranger's, unchecked: they are taken again now,
 * checked against their types and folded when reporting, as if the meta
 * had come first (cdt writes it first; a file need not).  Otherwise the
 * writer would put out records a reader of the copy refuses.
 */
static int profile_adopt(struct profile *p)
{
	struct rec_hdr **old = p->tool_recs;
	size_t n = p->ntool_recs, i;
	int err = 0;

	p->tool_recs = NULL;
	p->ntool_recs = 0;
	p->caps[CAP_TOOL] = 0;
	for (i = 0; i < n && !err; i++) {
		err = profile_add(p, old[i]);
		free(old[i]);
	}
	for (; i < n; i++)
		free(old[i]);
	free(old);
	return err;
}

static int profile_add_meta(struct profile *p, const struct rec_meta *r)
{
	const char *k = r->kv, *v = k + strlen(k) + 1;
	int err = profile_set_meta(p, k, v);

	if (!err && !p->ops && p->ops_of && !strcmp(k, "tool")) {
		p->ops = p->ops_of(v);
		if (p->ops && p->ntool_recs)
			err = profile_adopt(p);
	}
	return err;
}

/* A tool's record: summed by its fold when reporting, else kept. */
static int profile_add_tool(struct profile *p, const struct rec_hdr *r, int known)
{
	if (known && p->folding && p->ops->fold) {
		int err = p->ops->fold(p, r);

		if (err <= 0)
			return err;
	}
	return profile_keep(p, r);
}

int profile_add(struct profile *p, const struct rec_hdr *r)
{
	unsigned char buf[REC_FIXED_MAX] __attribute__((aligned(8)));
	const struct rec_desc *t = profile_desc(p, r->type);

	if (t) {
		r = rec_accept(t, r, buf, p->why, sizeof(p->why), NULL);
		if (!r)
			return -EBADMSG;
	}
	switch (r->type) {
	case REC_PROC:
		return profile_add_proc(p, (const struct rec_proc *)r);
	case REC_PROC_END: {
		const struct rec_proc_end *e = (const struct rec_proc_end *)r;
		struct prof_proc *pr = profile_find_proc(p, e->pid);

		if (pr) {
			pr->ended = e->how != PROC_END_SIGNAL && e->how != PROC_END_ALIVE;
			pr->end = e->time;
			pr->end_how = e->how;
			pr->end_status = e->status;
		}
		return 0;
	}
	case REC_THREAD:
		return profile_add_thread(p, (const struct rec_thread *)r);
	case REC_THREAD_END:
	case REC_THREAD_STATS:
		profile_thread_stats(p, (const struct rec_thread_end *)r,
				     r->type == REC_THREAD_END);
		return 0;
	case REC_TASK:
		if (array_grow(&p->tasks, &p->caps[CAP_TASKS], p->ntasks, sizeof(*p->tasks)))
			return -ENOMEM;
		p->tasks[p->ntasks] = *(const struct rec_task *)r;
		p->tasks[p->ntasks++].h.size = sizeof(struct rec_task);
		return 0;
	case REC_MMAP:
		return profile_add_mmap(p, (const struct rec_mmap *)r);
	case REC_SAMPLE:
		if (array_grow(&p->samples, &p->caps[CAP_SAMPLES], p->nsamples,
				 sizeof(*p->samples)))
			return -ENOMEM;
		p->samples[p->nsamples] = *(const struct rec_sample *)r;
		p->samples[p->nsamples++].h.size = sizeof(struct rec_sample);
		return 0;
	case REC_TRAP:
		if (array_grow(&p->traps, &p->caps[CAP_TRAPS], p->ntraps, sizeof(*p->traps)))
			return -ENOMEM;
		p->traps[p->ntraps] = *(const struct rec_trap *)r;
		p->traps[p->ntraps++].h.size = sizeof(struct rec_trap);
		return 0;
	case REC_ALLOC:
	case REC_FREE:
		return profile_objs_add(p, r);
	case REC_ERROR:
		return profile_add_error(p, (const struct rec_error *)r);
	case REC_META:
		return profile_add_meta(p, (const struct rec_meta *)r);
	case REC_CPU:
		return profile_add_cpu(p, (const struct rec_cpu *)r);
	case REC_SYM:
		return profile_add_sym(p, (const struct rec_sym *)r);
	case REC_RUNSTATS:
		p->run = *(const struct rec_runstats *)r;
		p->run.h.size = sizeof(p->run);
		p->have_run = 1;
		return 0;
	default:
		if (r->type < REC_TOOL_BASE)
			return 0;
		return profile_add_tool(p, r, t != NULL);
	}
}

static int task_cmp(const void *a, const void *b)
{
	const struct rec_task *x = a, *y = b;

	/* start is when the thread was created, not when it first ran. */
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Same instant: the process's main thread first, then by tid. */
	if ((x->flags & THREAD_F_MAIN) != (y->flags & THREAD_F_MAIN))
		return x->flags & THREAD_F_MAIN ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void profile_number_tasks(struct profile *p)
{
	/* qsort's array must not be NULL, even empty: a run may see no thread. */
	if (p->ntasks)
		qsort(p->tasks, p->ntasks, sizeof(*p->tasks), task_cmp);
	for (size_t i = 0; i < p->ntasks; i++)
		p->tasks[i].index = (uint32_t)i;
	if (p->ix)
		p->ix->tasks_stale = 1;
}

/* ---- symbolization ---- */

/* Allocation call paths: return addresses, so the call is the byte before. */
static int profile_sym_paths(struct profile *p, struct symbolizer *s)
{
	int err = 0;

	for (size_t i = 0; !err && i < p->objs.npaths; i++) {
		const struct prof_path *x = &p->objs.paths[i];

		for (uint32_t k = 0; !err && k < x->depth; k++) {
			struct sym_info si = { 0 };
			uint64_t a = x->frames[k] - 1;

			if (!x->frames[k] || profile_sym_image(p, x->image, SYM_SITE, a))
				continue;
			sym_site(s, x->image, a, &si);
			err = profile_put_sym(p, x->image, SYM_SITE, a, &si);
		}
	}
	return err;
}

static int profile_sym_one(struct profile *p, struct symbolizer *s, uint32_t pid,
			   uint64_t time, int kind, uint64_t addr)
{
	uint32_t key = profile_image(p, pid, time);
	struct sym_info si = { 0 };
	int err;

	if (!addr || profile_sym_image(p, key, kind, addr))
		return 0;
	if (kind == SYM_CODE)
		sym_code(s, key, addr, &si);
	else
		sym_data(s, key, addr, &si);
	err = profile_put_sym(p, key, kind, addr, &si);
	if (!err && si.inl)
		err = profile_put_sym(p, key, SYM_INLINE, addr,
				      &(struct sym_info){ .name = si.inl, .module = si.module });
	return err;
}

static int profile_sym_modules(struct profile *p, struct symbolizer *s)
{
	int err;

	for (size_t i = 0; i < p->nmmaps; i++) {
		const struct rec_mmap *m = p->mmaps[i];

		err = sym_add_module(s, profile_image(p, m->pid, m->time), m->start, m->end,
				     m->pgoff, m->path, m->build_id, m->build_id_len);
		/* A module that cannot be placed leaves its addresses raw; only
		 * running out of memory stops symbolization. */
		if (err == -ENOMEM)
			return err;
	}
	/* A forked child starts with its parent's image and records no modules. */
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct prof_proc *pr = &p->procs[i];

		if (!(pr->flags & PROC_F_FORK))
			continue;
		err = sym_fork(s, profile_image(p, pr->ppid, pr->start),
			       profile_image(p, pr->pid, pr->start));
		if (err == -ENOMEM)
			return err;
	}
	return 0;
}

struct sym_ctx {
	struct profile *p;
	struct symbolizer *s;
};

static int profile_sym_need(void *ctx, uint32_t pid, uint64_t time, int kind, uint64_t addr)
{
	const struct sym_ctx *c = ctx;

	return profile_sym_one(c->p, c->s, pid, time, kind, addr);
}

int profile_symbolize(struct profile *p, char *warn, size_t warnlen)
{
	struct symbolizer *s = NULL;
	const char *stale;
	unsigned nstale;
	int err;

	if (warnlen)
		warn[0] = '\0';
	err = sym_create(&s);
	if (err)
		return err;
	err = profile_sym_modules(p, s);
	for (size_t i = 0; !err && i < p->nsamples; i++) {
		const struct rec_sample *x = &p->samples[i];

		err = profile_sym_one(p, s, x->pid, x->time, SYM_CODE, x->ip);
		if (!err && (x->flags & SAMPLE_F_ADDR) && !(x->flags & SAMPLE_F_STACK))
			err = profile_sym_one(p, s, x->pid, x->time, SYM_DATA, x->addr);
	}
	for (size_t i = 0; !err && i < p->ntraps; i++) {
		const struct rec_trap *x = &p->traps[i];

		err = profile_sym_one(p, s, x->pid, x->time, SYM_CODE,
				      x->flags & TRAP_F_INSN ? x->insn_ip : x->ip);
		if (!err)
			err = profile_sym_one(p, s, x->pid, x->time, SYM_DATA, x->wp_addr);
	}
	for (size_t i = 0; !err && p->ops && p->ops->sym && i < p->ntool_recs; i++)
		err = p->ops->sym(p->tool_recs[i], profile_sym_need, &(struct sym_ctx){ p, s });
	if (!err)
		err = profile_sym_paths(p, s);
	nstale = sym_stale(s, &stale);
	if (nstale && warnlen)
		snprintf(warn, warnlen, "%u module%s changed on disk since the run (%s): "
			 "their addresses are left unsymbolized", nstale,
			 nstale > 1 ? "s" : "", stale);
	if (!err)
		sym_save(s);
	sym_destroy(s);
	return err;
}

/* ---- file ---- */

static int profile_write_sym(struct df_writer *w, const struct prof_sym *s)
{
	/* A name too long for name_len is cut, not the record. */
	size_t ln = s->name ? strnlen(s->name, UINT16_MAX - 1) + 1 : 1;
	size_t lf = s->file ? strnlen(s->file, 4095) + 1 : 1;
	size_t lm = s->module ? strnlen(s->module, 4095) + 1 : 1;
	uint32_t size = REC_SIZE(sizeof(struct rec_sym) + ln + lf + lm);
	struct rec_sym *r;
	int err;

	r = calloc(1, size);
	if (!r)
		return -ENOMEM;
	r->h.size = size;
	r->h.type = REC_SYM;
	r->pid = s->pid;
	r->kind = s->kind;
	r->name_len = (uint16_t)ln;
	r->addr = s->addr;
	r->sym_start = s->start;
	r->sym_size = s->size;
	r->line = s->line;
	r->file_len = (uint32_t)lf;
	r->module_len = (uint32_t)lm;
	if (s->name)
		memcpy(r->str, s->name, ln - 1);
	if (s->file)
		memcpy(r->str + ln, s->file, lf - 1);
	if (s->module)
		memcpy(r->str + ln + lf, s->module, lm - 1);
	err = df_write(w, &r->h);
	free(r);
	return err;
}

/* One REC_PROC per image, so a reader rebuilds the exec times. */
static int profile_write_proc(struct df_writer *w, const struct prof_proc *pr)
{
	size_t n = strlen(pr->exe) + 1;
	uint32_t size = REC_SIZE(sizeof(struct rec_proc) + n);
	struct rec_proc *r = calloc(1, size);
	int err;

	if (!r)
		return -ENOMEM;
	r->h.size = size;
	r->h.type = REC_PROC;
	r->pid = pr->pid;
	r->ppid = pr->ppid;
	r->time = pr->start;
	r->flags = pr->flags & ~(uint32_t)PROC_F_EXEC;
	memcpy(r->exe, pr->exe, n);
	err = df_write(w, &r->h);
	for (unsigned i = 0; !err && i < pr->nexec; i++) {
		r->time = pr->exec_time[i];
		r->flags = PROC_F_EXEC;
		err = df_write(w, &r->h);
	}
	free(r);
	if (!err && (pr->ended || pr->end_how)) {
		struct rec_proc_end e = { .h = { sizeof(e), REC_PROC_END, 0 }, .pid = pr->pid,
					  .time = pr->end, .how = pr->end_how,
					  .status = pr->end_status };

		err = df_write(w, &e.h);
	}
	return err;
}

static int profile_write_error(struct df_writer *w, const struct prof_error *e)
{
	size_t n = strlen(e->msg) + 1;
	uint32_t size = REC_SIZE(sizeof(struct rec_error) + n);
	struct rec_error *r = calloc(1, size);
	int err = 0;

	if (!r)
		return -ENOMEM;
	r->h.size = size;
	r->h.type = REC_ERROR;
	r->pid = e->pid;
	r->tid = e->tid;
	r->err = e->err;
	memcpy(r->msg, e->msg, n);
	for (unsigned i = 0; !err && i < e->count; i++)
		err = df_write(w, &r->h);
	free(r);
	return err;
}

static int profile_write_body(const struct profile *p, struct df_writer *w)
{
	int err = 0;

	for (size_t i = 0; !err && i < p->nmeta; i++)
		err = df_write_meta(w, p->meta[i].key, p->meta[i].value);
	for (int i = 0; !err && i < p->topo.ncpus; i++) {
		const struct topo_cpu *c = &p->topo.cpus[i];
		struct rec_cpu r = { { sizeof(r), REC_CPU, 0 }, c->cpu, c->core, c->socket, c->node };

		err = df_write(w, &r.h);
	}
	for (size_t i = 0; !err && i < p->nprocs; i++)
		err = profile_write_proc(w, &p->procs[i]);
	for (size_t i = 0; !err && i < p->ntasks; i++)
		err = df_write(w, &p->tasks[i].h);
	for (size_t i = 0; !err && i < p->nmmaps; i++)
		err = df_write(w, &p->mmaps[i]->h);
	for (size_t i = 0; !err && i < p->nsyms; i++)
		err = profile_write_sym(w, &p->syms[i]);
	for (size_t i = 0; !err && i < p->nsamples; i++)
		err = df_write(w, &p->samples[i].h);
	for (size_t i = 0; !err && i < p->ntraps; i++)
		err = df_write(w, &p->traps[i].h);
	for (size_t i = 0; !err && i < p->nerrors; i++)
		err = profile_write_error(w, &p->errors[i]);
	if (!err)
		err = profile_objs_write(p, w);
	for (size_t i = 0; !err && i < p->ntool_recs; i++)
		err = df_write(w, p->tool_recs[i]);
	if (!err && p->have_run)
		err = df_write(w, &p->run.h);
	return err;
}

int profile_write(const struct profile *p, const char *path)
{
	struct df_writer *w;
	int err = df_create(&w, path);

	if (err)
		return err;
	err = profile_write_body(p, w);
	if (err) {
		df_abort(w);
		return err;
	}
	return df_commit(w);
}

static int profile_read_one(const struct rec_hdr *r, void *arg)
{
	return profile_add(arg, r);
}

int profile_read(struct profile *p, const char *path, char *err, size_t errlen)
{
	int r;

	p->why[0] = '\0';
	r = df_read(path, profile_read_one, p, err, errlen);
	if (r == -EBADMSG && errlen && !err[0] && p->why[0])
		snprintf(err, errlen, "corrupt: %s", p->why);
	return r;
}

void *profile_cache(const struct profile *p, size_t size, void (*free_data)(void *data))
{
	struct prof_cache *c;
	void *data;

	if (p->cache)
		return p->cache->data;
	data = calloc(1, size);
	c = malloc(sizeof(*c));
	if (!data || !c) {
		free(data);
		free(c);
		return NULL;
	}
	c->data = data;
	c->free = free_data;
	/* Memoized in the profile; no profile object is ever defined const. */
	((struct profile *)p)->cache = c;
	return data;
}
