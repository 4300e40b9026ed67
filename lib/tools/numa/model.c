// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt numa's records (what a profile file may hold of them, checked as
 * untrusted input) and its model (model.h).
 *
 * Decisions the paper leaves open, made here:
 *  - A thread's node is the node of the CPU each sample ran on, sample by
 *    sample, so a thread that migrates is local or remote access by
 *    access, not by where it mostly ran.
 *  - A page's node is what move_pages said while the program ran; a page
 *    it could not be asked about (named in the program's last moments)
 *    is placed on the node of the CPU that first touched it, which is
 *    where the kernel's default policy put it, and counted as inferred.
 *    A page neither asked nor faulted is unknown and counts as neither
 *    local nor remote.
 *  - The first touch of a page is its latest fault at or before the
 *    access (a page freed and faulted again is new data); an object's
 *    first toucher is the thread that faulted most of its pages.
 *  - The pages of an object are found from the fault's page by its last
 *    byte: a large block starts a few bytes into its first page.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/hash.h"
#include "lib/core/names.h"
#include "lib/core/objmap.h"
#include "lib/tools/numa/model.h"

/* One faulted page. */
struct ft_page {
	uint32_t pid, tid, cpu, thread; /* thread: profile index, UINT32_MAX if unknown */
	uint64_t page, time, ip;
};

/* A 2 MiB region's two earliest faults (numa_huge_of). */
struct ft_region {
	uint32_t pid;
	uint64_t region;
	size_t first;         /* index into ft */
	uint64_t second_time; /* UINT64_MAX: one fault only */
	uint32_t burst;       /* faults in HUGE_BURST_NS from the second */
};

/* What move_pages said of one page at one time. */
struct pg_ent {
	uint32_t pid;
	int32_t node;
	uint64_t page, time;
};

/* One object's first-touch page, for the reduction. */
struct ft_ent {
	uint32_t obj, thread, pid;
	uint64_t ip, time;
	uint32_t pages; /* 1, or 512 for a huge page's fault */
};

struct numa_build {
	const struct profile *p;
	struct numa_model *m;
	struct objmap *om;
	struct pg_ent *pg; /* every answer for a page, sorted by pid, page, time */
	size_t npg, pgcap;
	struct ft_page *ft;
	size_t nft, ftcap;
	struct hash ft_ix; /* over ft, by (pid, page) */
	struct ft_region *rg; /* the 2 MiB regions faults fell in */
	size_t nrg, rgcap;
	struct hash rg_ix;    /* over rg, by (pid, region) */
	const struct rec_numa_migrate **mg;
	size_t nmg, mgcap;
	struct hash obj_ix; /* over m->obj, by name */
	size_t objcap, ivcap;
	int roles[NUMA_MAX_EVENTS];
};

/*
 * The kernel's two encodings: mem_lvl bits (every PMU driver fills them)
 * and, since Linux 4.14, mem_lvl_num with mem_remote (newer Intel and
 * AMD drivers fill these instead).  The first that says something wins.
 */
int numa_served_of(uint64_t data_src)
{
	uint64_t lvl = data_src >> PERF_MEM_LVL_SHIFT & 0x3fff;
	unsigned num = (unsigned)(data_src >> PERF_MEM_LVLNUM_SHIFT & 0xf);
	int remote = (int)(data_src >> PERF_MEM_REMOTE_SHIFT & 1);

	if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2))
		return NUMA_SERVED_REMOTE_DRAM;
	if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		return NUMA_SERVED_REMOTE_CACHE;
	if (lvl & PERF_MEM_LVL_LOC_RAM)
		return remote ? NUMA_SERVED_REMOTE_DRAM : NUMA_SERVED_LOCAL_DRAM;
	if (lvl & PERF_MEM_LVL_L3)
		return remote ? NUMA_SERVED_REMOTE_CACHE : NUMA_SERVED_L3;
	if (lvl & PERF_MEM_LVL_L2)
		return NUMA_SERVED_L2;
	if (lvl & (PERF_MEM_LVL_L1 | PERF_MEM_LVL_LFB))
		return NUMA_SERVED_L1;
	if (lvl & (PERF_MEM_LVL_IO | PERF_MEM_LVL_UNC))
		return NUMA_SERVED_OTHER;
	switch (num) {
	case PERF_MEM_LVLNUM_L1:
	case PERF_MEM_LVLNUM_LFB:
		return NUMA_SERVED_L1;
	case PERF_MEM_LVLNUM_L2:
		return NUMA_SERVED_L2;
	case PERF_MEM_LVLNUM_L3:
	case PERF_MEM_LVLNUM_L4:
	case PERF_MEM_LVLNUM_ANY_CACHE:
		return remote ? NUMA_SERVED_REMOTE_CACHE : NUMA_SERVED_L3;
	case PERF_MEM_LVLNUM_RAM:
		return remote ? NUMA_SERVED_REMOTE_DRAM : NUMA_SERVED_LOCAL_DRAM;
	case 0:
	case PERF_MEM_LVLNUM_NA:
		return NUMA_SERVED_NONE;
	default:
		return NUMA_SERVED_OTHER;
	}
}

