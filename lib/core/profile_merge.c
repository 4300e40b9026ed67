// SPDX-License-Identifier: GPL-2.0-only
/*
 * Merging the profiles of several processes or MPI ranks (profile.h).
 *
 * The files are read one after the other into one profile, record by
 * record, so a tool's fold (prof_ops.fold) aggregates all of them and no
 * file is ever held whole.  Each record is rewritten on its way in:
 *  - pids: hosts have pid spaces of their own, so a pid that an earlier
 *    file used is given a free key below 2^22 instead (profile_image()
 *    keeps the bits above for exec generations); profile_os_pid() gives
 *    the real pid back;
 *  - threads: thread i of a file becomes first + i, first being the
 *    number of threads before it, and profile_thread_label() shows rank.i;
 *  - meta: tool, source, period and the tool's own keys (prof_ops.agree)
 *    must agree, or the counts would not add up; other keys list their
 *    distinct values ("host": "a, b");
 *  - topology: kept when every file has the same CPUs on the same host,
 *    else dropped, so core and node matrices never mix machines;
 *  - run totals add up; the run spans the earliest start to the latest end.
 */
#include "lib/core/profile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/datafile.h"

#define MERGE_PID_BITS 22 /* pid_max is at most 2^22; profile_image() uses the rest */
#define MERGE_PID_MASK ((1u << MERGE_PID_BITS) - 1)
#define MERGE_META_MAX 256 /* a combined meta value is cut after this */

/* What must agree between merged files: the unit and scale of counts.
 * The tool adds its own (prof_ops.agree). */
static const char *const merge_agree[] = { "tool", "source", "period" };
#define MERGE_NCORE (sizeof(merge_agree) / sizeof(merge_agree[0]))
#define MERGE_NAGREE 16 /* bits of merge_in.agreed */

struct merge_rank {
	uint32_t rank, first; /* first: index of its first thread */
	char *file;
};

struct merge_key {
	uint32_t rank, pid, key;
};

struct prof_merge {
	struct merge_rank *ranks; /* in the order read, first ascending */
	size_t nranks, ranks_cap;
	struct merge_key *keys;   /* every (rank, pid) seen and its key */
	size_t nkeys, keys_cap;
	struct hash by_pid, by_key; /* over keys */
	uint32_t next_free;        /* fresh keys are taken downwards from here */
	int topo_dropped;
};

/* One file being read. */
struct merge_in {
	struct profile *p;
	struct prof_merge *m;
	uint32_t rank, first;
	int is_first;              /* the first file: its meta and CPUs are taken as they are */
	uint32_t last_pid, last_key; /* records come in runs of one pid */
	int have_last;
	struct topo topo;          /* a later file's CPUs, compared at its end */
	size_t topo_cap;
	unsigned agreed;           /* bit per merge_agree_key() the file had */
	const char *path;
	char *err;
	size_t errlen;
	void *buf;                 /* the record being rewritten */
	size_t bufcap;
};