const char *numa_served_name(int served)
{
	static const char *const names[NUMA_SERVED_N] = {
		"none", "l1", "l2", "l3", "local_dram", "remote_dram", "remote_cache", "other",
	};

	return served >= 0 && served < NUMA_SERVED_N ? names[served] : "?";
}

int numa_cpu_node(const struct profile *p, uint32_t cpu)
{
	const struct topo *t = &p->topo;

	if (cpu < (uint32_t)t->ncpus && t->cpus[cpu].cpu == (int)cpu)
		return t->cpus[cpu].node;
	for (int i = 0; i < t->ncpus; i++)
		if (t->cpus[i].cpu == (int)cpu)
			return t->cpus[i].node;
	return NUMA_NODE_UNKNOWN;
}

static uint64_t ft_hash(uint32_t pid, uint64_t page)
{
	return hash_mix(hash_u64(pid), page);
}

static int pg_cmp(const void *x, const void *y)
{
	const struct pg_ent *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->page != b->page)
		return a->page < b->page ? -1 : 1;
	return (a->time > b->time) - (a->time < b->time);
}

static int mg_cmp(const void *x, const void *y)
{
	const struct rec_numa_migrate *a = *(const struct rec_numa_migrate *const *)x;
	const struct rec_numa_migrate *b = *(const struct rec_numa_migrate *const *)y;

	return a->time < b->time ? -1 : a->time > b->time;
}

/* The node move_pages gave for pid's page at `time`: its last answer
 * before, else its first; NUMA_NODE_UNKNOWN if none placed it. */
static int numa_page_asked(const struct numa_build *b, uint32_t pid, uint64_t page,
			   uint64_t time)
{
	size_t lo = 0, hi = b->npg;
	int node = NUMA_NODE_UNKNOWN;

	while (lo < hi) { /* the first answer for the page */
		size_t mid = lo + (hi - lo) / 2;
		const struct pg_ent *e = &b->pg[mid];

		if (e->pid < pid || (e->pid == pid && e->page < page))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < b->npg && b->pg[lo].pid == pid && b->pg[lo].page == page; lo++) {
		if (b->pg[lo].time > time && node != NUMA_NODE_UNKNOWN)
			break;
		if (b->pg[lo].node >= 0)
			node = b->pg[lo].node;
	}
	return node;
}

/*
 * The fault that first touched pid's page for data that lives there
 * since `born` (its object's allocation; 0 if unknown): the earliest
 * fault at or after it, else the earliest of all (memory the allocator
 * reused).  Later faults of a present page are not first touches: NUMA
 * balancing's hinting faults, copy on write, a page swapped back in.
 */
static const struct ft_page *numa_first_touch(const struct numa_build *b, uint32_t pid,
					      uint64_t page, uint64_t born)
{
	const struct ft_page *after = NULL, *first = NULL;
	uint64_t hv = ft_hash(pid, page);

	for (size_t c = 0, i; (i = hash_walk(&b->ft_ix, hv, &c)) != HASH_NONE;) {
		const struct ft_page *f = &b->ft[i];

		if (f->pid != pid || f->page != page)
			continue;
		if (f->time >= born && (!after || f->time < after->time))
			after = f;
		if (!first || f->time < first->time)
			first = f;
	}
	return after ? after : first;
}

/*
 * The fault that placed a transparent huge page over pid's page, if its
 * 2 MiB region looks like one: a first fault followed by no other fault
 * in the region for HUGE_GAP_NS, and then by no burst of them.  A huge
 * page is placed whole by its one fault, and the next faults in its
 * region, if any, are NUMA balancing's hinting faults: one for the whole
 * page, from each thread that meets it while it is marked, once a scan
 * pass (numa_balancing_scan_period_min_ms: 1 s).  A region of 4 KiB
 * pages faults page after page, microseconds apart, as it is first
 * written.  The first of them may still stand alone for 100 ms (a
 * write apart from the rest, or a thread held off the CPU: in a two-node
 * guest under qemu's TCG with the other core busy, a grid's region that
 * four threads then wrote was taken for a huge page in 4 runs of 9), but
 * the rest then come at once: HUGE_BURST_MAX or more in the second after
 * the gap are a first writing, not hints.  (A thread that touches one
 * page of a region, and fewer than 16 more in the second after 100 ms,
 * is still taken for a huge page: the rare case this rule gets wrong.)
 */
#define HUGE_GAP_NS 100000000ull
#define HUGE_BURST_NS 1000000000ull
#define HUGE_BURST_MAX 16

static struct ft_region *numa_region(const struct numa_build *b, uint32_t pid, uint64_t page)
{
	uint64_t region = page >> 21, hv = ft_hash(pid, region);

	for (size_t c = 0, i; (i = hash_walk(&b->rg_ix, hv, &c)) != HASH_NONE;)
		if (b->rg[i].pid == pid && b->rg[i].region == region)
			return &b->rg[i];
	return NULL;
}

/* Keep a region's two earliest faults as faults come (ft[i] is new). */
static int numa_region_add(struct numa_build *b, size_t i)
{
	const struct ft_page *f = &b->ft[i];
	struct ft_region *r = numa_region(b, f->pid, f->page);

	if (!r) {
		if (array_grow(&b->rg, &b->rgcap, b->nrg, sizeof(*b->rg)) ||
		    hash_add(&b->rg_ix, ft_hash(f->pid, f->page >> 21), b->nrg))
			return -ENOMEM;
		b->rg[b->nrg++] = (struct ft_region){ f->pid, f->page >> 21, i, UINT64_MAX, 0 };
		return 0;
	}
	if (f->time < b->ft[r->first].time) {
		r->second_time = b->ft[r->first].time;
		r->first = i;
	} else if (f->time < r->second_time) {
		r->second_time = f->time;
	}
	return 0;
}

static const struct ft_page *numa_huge_of(const struct numa_build *b, uint32_t pid,
					  uint64_t page)
{
	const struct ft_region *r = numa_region(b, pid, page);

	if (r && (r->second_time == UINT64_MAX ||
		  (r->second_time - b->ft[r->first].time >= HUGE_GAP_NS &&
		   r->burst < HUGE_BURST_MAX)))
		return &b->ft[r->first];
	return NULL;
}

/* The first touch of the data at pid's page born then: its huge page's
 * fault if that came first (its own faults are then later ones), else
 * its own first fault (numa_first_touch). */
static const struct ft_page *numa_touch_of(const struct numa_build *b, uint32_t pid,
					   uint64_t page, uint64_t born)
{
	const struct ft_page *f = numa_first_touch(b, pid, page, born);
	const struct ft_page *h = numa_huge_of(b, pid, page);

	if (h && h->time >= born && (!f || h->time <= f->time))
		return h;
	return f;
}

/* Where pid's page is: asked, else its first touch's CPU (*inferred). */
static int numa_page_node(const struct numa_build *b, uint32_t pid, uint64_t page,
			  uint64_t time, uint64_t born, int *inferred)
{
	int node = numa_page_asked(b, pid, page, time);
	const struct ft_page *f;

	*inferred = 0;
	if (node != NUMA_NODE_UNKNOWN)
		return node;
	f = numa_touch_of(b, pid, page, born);
	if (!f)
		return NUMA_NODE_UNKNOWN;
	*inferred = 1;
	return numa_cpu_node(b->p, f->cpu);
}

static uint32_t numa_thread(const struct profile *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	const struct rec_task *t = profile_task_by_tid(p, pid, tid, time);

	return t ? t->index : UINT32_MAX;
}

/* The node --predict gives thread index i. */
static int numa_pred_node(const struct numa_model *m, uint32_t i)
{
	return numa_place_node(i, m->pred.nodes, m->pred.per_node_used, m->pred.policy);
}

static struct numa_obj *numa_obj_get(struct numa_build *b, const char *name, uint32_t group)
{
	struct numa_model *m = b->m;
	uint64_t hv = hash_bytes(name, strlen(name));
	struct numa_obj *o;

	for (size_t c = 0, i; (i = hash_walk(&b->obj_ix, hv, &c)) != HASH_NONE;)
		if (!strcmp(m->obj[i].name, name))
			return &m->obj[i];
	if (array_grow(&m->obj, &b->objcap, m->nobj, sizeof(*m->obj)) ||
	    hash_add(&b->obj_ix, hv, m->nobj))
		return NULL;
	o = &m->obj[m->nobj];
	o->name = strdup(name);
	o->by_thread_node = calloc((size_t)m->nnodes, sizeof(uint64_t));
	o->landed = calloc((size_t)m->nnodes, sizeof(uint64_t));
	if (!o->name || !o->by_thread_node || !o->landed) {
		free(o->name);
		free(o->by_thread_node);
		free(o->landed);
		return NULL;
	}
	o->group = group;
	o->ft_thread = UINT32_MAX;
	m->nobj++;
	return o;
}