static int merge_fail(struct merge_in *in, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int merge_fail(struct merge_in *in, const char *fmt, ...)
{
	va_list ap;

	if (in->errlen) {
		va_start(ap, fmt);
		vsnprintf(in->err, in->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

void profile_merge_free(struct profile *p)
{
	struct prof_merge *m = p->merge;

	if (!m)
		return;
	for (size_t i = 0; i < m->nranks; i++)
		free(m->ranks[i].file);
	free(m->ranks);
	free(m->keys);
	hash_free(&m->by_pid);
	hash_free(&m->by_key);
	free(m);
	p->merge = NULL;
}

static uint64_t merge_pid_hash(uint32_t rank, uint32_t pid)
{
	return hash_u64((uint64_t)rank << 32 | pid);
}

static const struct merge_key *merge_find_pid(const struct prof_merge *m, uint32_t rank,
					      uint32_t pid)
{
	for (size_t c = 0, i; (i = hash_walk(&m->by_pid, merge_pid_hash(rank, pid), &c)) !=
			      HASH_NONE;)
		if (m->keys[i].rank == rank && m->keys[i].pid == pid)
			return &m->keys[i];
	return NULL;
}

static const struct merge_key *merge_find_key(const struct prof_merge *m, uint32_t key)
{
	for (size_t c = 0, i; (i = hash_walk(&m->by_key, hash_u64(key), &c)) != HASH_NONE;)
		if (m->keys[i].key == key)
			return &m->keys[i];
	return NULL;
}

static int merge_add_key(struct prof_merge *m, uint32_t rank, uint32_t pid, uint32_t key)
{
	int err = array_grow(&m->keys, &m->keys_cap, m->nkeys, sizeof(*m->keys));

	if (err)
		return err;
	m->keys[m->nkeys] = (struct merge_key){ rank, pid, key };
	err = hash_add(&m->by_pid, merge_pid_hash(rank, pid), m->nkeys);
	if (!err)
		err = hash_add(&m->by_key, hash_u64(key), m->nkeys);
	if (!err)
		m->nkeys++;
	return err;
}

/* The key of a pid of this file: the pid itself unless taken. */
static int merge_key_of(struct merge_in *in, uint32_t pid, uint32_t *key)
{
	struct prof_merge *m = in->m;
	const struct merge_key *k;
	uint32_t want = pid;
	int err;

	if (in->have_last && in->last_pid == pid) {
		*key = in->last_key;
		return 0;
	}
	k = merge_find_pid(m, in->rank, pid);
	if (!k) {
		if (pid > MERGE_PID_MASK || merge_find_key(m, pid)) {
			while (m->next_free && merge_find_key(m, m->next_free))
				m->next_free--;
			if (!m->next_free)
				return merge_fail(in, "more than 2^22 processes");
			want = m->next_free--;
		}
		err = merge_add_key(m, in->rank, pid, want);
		if (err)
			return err;
		k = &m->keys[m->nkeys - 1];
	}
	in->last_pid = pid;
	in->last_key = k->key;
	in->have_last = 1;
	*key = k->key;
	return 0;
}

static int merge_pid(struct merge_in *in, uint32_t *pid)
{
	return merge_key_of(in, *pid, pid);
}

static int merge_pid_cb(void *ctx, uint32_t *pid)
{
	return merge_pid(ctx, pid);
}

/* A symbol's image key: the pid below bit 22, the exec generation above. */
static int merge_image(struct merge_in *in, uint32_t *image)
{
	uint32_t key;
	int err = merge_key_of(in, *image & MERGE_PID_MASK, &key);

	if (!err)
		*image = key | (*image & ~MERGE_PID_MASK);
	return err;
}

/* "a" + "b" -> "a, b": the distinct values of a key that may differ. */
static int merge_meta_value(struct profile *p, const char *key, const char *v)
{
	const char *old = profile_meta(p, key);
	size_t lo, lv = strlen(v);
	char *s;
	int err;

	if (!old)
		return profile_set_meta(p, key, v);
	lo = strlen(old);
	for (const char *q = old;; q += 2) {
		if (!strncmp(q, v, lv) && (q[lv] == '\0' || !strncmp(q + lv, ", ", 2)))
			return 0;
		q = strstr(q, ", ");
		if (!q)
			break;
	}
	if (lo >= 5 && !strcmp(old + lo - 5, ", ..."))
		return 0;
	if (lo + lv + 2 > MERGE_META_MAX)
		v = "...";
	if (asprintf(&s, "%s, %s", old, v) < 0)
		return -ENOMEM;
	err = profile_set_meta(p, key, s);
	free(s);
	return err;
}

/* The i-th key that must agree: the core's, then the tool's; NULL past them. */
static const char *merge_agree_key(const struct profile *p, size_t i)
{
	const char *const *own = p->ops ? p->ops->agree : NULL;

	if (i >= MERGE_NAGREE)
		return NULL;
	if (i < MERGE_NCORE)
		return merge_agree[i];
	for (i -= MERGE_NCORE; own && *own; own++)
		if (!i--)
			return *own;
	return NULL;
}

static const char *merge_first_file(const struct merge_in *in)
{
	return in->m->nranks ? in->m->ranks[0].file : "the first file";
}

static int merge_meta(struct merge_in *in, const struct rec_meta *r)
{
	const char *k = r->kv, *v = k + strlen(k) + 1, *have, *a;

	if (in->is_first)
		return profile_add(in->p, &r->h);
	for (size_t i = 0; (a = merge_agree_key(in->p, i)); i++) {
		if (strcmp(k, a))
			continue;
		in->agreed |= 1u << i;
		have = profile_meta(in->p, k);
		if (have && !strcmp(have, v))
			return 0;
		if (i == 0)
			return merge_fail(in, "a %s profile, but %s is a %s profile: cdt report "
					  "merges profiles of one tool only", v, merge_first_file(in),
					  have ? have : "tool-less");
		return merge_fail(in, "%s %s, but %s has %s %s: counts of the two would not "
				  "add up", k, v, merge_first_file(in), k, have ? have : "none");
	}
	/* A second host: its cores are not the first one's. */
	if (!strcmp(k, "host") && (!(have = profile_meta(in->p, k)) || strcmp(have, v)))
		in->m->topo_dropped |= 2;
	return merge_meta_value(in->p, k, v);
}

static int merge_cpu(struct merge_in *in, const struct rec_cpu *r)
{
	if (in->is_first)
		return profile_add(in->p, &r->h);
	if (array_grow(&in->topo.cpus, &in->topo_cap, (size_t)in->topo.ncpus,
		       sizeof(*in->topo.cpus)))
		return -ENOMEM;
	in->topo.cpus[in->topo.ncpus++] = (struct topo_cpu){ r->cpu, r->core, r->socket, r->node };
	return 0;
}

static void merge_runstats(struct profile *p, const struct rec_runstats *r)
{
	struct rec_runstats *s = &p->run;

	if (r->start_ns && (!s->start_ns || r->start_ns < s->start_ns))
		s->start_ns = r->start_ns;
	if (r->end_ns > s->end_ns)
		s->end_ns = r->end_ns;
	s->records += r->records;
	s->dropped_records += r->dropped_records;
	s->flags |= r->flags & RUN_F_DROPS_FORGED;
	s->dropped_bytes += r->dropped_bytes;
	if (!s->exit_status)
		s->exit_status = r->exit_status;
	if (!s->term_signal)
		s->term_signal = r->term_signal;
	s->procs += r->procs;
	s->threads += r->threads;
	s->incomplete |= r->incomplete;
}

/* The record with its pids made keys and its thread index shifted. */
static int merge_rewrite(struct merge_in *in, struct rec_hdr *h)
{
	switch (h->type) {
	case REC_PROC: {
		struct rec_proc *r = (struct rec_proc *)h;
		int err = merge_pid(in, &r->pid);

		return err ? err : merge_pid(in, &r->ppid);
	}
	case REC_PROC_END:
		return merge_pid(in, &((struct rec_proc_end *)h)->pid);
	case REC_THREAD:
		return merge_pid(in, &((struct rec_thread *)h)->pid);
	case REC_THREAD_END:
	case REC_THREAD_STATS:
		return merge_pid(in, &((struct rec_thread_end *)h)->pid);
	case REC_MMAP:
		return merge_pid(in, &((struct rec_mmap *)h)->pid);
	case REC_SAMPLE:
		return merge_pid(in, &((struct rec_sample *)h)->pid);
	case REC_TRAP:
		return merge_pid(in, &((struct rec_trap *)h)->pid);
	case REC_ERROR:
		return merge_pid(in, &((struct rec_error *)h)->pid);
	case REC_ALLOC:
		return merge_pid(in, &((struct rec_alloc *)h)->pid);
	case REC_FREE:
		return merge_pid(in, &((struct rec_free *)h)->pid);
	case REC_SYM:
		return merge_image(in, &((struct rec_sym *)h)->pid);
	case REC_TASK: {
		struct rec_task *r = (struct rec_task *)h;
		int err = merge_pid(in, &r->pid);

		if (!err)
			err = merge_pid(in, &r->ppid);
		if (!err && r->index != UINT32_MAX)
			r->index = r->index < UINT32_MAX - in->first ? r->index + in->first
								     : UINT32_MAX;
		return err;
	}
	default:
		/* The tool's records: their layout is the tool's. */
		if (h->type >= REC_TOOL_BASE && in->p->ops && in->p->ops->merge)
			return in->p->ops->merge(h, merge_pid_cb, in);
		return 0;
	}
}

static int merge_one(const struct rec_hdr *r, void *arg)
{
	struct merge_in *in = arg;
	int err;

	switch (r->type) {
	case REC_META:
		return merge_meta(in, (const struct rec_meta *)r);
	case REC_CPU:
		return merge_cpu(in, (const struct rec_cpu *)r);
	case REC_RUNSTATS:
		if (!in->p->have_run)
			return profile_add(in->p, r);
		merge_runstats(in->p, (const struct rec_runstats *)r);
		return 0;
	default:
		break;
	}
	if (array_grow(&in->buf, &in->bufcap, r->size - 1, 1))
		return -ENOMEM;
	memcpy(in->buf, r, r->size);
	err = merge_rewrite(in, in->buf);
	return err ? err : profile_add(in->p, in->buf);
}

static int topo_same(const struct topo *a, const struct topo *b)
{
	if (a->ncpus != b->ncpus)
		return 0;
	for (int i = 0; i < a->ncpus; i++)
		if (a->cpus[i].cpu != b->cpus[i].cpu || a->cpus[i].core != b->cpus[i].core ||
		    a->cpus[i].socket != b->cpus[i].socket || a->cpus[i].node != b->cpus[i].node)
			return 0;
	return 1;
}

/* A later file's end: what it lacked of the must-agree meta, its topology. */
static int merge_end(struct merge_in *in)
{
	struct profile *p = in->p;
	const char *k;

	for (size_t i = 0; (k = merge_agree_key(p, i)) && !in->is_first; i++) {
		const char *have = profile_meta(p, k);

		if (have && !(in->agreed & 1u << i))
			return merge_fail(in, "no %s, but %s has %s %s", k, merge_first_file(in),
					  k, have);
	}
	if (!in->is_first && !topo_same(&p->topo, &in->topo))
		in->m->topo_dropped |= 1;
	if (in->m->topo_dropped && p->topo.ncpus) {
		topo_free(&p->topo);
		return profile_set_meta(p, "topology", "differs between the merged files: "
					"core and node levels are left out");
	}
	return 0;
}

static int merge_rank_add(struct prof_merge *m, const char *path, uint32_t rank, uint32_t first)
{
	char *f = strdup(path);

	if (!f)
		return -ENOMEM;
	if (array_grow(&m->ranks, &m->ranks_cap, m->nranks, sizeof(*m->ranks))) {
		free(f);
		return -ENOMEM;
	}
	m->ranks[m->nranks++] = (struct merge_rank){ rank, first, f };
	return 0;
}

/* "merged": how many files, which ranks. */
static int merge_summary(struct profile *p)
{
	const struct prof_merge *m = p->merge;
	char buf[96];

	snprintf(buf, sizeof(buf), "%zu files (ranks %u to %u)", m->nranks, m->ranks[0].rank,
		 m->ranks[m->nranks - 1].rank);
	return profile_set_meta(p, "merged", buf);
}

int profile_merge_read(struct profile *p, const char *path, uint32_t rank, char *err,
		       size_t errlen)
{
	struct merge_in in = { .p = p, .rank = rank, .path = path, .err = err,
			       .errlen = errlen };
	int r;

	if (errlen)
		err[0] = '\0';
	if (!p->merge) {
		if (p->ntasks || p->nprocs || p->nmeta)
			return merge_fail(&in, "merging into a profile read otherwise");
		p->merge = calloc(1, sizeof(*p->merge));
		if (!p->merge)
			return -ENOMEM;
		p->merge->next_free = MERGE_PID_MASK;
		in.is_first = 1;
	}
	in.m = p->merge;
	if (in.m->nranks && rank <= in.m->ranks[in.m->nranks - 1].rank)
		return merge_fail(&in, "rank %u after rank %u: files go in ascending rank order",
				  rank, in.m->ranks[in.m->nranks - 1].rank);
	in.first = (uint32_t)p->ntasks;
	p->why[0] = '\0';
	r = df_read(path, merge_one, &in, err, errlen);
	if (r == -EBADMSG && errlen && !err[0] && p->why[0])
		snprintf(err, errlen, "corrupt: %s", p->why);
	if (!r)
		r = merge_end(&in);
	if (!r)
		r = merge_rank_add(in.m, path, rank, in.first);
	if (!r)
		r = merge_summary(p);
	free(in.buf);
	topo_free(&in.topo);
	return r;
}

const char *profile_thread_label(const struct profile *p, uint32_t index, char *buf,
				 size_t len)
{
	const struct prof_merge *m = p->merge;
	size_t lo = 0, hi;

	if (!m || !m->nranks || index < m->ranks[0].first) {
		snprintf(buf, len, "%u", index);
		return buf;
	}
	/* The last file whose threads start at or before index. */
	hi = m->nranks;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ranks[mid].first <= index)
			lo = mid;
		else
			hi = mid;
	}
	snprintf(buf, len, "%u.%u", m->ranks[lo].rank, index - m->ranks[lo].first);
	return buf;
}

uint32_t profile_os_pid(const struct profile *p, uint32_t pid)
{
	const struct merge_key *k = p->merge ? merge_find_key(p->merge, pid) : NULL;

	return k ? k->pid : pid;
}