/* The object at addr (stack: a stack operand), and when it was made
 * (*born; 0 for what has no allocation: statics, unknown memory). */
static struct numa_obj *numa_obj_at(struct numa_build *b, uint32_t pid, uint64_t addr,
				    uint64_t time, int stack, uint64_t *born)
{
	struct objmap_obj ob;
	char buf[256];
	uint64_t off;

	*born = 0;
	if (b->om && !objmap_find(b->om, pid, addr, time, &ob) && ob.group != OBJMAP_NO_GROUP) {
		*born = ob.alloc_time;
		return numa_obj_get(b, objmap_group(b->om, ob.group)->name, ob.group);
	}
	names_data(b->p, pid, time, addr, stack, buf, sizeof(buf), &off);
	return numa_obj_get(b, buf, OBJMAP_NO_GROUP);
}

static int numa_interval_add(struct numa_build *b, uint32_t thread, uint64_t time, int where)
{
	struct numa_model *m = b->m;
	uint32_t k = (uint32_t)((time - m->t0) / m->interval_ns);
	struct numa_interval *iv = NULL;

	/* Samples come by thread mostly in time order: look at the last
	 * few of this thread's intervals first. */
	for (size_t i = m->niv; i-- > 0 && m->niv - i <= 64;)
		if (m->iv[i].thread == thread && m->iv[i].k == k) {
			iv = &m->iv[i];
			break;
		}
	if (!iv) {
		if (array_grow(&m->iv, &b->ivcap, m->niv, sizeof(*m->iv)))
			return -ENOMEM;
		iv = &m->iv[m->niv++];
		iv->thread = thread;
		iv->k = k;
	}
	if (where > 0)
		iv->remote++;
	else if (where == 0)
		iv->local++;
	else
		iv->unknown++;
	return 0;
}

static int iv_cmp(const void *x, const void *y)
{
	const struct numa_interval *a = x, *b = y;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

/* A fault of cdt's own agent (its record buffer, its signal stacks):
 * not the program's data. */
static int numa_agent_fault(const struct profile *p, const struct rec_numa_fault *r)
{
	const struct prof_sym *s = profile_sym(p, r->pid, r->time, SYM_CODE, r->ip);
	const char *mod = s ? s->module : NULL;

	return mod && (!strncmp(mod, "/proc/self/fd/", 14) || strstr(mod, "cdt-agent"));
}

/* Collect the tool records, expand the faults to pages. */
static int numa_collect(struct numa_build *b)
{
	const struct profile *p = b->p;
	struct numa_model *m = b->m;
	int err = 0;

	for (size_t i = 0; i < p->ntool_recs && !err; i++) {
		const struct rec_hdr *h = p->tool_recs[i];

		if (h->type == REC_NUMA_PAGES) {
			const struct rec_numa_pages *r = (const void *)h;

			if (r->node >= m->nnodes && r->node < 4096)
				m->nnodes = r->node + 1;
			for (uint64_t k = 0; k < r->npages && !err; k++) {
				err = array_grow(&b->pg, &b->pgcap, b->npg, sizeof(*b->pg));
				if (!err)
					b->pg[b->npg++] = (struct pg_ent){ r->pid, r->node,
									   r->addr + k * 4096, r->time };
			}
		} else if (h->type == REC_NUMA_MIGRATE) {
			err = array_grow(&b->mg, &b->mgcap, b->nmg, sizeof(*b->mg));
			if (!err)
				b->mg[b->nmg++] = (const void *)h;
		} else if (h->type == REC_NUMA_FAULT) {
			const struct rec_numa_fault *r = (const void *)h;
			uint32_t thread = numa_thread(p, r->pid, r->tid, r->time);

			if (numa_agent_fault(p, r)) {
				m->agent_faults += r->npages;
				continue;
			}
			m->faults++;
			for (uint32_t k = 0; k < r->npages && !err; k++) {
				struct ft_page *f;

				err = array_grow(&b->ft, &b->ftcap, b->nft, sizeof(*b->ft));
				if (!err)
					err = hash_add(&b->ft_ix, ft_hash(r->pid, r->addr + k * 4096ull),
						       b->nft);
				if (err)
					break;
				f = &b->ft[b->nft++];
				*f = (struct ft_page){ .pid = r->pid, .tid = r->tid, .cpu = r->cpu,
						       .thread = thread, .page = r->addr + k * 4096ull,
						       .time = r->time, .ip = r->ip };
				err = numa_region_add(b, b->nft - 1);
			}
		} else if (h->type == REC_NUMA_LOST) {
			m->lost_faults += ((const struct rec_numa_lost *)h)->count;
		}
	}
	m->fault_pages = b->nft;
	/* The bursts, now that each region's second fault is known. */
	for (size_t i = 0; i < b->nft && !err; i++) {
		struct ft_region *r = numa_region(b, b->ft[i].pid, b->ft[i].page);

		if (r->second_time != UINT64_MAX && b->ft[i].time >= r->second_time &&
		    b->ft[i].time - r->second_time < HUGE_BURST_NS)
			r->burst++;
	}
	if (!err && b->npg)
		qsort(b->pg, b->npg, sizeof(*b->pg), pg_cmp);
	if (!err && b->nmg)
		qsort(b->mg, b->nmg, sizeof(*b->mg), mg_cmp);
	return err;
}

/* Every memory sample: thread node against page node. */
static int numa_samples(struct numa_build *b)
{
	const struct profile *p = b->p;
	struct numa_model *m = b->m;
	uint64_t *node_of = calloc(m->nthr * (size_t)m->nnodes + 1, sizeof(uint64_t));
	int err = 0;

	if (!node_of)
		return -ENOMEM;
	for (size_t i = 0; i < p->nsamples && !err; i++) {
		const struct rec_sample *s = &p->samples[i];
		uint32_t ti = numa_thread(p, s->pid, s->tid, s->time);
		int tnode = numa_cpu_node(p, s->cpu), inferred, where;
		uint64_t page = s->addr & ~4095ull;
		struct numa_thr *t = ti < m->nthr ? &m->thr[ti] : NULL;
		struct numa_obj *o;
		uint64_t born;
		int pnode;

		if (!(s->flags & SAMPLE_F_ADDR))
			continue;
		o = numa_obj_at(b, s->pid, s->addr, s->time, s->flags & SAMPLE_F_STACK, &born);
		if (!o) {
			err = -ENOMEM;
			break;
		}
		pnode = numa_page_node(b, s->pid, page, s->time, born, &inferred);
		m->samples++;
		m->inferred += inferred && pnode != NUMA_NODE_UNKNOWN;
		where = pnode == NUMA_NODE_UNKNOWN || tnode == NUMA_NODE_UNKNOWN ? -1 :
			pnode != tnode;
		o->samples++;
		if (tnode >= 0 && tnode < m->nnodes)
			o->by_thread_node[tnode]++;
		if (where < 0) {
			m->unknown++;
			o->unknown++;
		} else if (where) {
			m->remote++;
			o->remote++;
			m->node_out[tnode]++;
			if (pnode < m->nnodes)
				m->node_in[pnode]++;
		} else {
			m->local++;
			o->local++;
			m->node_local[tnode]++;
		}
		if (t) {
			t->served[numa_served_of(s->data_src)]++;
			t->samples++;
			if (where < 0)
				t->unknown++;
			else if (where)
				t->remote++;
			else
				t->local++;
			if (pnode >= 0 && pnode < m->nnodes)
				t->by_node[pnode]++;
			if (tnode >= 0 && tnode < m->nnodes)
				node_of[ti * (size_t)m->nnodes + (size_t)tnode]++;
			err = numa_interval_add(b, ti, s->time, where);
		}
		if (m->pred.on) {
			const struct ft_page *f = numa_touch_of(b, s->pid, page, born);

			if (!t || !f || f->thread >= m->nthr) {
				m->pred_unknown++;
			} else if (numa_pred_node(m, ti) == numa_pred_node(m, f->thread)) {
				m->pred_local++;
				t->pred_local++;
				o->pred_local++;
			} else {
				m->pred_remote++;
				t->pred_remote++;
				o->pred_remote++;
			}
		}
	}
	for (size_t i = 0; i < m->nthr; i++) {
		uint64_t best = 0;

		m->thr[i].node = NUMA_NODE_UNKNOWN;
		for (int n = 0; n < m->nnodes; n++)
			if (node_of[i * (size_t)m->nnodes + (size_t)n] > best) {
				best = node_of[i * (size_t)m->nnodes + (size_t)n];
				m->thr[i].node = n;
			}
	}
	free(node_of);
	if (!err && m->niv)
		qsort(m->iv, m->niv, sizeof(*m->iv), iv_cmp);
	return err;
}

static int ft_cmp(const void *x, const void *y)
{
	const struct ft_ent *a = x, *b = y;

	if (a->obj != b->obj)
		return a->obj < b->obj ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return (a->ip > b->ip) - (a->ip < b->ip);
}

/* Each faulted page to its object: who touched the object first, where
 * its pages landed. */
static int numa_first_touches(struct numa_build *b)
{
	struct numa_model *m = b->m;
	struct ft_ent *e = b->nft ? calloc(b->nft, sizeof(*e)) : NULL;
	size_t n = 0;
	int err = 0;

	if (b->nft && !e)
		return -ENOMEM;
	for (size_t i = 0; i < b->nft; i++) {
		const struct ft_page *f = &b->ft[i];
		struct numa_obj *o;
		uint64_t born;
		uint32_t pages;
		int node;

		/* Its last byte: a large block starts a few bytes into its
		 * first page. */
		o = numa_obj_at(b, f->pid, f->page + 4095, f->time, 0, &born);
		if (!o) {
			err = -ENOMEM;
			break;
		}
		if (numa_touch_of(b, f->pid, f->page, born) != f)
			continue; /* a later fault of a page already there */
		/* Where it landed: asked, else where the faulting CPU is. */
		node = numa_page_asked(b, f->pid, f->page, f->time);
		if (node == NUMA_NODE_UNKNOWN)
			node = numa_cpu_node(b->p, f->cpu);
		pages = numa_huge_of(b, f->pid, f->page) == f ? 512 : 1;
		o->pages += pages;
		if (f->thread < m->nthr)
			m->thr[f->thread].faults += pages;
		if (node >= 0 && node < m->nnodes)
			o->landed[node] += pages;
		e[n++] = (struct ft_ent){ .obj = (uint32_t)(o - m->obj), .thread = f->thread,
					  .pid = f->pid, .ip = f->ip, .time = f->time,
					  .pages = pages };
	}
	if (!err && n)
		qsort(e, n, sizeof(*e), ft_cmp);
	/* Runs of (object, thread), within them of ip: the largest wins. */
	for (size_t i = 0; i < n && !err;) {
		struct numa_obj *o = &m->obj[e[i].obj];
		size_t j = i, best_ip = i;
		uint64_t run_ip = 0, best_run = 0, pages = 0;

		while (j < n && e[j].obj == e[i].obj && e[j].thread == e[i].thread) {
			if (j > i && e[j].ip == e[j - 1].ip)
				run_ip += e[j].pages;
			else
				run_ip = e[j].pages;
			if (run_ip > best_run) {
				best_run = run_ip;
				best_ip = j;
			}
			pages += e[j].pages;
			j++;
		}
		o->ft_threads++;
		if (pages > o->ft_thread_pages) {
			o->ft_thread_pages = pages;
			o->ft_thread = e[i].thread;
			o->ft_pid = e[best_ip].pid;
			o->ft_ip = e[best_ip].ip;
			o->ft_time = e[best_ip].time;
		}
		i = j;
	}
	free(e);
	return err;
}

/* Migrations per thread, and those that crossed nodes. */
static void numa_migrations(struct numa_build *b)
{
	const struct profile *p = b->p;
	struct numa_model *m = b->m;
	int *last = malloc((m->nthr + 1) * sizeof(int));

	if (!last)
		return;
	for (size_t i = 0; i < m->nthr; i++)
		last[i] = NUMA_NODE_UNKNOWN;
	/* A thread starts where its first sample ran, if before any move. */
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct rec_sample *s = &p->samples[i];
		uint32_t ti = numa_thread(p, s->pid, s->tid, s->time);

		if (ti < m->nthr && last[ti] == NUMA_NODE_UNKNOWN &&
		    (!b->nmg || s->time < b->mg[0]->time))
			last[ti] = numa_cpu_node(p, s->cpu);
	}
	for (size_t i = 0; i < b->nmg; i++) {
		const struct rec_numa_migrate *r = b->mg[i];
		uint32_t ti = numa_thread(p, r->pid, r->tid, r->time);
		int node = numa_cpu_node(p, r->cpu);

		if (ti >= m->nthr)
			continue;
		m->thr[ti].cpu_moves++;
		if (last[ti] != NUMA_NODE_UNKNOWN && node != NUMA_NODE_UNKNOWN && node != last[ti])
			m->thr[ti].node_moves++;
		if (node != NUMA_NODE_UNKNOWN)
			last[ti] = node;
	}
	free(last);
}

/* Each thread's counters as last read, by role, scaled if multiplexed. */
static void numa_counts(struct numa_build *b)
{
	const struct profile *p = b->p;
	struct numa_model *m = b->m;
	const char *roles = profile_meta(p, "numa_roles");

	for (int k = 0; k < NUMA_MAX_EVENTS && roles && *roles; k++) {
		b->roles[k] = atoi(roles);
		roles = strchr(roles, ',');
		roles = roles ? roles + 1 : NULL;
	}
	for (size_t i = 0; i < p->ntool_recs; i++) {
		const struct rec_numa_counts *r = (const void *)p->tool_recs[i];
		uint32_t ti;
		struct numa_thr *t;

		if (r->h.type != REC_NUMA_COUNTS)
			continue;
		ti = numa_thread(p, r->pid, r->tid, r->time);
		if (ti >= m->nthr)
			continue;
		t = &m->thr[ti];
		/* Cumulative: the latest read holds the thread's total. */
		memset(t->counts, 0, sizeof(t->counts));
		t->have_counts = 1;
		t->scaled = r->running && r->running < r->enabled;
		for (uint32_t k = 0; k < r->n && k < NUMA_MAX_EVENTS; k++) {
			double v = (double)r->v[k];
			int role = b->roles[k];

			if (t->scaled)
				v = v * (double)r->enabled / (double)r->running;
			if (role > 0 && role < 4)
				t->counts[role] += (uint64_t)v;
		}
	}
}

static int obj_cmp(const void *x, const void *y)
{
	const struct numa_obj *a = x, *b = y;

	if (a->remote != b->remote)
		return a->remote > b->remote ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->pages != b->pages)
		return a->pages > b->pages ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void numa_model_free(struct numa_model *m)
{
	for (size_t i = 0; i < m->nthr; i++)
		free(m->thr[i].by_node);
	for (size_t i = 0; i < m->nobj; i++) {
		free(m->obj[i].name);
		free(m->obj[i].by_thread_node);
		free(m->obj[i].landed);
	}
	free(m->thr);
	free(m->obj);
	free(m->iv);
	free(m->node_out);
	free(m->node_in);
	free(m->node_local);
}

static int numa_build(const struct profile *p, struct numa_model *m)
{
	struct numa_build b = { .p = p, .m = m };
	const char *v;
	int err;

	m->nnodes = p->topo.nnodes > 0 ? p->topo.nnodes : 1;
	for (int i = 0; i < p->topo.ncpus; i++)
		if (p->topo.cpus[i].node >= m->nnodes && p->topo.cpus[i].node < 4096)
			m->nnodes = p->topo.cpus[i].node + 1;
	v = profile_meta(p, "interval_ms");
	m->interval_ns = (v && atoll(v) > 0 ? (uint64_t)atoll(v) : 100) * 1000000ull;
	m->t0 = UINT64_MAX;
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].time < m->t0)
			m->t0 = p->samples[i].time;
	if (m->t0 == UINT64_MAX)
		m->t0 = 0;
	m->nthr = p->ntasks;
	m->thr = calloc(m->nthr + 1, sizeof(*m->thr));
	if (!m->thr)
		return -ENOMEM;
	for (size_t i = 0; i < m->nthr; i++) {
		m->thr[i].index = p->tasks[i].index;
		m->thr[i].pid = p->tasks[i].pid;
		m->thr[i].tid = p->tasks[i].tid;
	}
	/* Node ids the records name may exceed the topology's (a file from
	 * another machine): grow before the per-node arrays are made. */
	err = numa_collect(&b);
	for (size_t i = 0; i < m->nthr && !err; i++) {
		m->thr[i].by_node = calloc((size_t)m->nnodes, sizeof(uint64_t));
		if (!m->thr[i].by_node)
			err = -ENOMEM;
	}
	if (!err) {
		m->node_out = calloc((size_t)m->nnodes, sizeof(uint64_t));
		m->node_in = calloc((size_t)m->nnodes, sizeof(uint64_t));
		m->node_local = calloc((size_t)m->nnodes, sizeof(uint64_t));
		if (!m->node_out || !m->node_in || !m->node_local)
			err = -ENOMEM;
	}
	v = profile_meta(p, "predict");
	if (!err && v && !numa_predict_parse(v, &m->pred.nodes, &m->pred.policy,
					     &m->pred.per_node, 0)) {
		uint32_t n = (uint32_t)(m->nthr ? m->nthr : 1);

		m->pred.on = 1;
		m->pred.per_node_used = m->pred.per_node ? m->pred.per_node :
					(int)((n + (uint32_t)m->pred.nodes - 1) / (uint32_t)m->pred.nodes);
	}
	if (!err)
		err = objmap_build(&b.om, p);
	if (!err)
		err = numa_samples(&b);
	if (!err)
		err = numa_first_touches(&b);
	if (!err) {
		numa_migrations(&b);
		numa_counts(&b);
		if (m->nobj)
			qsort(m->obj, m->nobj, sizeof(*m->obj), obj_cmp);
	}
	objmap_free(b.om);
	free(b.pg);
	free(b.ft);
	free(b.mg);
	hash_free(&b.ft_ix);
	free(b.rg);
	hash_free(&b.rg_ix);
	hash_free(&b.obj_ix);
	return err;
}

struct numa_state {
	struct numa_model m;
	int built, failed;
};

static void numa_state_free(void *data)
{
	struct numa_state *s = data;

	numa_model_free(&s->m);
	free(s);
}

const struct numa_model *numa_of(const struct profile *p)
{
	struct numa_state *s = profile_cache(p, sizeof(*s), numa_state_free);

	if (!s || s->failed)
		return NULL;
	if (!s->built) {
		if (numa_build(p, &s->m)) {
			s->failed = 1;
			return NULL;
		}
		s->built = 1;
	}
	return &s->m;
}

/* ---- records ---- */

static int numa_check_fault(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_numa_fault *r = (const void *)h;

	/* A run past the end of the address space, or of more pages than
	 * any machine has, is not the kernel's. */
	if (!r->npages || r->npages > (1u << 28) || (r->addr & 4095) ||
	    r->addr + (uint64_t)r->npages * 4096 < r->addr) {
		snprintf(why, whylen, "numa fault run of %u pages at 0x%llx", r->npages,
			 (unsigned long long)r->addr);
		return -EBADMSG;
	}
	return 0;
}

static int numa_check_pages(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_numa_pages *r = (const void *)h;

	if (!r->npages || r->npages > (1ull << 28) || (r->addr & 4095) || r->node >= 4096 ||
	    r->addr + r->npages * 4096 < r->addr) {
		snprintf(why, whylen, "numa page run of %llu pages at 0x%llx on node %d",
			 (unsigned long long)r->npages, (unsigned long long)r->addr, r->node);
		return -EBADMSG;
	}
	return 0;
}

static int numa_check_counts(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_numa_counts *r = (const void *)h;

	if (r->n > NUMA_MAX_EVENTS || r->running > r->enabled) {
		snprintf(why, whylen, "numa counters: %u values, running %llu of %llu ns", r->n,
			 (unsigned long long)r->running, (unsigned long long)r->enabled);
		return -EBADMSG;
	}
	return 0;
}

static const struct rec_desc numa_types[] = {
	{ REC_NUMA_FAULT, 0, sizeof(struct rec_numa_fault), sizeof(struct rec_numa_fault),
	  "REC_NUMA_FAULT", numa_check_fault },
	{ REC_NUMA_MIGRATE, 0, sizeof(struct rec_numa_migrate), sizeof(struct rec_numa_migrate),
	  "REC_NUMA_MIGRATE", NULL },
	{ REC_NUMA_PAGES, 0, sizeof(struct rec_numa_pages), sizeof(struct rec_numa_pages),
	  "REC_NUMA_PAGES", numa_check_pages },
	{ REC_NUMA_COUNTS, REC_T_AGENT, sizeof(struct rec_numa_counts),
	  sizeof(struct rec_numa_counts), "REC_NUMA_COUNTS", numa_check_counts },
	{ REC_NUMA_LOST, 0, sizeof(struct rec_numa_lost), sizeof(struct rec_numa_lost),
	  "REC_NUMA_LOST", NULL },
};

static int numa_sym(const struct rec_hdr *h, prof_need_fn need, void *ctx)
{
	if (h->type == REC_NUMA_FAULT) {
		const struct rec_numa_fault *r = (const void *)h;

		return need(ctx, r->pid, r->time, SYM_CODE, r->ip);
	}
	return 0;
}

static int numa_merge(struct rec_hdr *h, prof_pid_fn pid, void *ctx)
{
	switch (h->type) {
	case REC_NUMA_FAULT:
		return pid(ctx, &((struct rec_numa_fault *)h)->pid);
	case REC_NUMA_MIGRATE:
		return pid(ctx, &((struct rec_numa_migrate *)h)->pid);
	case REC_NUMA_PAGES:
		return pid(ctx, &((struct rec_numa_pages *)h)->pid);
	case REC_NUMA_COUNTS:
		return pid(ctx, &((struct rec_numa_counts *)h)->pid);
	}
	return 0;
}

/* Counters merge only if they are the same events. */
static const char *const numa_agree[] = { "numa_events", NULL };

const struct prof_ops numa_prof = {
	.types = numa_types,
	.ntypes = sizeof(numa_types) / sizeof(numa_types[0]),
	.sym = numa_sym,
	.merge = numa_merge,
	.agree = numa_agree,
};
