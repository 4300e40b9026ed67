// SPDX-License-Identifier: GPL-2.0-only
/*
 * The object map (objmap.h).  Building it replays each process's
 * allocations and frees in time order to give every block its lifetime,
 * then sorts the blocks by (pid, start, birth).  Blocks that share a start
 * form a run, in which only the latest born before a time can be alive;
 * each run also carries the largest end of the runs up to it in its
 * process, so a lookup walks back from the nearest start only over runs
 * that can still reach the address.  Static objects are a second sorted
 * array, from the data symbols the profile resolved.
 */
#include "lib/core/objmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/hash.h"
#include "lib/core/names.h"

#define OM_NAME_MAX 512
#define OM_FORK_DEPTH 8 /* a fork's fork's ... parent, at most */
#define OM_DEAD UINT32_MAX

struct om_block {
	uint64_t start, end; /* [start, end) */
	uint64_t t0, t1;     /* alive in [t0, t1) */
	uint64_t id;         /* pieces of a cut mapping keep the mapping's */
	uint32_t pid, group;
	uint32_t tid, seq;   /* seq: recording order, for equal births */
};

struct om_run {
	uint64_t start;
	uint64_t maxend; /* the largest end of this run and those before it in its pid */
	uint32_t pid;
	uint32_t first, n;
};

struct om_static {
	uint64_t start, end, maxend;
	uint32_t image, group;
};

struct om_proc {
	uint32_t pid, ppid, flags, nexec;
	uint64_t start;
	const uint64_t *exec_time;
};

struct objmap {
	const struct profile *p;
	struct om_block *blocks;
	size_t nblocks, cap;
	struct om_run *runs;
	size_t nruns;
	struct om_static *statics;
	size_t nstatics;
	struct om_proc *procs; /* by pid */
	size_t nprocs;
	struct objmap_group *groups;
	size_t ngroups, groups_cap;
	uint64_t static_id0; /* static objects' ids follow the blocks' */
	/* Per group its blocks' births and ends, each in time order: group
	 * g's at [live_ix[g], live_ix[g + 1]) (objmap_live). */
	uint64_t *born, *died;
	size_t *live_ix;
};

const char *objmap_kind_name(uint32_t kind)
{
	switch (kind) {
	case OBJ_HEAP: return "heap";
	case OBJ_MMAP: return "mmap";
	case OBJ_STACK: return "stack";
	case OBJ_STATIC: return "static";
	default: return "none";
	}
}

static uint32_t om_kind_of(uint8_t alloc_kind)
{
	switch (alloc_kind) {
	case ALLOC_MMAP: return OBJ_MMAP;
	case ALLOC_STACK: return OBJ_STACK;
	default: return OBJ_HEAP;
	}
}

/* ---------------------------------------------------------------- procs */

static int om_proc_cmp(const void *a, const void *b)
{
	const struct om_proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int om_procs(struct objmap *m)
{
	const struct profile *p = m->p;

	m->procs = calloc(p->nprocs + 1, sizeof(*m->procs));
	if (!m->procs)
		return -ENOMEM;
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct prof_proc *pr = &p->procs[i];

		m->procs[i] = (struct om_proc){ pr->pid, pr->ppid, pr->flags, pr->nexec,
						pr->start, pr->exec_time };
	}
	m->nprocs = p->nprocs;
	qsort(m->procs, m->nprocs, sizeof(*m->procs), om_proc_cmp);
	return 0;
}

static const struct om_proc *om_proc(const struct objmap *m, uint32_t pid)
{
	size_t lo = 0, hi = m->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nprocs && m->procs[lo].pid == pid ? &m->procs[lo] : NULL;
}

/* profile_image(), without its linear search. */
static uint32_t om_image(const struct objmap *m, uint32_t pid, uint64_t time)
{
	const struct om_proc *pr = om_proc(m, pid);
	uint32_t gen = 0;

	for (unsigned i = 0; pr && i < pr->nexec; i++)
		if (pr->exec_time[i] <= time)
			gen = i + 1;
	return pid | gen << 22;
}

/* --------------------------------------------------------------- groups */

static int om_group_new(struct objmap *m, uint32_t kind, uint32_t alloc_kind, uint32_t image,
			uint32_t path, uint32_t *out)
{
	struct objmap_group *g;

	if (m->ngroups >= OBJMAP_NO_GROUP - 1)
		return -EOVERFLOW;
	if (array_grow(&m->groups, &m->groups_cap, m->ngroups, sizeof(*m->groups)))
		return -ENOMEM;
	g = &m->groups[m->ngroups];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->alloc_kind = alloc_kind;
	g->image = image;
	g->path = path;
	*out = (uint32_t)m->ngroups++;
	return 0;
}

/* The group of (image, kind, path); ix: the groups by those, while building. */
static int om_group_of(struct objmap *m, struct hash *ix, const struct prof_alloc *a,
		       uint32_t *out)
{
	uint32_t kind = om_kind_of(a->kind);
	uint32_t image = om_image(m, a->pid, a->time);
	uint64_t hv = hash_mix((uint64_t)image << 32 | a->path, kind);
	int err;

	if (kind == OBJ_STACK) /* one object per thread */
		return om_group_new(m, kind, a->kind, image, PROF_NO_PATH, out);
	for (size_t c = 0, i; (i = hash_walk(ix, hv, &c)) != HASH_NONE;) {
		const struct objmap_group *g = &m->groups[i];

		if (g->path == a->path && g->image == image && g->kind == kind) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	err = om_group_new(m, kind, a->kind, image, a->path, out);
	return err ? err : hash_add(ix, hv, *out);
}

/* ----------------------------------------------------------------- names */

static const char *om_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Frames in these modules are the allocator's, not the program's. */
static int om_runtime(const char *module)
{
	static const char *const skip[] = { "libc.so", "libc-", "ld-linux", "libstdc++",
					    "libgcc_s", "libasan", "libtsan", "cdt-agent",
					    "memfd:cdt-agent", NULL };
	const char *b = om_base(module);

	if (!strncmp(module, "/proc/self/fd/", 14)) /* the agent, as injected */
		return 1;
	for (int i = 0; skip[i]; i++)
		if (!strncmp(b, skip[i], strlen(skip[i])))
			return 1;
	return 0;
}

/* A frame's function and the line in it (SYM_SITE; files of cdt 0.1
 * resolved frames as SYM_CODE, the line of the innermost inlined code). */
static const struct prof_sym *om_frame_sym(const struct objmap *m, uint32_t image, uint64_t ra)
{
	const struct prof_sym *s;

	if (!ra)
		return NULL;
	s = profile_sym_image(m->p, image, SYM_SITE, ra - 1);
	return s ? s : profile_sym_image(m->p, image, SYM_CODE, ra - 1);
}

/* One frame: "main.c:42 (func)" (file first, for names) or "func (main.c:42)". */
static int om_frame_text(const struct objmap *m, uint32_t image, uint64_t ra, int file_first,
			 char *buf, size_t len)
{
	const struct prof_sym *s = om_frame_sym(m, image, ra);

	if (s && s->name && s->file)
		return file_first ? snprintf(buf, len, "%s:%u (%s)", om_base(s->file), s->line, s->name)
				  : snprintf(buf, len, "%s (%s:%u)", s->name, om_base(s->file), s->line);
	if (s && s->name)
		return snprintf(buf, len, "%s+0x%" PRIx64, s->name, ra - s->start);
	if (s && s->module && !strncmp(s->module, "/proc/self/fd/", 14))
		return snprintf(buf, len, "[cdt agent]"); /* its interposers */
	if (s && s->module)
		return names_module_offset(m->p, image, ra, s->module, buf, len);
	return snprintf(buf, len, "0x%" PRIx64, ra);
}

/* A program's own allocation wrapper (xmalloc, my_calloc, realloc_or_die,
 * operator new): no name for what it allocates. */
static int om_wrapper(const char *fn)
{
	static const char *const words[] = { "alloc", "strdup", "operator new", "_Znwm", "_Znam",
					     NULL };

	for (int i = 0; fn && words[i]; i++)
		if (strcasestr(fn, words[i]))
			return 1;
	return 0;
}

/*
 * The frame that names a block: the first outside the allocator, the
 * agent, the program's allocation wrappers and the code of the toolchain's
 * headers and standard libraries (a std::vector's allocator, Rust's
 * alloc: names_toolchain_file), frame 0 if none; the frame's line is the
 * one in its own function (SYM_SITE), so a helper inlined into it does
 * not name the block either.
 */
static uint32_t om_name_frame(const struct objmap *m, const struct prof_path *x)
{
	for (uint32_t k = 0; k < x->depth; k++) {
		const struct prof_sym *s = om_frame_sym(m, x->image, x->frames[k]);

		if (s && s->module && om_runtime(s->module))
			continue;
		if (s && (om_wrapper(s->name) || names_toolchain_file(s->file)) && k + 1 < x->depth)
			continue;
		return k;
	}
	return 0;
}

/* The library function the program called on this path (strdup, puts,
 * operator new): the outermost named frame before the naming one. */
static int om_via(const struct objmap *m, const struct objmap_group *g, char *buf, size_t len)
{
	const struct prof_path *x = &m->p->objs.paths[g->path];

	buf[0] = '\0';
	for (uint32_t k = g->frame; k-- > 0;) {
		const struct prof_sym *s = om_frame_sym(m, x->image, x->frames[k]);

		if (s && s->name) { /* without a symbol version: pthread_create@@GLIBC_2.34 */
			snprintf(buf, len, "%.*s", (int)strcspn(s->name, "@"), s->name);
			return 1;
		}
	}
	return 0;
}

/* How a group is named: kind@frame, " via f" if `via`, then `extra` callers. */
struct om_naming {
	uint32_t extra;
	uint8_t via;
};

static int om_name_path(struct objmap *m, struct objmap_group *g, const struct om_naming *how)
{
	const struct prof_path *x = &m->p->objs.paths[g->path];
	char buf[OM_NAME_MAX], via[128];
	size_t n;
	char *name;

	n = (size_t)snprintf(buf, sizeof(buf), "%s@", objmap_kind_name(g->kind));
	om_frame_text(m, x->image, x->frames[g->frame], 1, buf + n, sizeof(buf) - n);
	if (how->via && om_via(m, g, via, sizeof(via))) {
		n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, " via %s", via);
	}
	for (uint32_t k = g->frame + 1; k <= g->frame + how->extra && k < x->depth; k++) {
		n = strlen(buf);
		if (n + 4 >= sizeof(buf))
			break;
		memcpy(buf + n, " < ", 4);
		n += 3;
		om_frame_text(m, x->image, x->frames[k], 1, buf + n, sizeof(buf) - n);
	}
	name = strdup(buf);
	if (!name)
		return -ENOMEM;
	free((void *)g->name);
	g->name = name;
	return 0;
}

static int om_name_cmp(const void *a, const void *b, void *arg)
{
	const struct objmap_group *g = arg;

	return strcmp(g[*(const uint32_t *)a].name, g[*(const uint32_t *)b].name);
}

/* The same call path as text (a fork child's, another rank's)? */
static int om_path_same(const struct objmap *m, const struct objmap_group *a,
			const struct objmap_group *b)
{
	const struct prof_path *x = &m->p->objs.paths[a->path], *y = &m->p->objs.paths[b->path];
	char s[OM_NAME_MAX], t[OM_NAME_MAX];

	if (x->depth != y->depth)
		return 0;
	for (uint32_t k = 0; k < x->depth; k++) {
		if (x->image == y->image && x->frames[k] == y->frames[k])
			continue;
		om_frame_text(m, x->image, x->frames[k], 1, s, sizeof(s));
		om_frame_text(m, y->image, y->frames[k], 1, t, sizeof(t));
		if (strcmp(s, t))
			return 0;
	}
	return 1;
}

/* Do the members of a name's set reach the allocator through different
 * library functions? */
static int om_vias_differ(const struct objmap *m, const uint32_t *ix, size_t n)
{
	char a[128], b[128];

	om_via(m, &m->groups[ix[0]], a, sizeof(a));
	for (size_t k = 1; k < n; k++) {
		om_via(m, &m->groups[ix[k]], b, sizeof(b));
		if (strcmp(a, b))
			return 1;
	}
	return 0;
}

/*
 * Different call paths with one name: first the library function each
 * called, if that tells them apart ("heap@main.c:9 (main) via puts"),
 * then callers until the names differ.  The same path in several
 * processes keeps one name, so a view that aggregates by name merges them.
 */
static int om_name_unique(struct objmap *m, struct om_naming *how)
{
	uint32_t *ix = malloc((m->ngroups + 1) * sizeof(*ix));
	size_t n = 0;
	int err = 0;

	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < m->ngroups; i++)
		if (m->groups[i].path != PROF_NO_PATH)
			ix[n++] = (uint32_t)i;
	for (int round = 0; round <= ALLOC_MAX_DEPTH && !err; round++) {
		int grew = 0;

		if (n)
			qsort_r(ix, n, sizeof(*ix), om_name_cmp, m->groups);
		for (size_t i = 0; i < n && !err;) {
			size_t j = i + 1;
			int differ = 0, via;

			while (j < n && !om_name_cmp(&ix[i], &ix[j], m->groups)) {
				differ = differ || !om_path_same(m, &m->groups[ix[i]],
								 &m->groups[ix[j]]);
				j++;
			}
			via = differ && !how[ix[i]].via && om_vias_differ(m, ix + i, j - i);
			for (size_t k = i; differ && k < j && !err; k++) {
				struct objmap_group *g = &m->groups[ix[k]];
				struct om_naming *h = &how[ix[k]];

				if (via)
					h->via = 1;
				else if (g->frame + h->extra + 1 < m->p->objs.paths[g->path].depth)
					h->extra++;
				else
					continue;
				grew = 1;
				err = om_name_path(m, g, h);
			}
			i = j;
		}
		if (!grew)
			break;
	}
	free(ix);
	return err;
}

static int om_names(struct objmap *m)
{
	struct om_naming *how = calloc(m->ngroups + 1, sizeof(*how));
	char buf[OM_NAME_MAX];
	int err = 0;

	if (!how)
		return -ENOMEM;
	for (size_t i = 0; i < m->ngroups && !err; i++) {
		struct objmap_group *g = &m->groups[i];

		if (g->kind == OBJ_STATIC)
			continue; /* named when made */
		if (g->path != PROF_NO_PATH) {
			g->frame = om_name_frame(m, &m->p->objs.paths[g->path]);
			err = om_name_path(m, g, &how[i]);
			continue;
		}
		if (g->kind == OBJ_STACK)
			continue; /* om_blocks named it */
		snprintf(buf, sizeof(buf), "%s@?", objmap_kind_name(g->kind));
		g->name = strdup(buf);
		if (!g->name)
			err = -ENOMEM;
	}
	if (!err)
		err = om_name_unique(m, how);
	free(how);
	return err;
}

/* ---------------------------------------------------------------- blocks */

static int om_block_add(struct objmap *m, const struct om_block *b, uint32_t *out)
{
	if (m->nblocks >= OM_DEAD - 1)
		return -EOVERFLOW;
	if (array_grow(&m->blocks, &m->cap, m->nblocks, sizeof(*m->blocks)))
		return -ENOMEM;
	m->blocks[m->nblocks] = *b;
	m->blocks[m->nblocks].seq = (uint32_t)m->nblocks;
	*out = (uint32_t)m->nblocks++;
	return 0;
}

static int om_stack_name(struct objmap *m, uint32_t group, const struct prof_alloc *a)
{
	const struct rec_task *t = profile_task_by_tid(m->p, a->pid, a->tid, a->time);
	char buf[64];

	if (t && t->index != UINT32_MAX)
		snprintf(buf, sizeof(buf), "stack@T%u", t->index);
	else
		snprintf(buf, sizeof(buf), "stack@tid%u", a->tid);
	m->groups[group].name = strdup(buf);
	return m->groups[group].name ? 0 : -ENOMEM;
}

/* One block per REC_ALLOC, in order (block i is alloc i), in its group. */
static int om_blocks(struct objmap *m)
{
	const struct prof_objs *o = &m->p->objs;
	struct hash groups = { 0 };
	int err = 0;

	for (size_t i = 0; i < o->nallocs && !err; i++) {
		const struct prof_alloc *a = &o->allocs[i];
		struct om_block b = { .start = a->addr, .end = a->addr + (a->size ? a->size : 1),
				      .t0 = a->time, .t1 = UINT64_MAX, .id = i + 1,
				      .pid = a->pid, .tid = a->tid };
		struct objmap_group *g;
		uint32_t ix;

		if (b.end < b.start) /* a corrupt size: up to the top */
			b.end = UINT64_MAX;
		err = om_group_of(m, &groups, a, &b.group);
		if (!err && m->groups[b.group].kind == OBJ_STACK)
			err = om_stack_name(m, b.group, a);
		if (!err)
			err = om_block_add(m, &b, &ix);
		if (err)
			break;
		g = &m->groups[b.group];
		g->blocks++;
		g->bytes += a->size;
		if (a->size > g->max_size)
			g->max_size = a->size;
	}
	hash_free(&groups);
	return err;
}

/* ------------------------------------------------------------- lifetimes */

struct om_ev {
	uint64_t time;
	uint32_t pid;
	uint32_t idx;   /* alloc (= block) or free index */
	uint32_t alloc; /* 0: free, 1: alloc; a free first at the same instant */
};

static int om_ev_cmp(const void *a, const void *b)
{
	const struct om_ev *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->alloc != y->alloc)
		return x->alloc < y->alloc ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Live heap blocks and stacks by (pid, start). */
struct om_live {
	struct om_start {
		uint64_t start;
		uint32_t pid;
		uint32_t block; /* the latest there; OM_DEAD: freed (the key stays) */
	} *starts;
	size_t nstarts, starts_cap;
	struct hash ix; /* over starts */
	uint32_t *maps; /* live mappings of the current pid, by start, disjoint */
	size_t nmaps, maps_cap;
};

static uint64_t om_live_hash(uint32_t pid, uint64_t start)
{
	return hash_mix(start, pid);
}

static struct om_start *om_live_find(const struct om_live *l, uint32_t pid, uint64_t start)
{
	for (size_t c = 0, i; (i = hash_walk(&l->ix, om_live_hash(pid, start), &c)) != HASH_NONE;)
		if (l->starts[i].start == start && l->starts[i].pid == pid)
			return &l->starts[i];
	return NULL;
}

static int om_live_add(struct om_live *l, const struct om_start *s)
{
	int err = array_grow(&l->starts, &l->starts_cap, l->nstarts, sizeof(*l->starts));

	if (!err)
		err = hash_add(&l->ix, om_live_hash(s->pid, s->start), l->nstarts);
	if (!err)
		l->starts[l->nstarts++] = *s;
	return err;
}

/* First live mapping that ends after u. */
static size_t om_maps_from(const struct objmap *m, const struct om_live *l, uint64_t u)
{
	size_t lo = 0, hi = l->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->blocks[l->maps[mid]].end <= u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A piece of mapping b that lives on from time t. */
static int om_piece(struct objmap *m, uint32_t b, uint64_t start, uint64_t end, uint64_t t,
		    uint32_t *out)
{
	struct om_block x = m->blocks[b];

	x.start = start;
	x.end = end;
	x.t0 = t;
	x.t1 = UINT64_MAX;
	return om_block_add(m, &x, out);
}

/* Room for two more live mappings (a cut in the middle adds one). */
static int om_maps_room(struct om_live *l)
{
	return array_grow(&l->maps, &l->maps_cap, l->nmaps + 1, sizeof(*l->maps));
}

/* [u, v) is unmapped (or mapped anew) at t: the mappings there end, what
 * lies outside the range lives on as pieces. */
static int om_cut(struct objmap *m, struct om_live *l, uint64_t u, uint64_t v, uint64_t t)
{
	size_t i, j;
	uint32_t keep[2];
	int nkeep = 0, err = om_maps_room(l);

	if (err)
		return err;
	i = j = om_maps_from(m, l, u);
	while (j < l->nmaps && m->blocks[l->maps[j]].start < v) {
		uint32_t b = l->maps[j];
		uint64_t s = m->blocks[b].start, e = m->blocks[b].end;

		m->blocks[b].t1 = t;
		if (s < u)
			err = om_piece(m, b, s, u, t, &keep[nkeep++]);
		if (!err && e > v)
			err = om_piece(m, b, v, e, t, &keep[nkeep++]);
		if (err)
			return err;
		j++;
	}
	if ((size_t)nkeep != j - i) {
		memmove(l->maps + i + nkeep, l->maps + j, (l->nmaps - j) * sizeof(*l->maps));
		l->nmaps = l->nmaps - (j - i) + (size_t)nkeep;
	}
	memcpy(l->maps + i, keep, (size_t)nkeep * sizeof(*keep));
	return 0;
}

static int om_map_insert(struct objmap *m, struct om_live *l, uint32_t b)
{
	size_t i;
	int err = om_cut(m, l, m->blocks[b].start, m->blocks[b].end, m->blocks[b].t0);

	if (!err)
		err = om_maps_room(l);
	if (err)
		return err;
	i = om_maps_from(m, l, m->blocks[b].start);
	memmove(l->maps + i + 1, l->maps + i, (l->nmaps - i) * sizeof(*l->maps));
	l->maps[i] = b;
	l->nmaps++;
	return 0;
}

static int om_event(struct objmap *m, struct om_live *l, const struct om_ev *e)
{
	const struct prof_objs *o = &m->p->objs;
	struct om_start *s;

	if (!e->alloc) {
		const struct rec_free *f = &o->frees[e->idx];

		if (f->len)
			return om_cut(m, l, f->addr, f->addr + f->len < f->addr ? UINT64_MAX :
					       f->addr + f->len, f->time);
		s = om_live_find(l, f->pid, f->addr);
		if (s && s->block != OM_DEAD) {
			m->blocks[s->block].t1 = f->time;
			s->block = OM_DEAD;
		}
		return 0;
	}
	if (o->allocs[e->idx].kind == ALLOC_MMAP)
		return om_map_insert(m, l, e->idx);
	s = om_live_find(l, e->pid, m->blocks[e->idx].start);
	if (!s)
		return om_live_add(l, &(struct om_start){ m->blocks[e->idx].start, e->pid, e->idx });
	/* A block at the same start still alive: its free was not seen. */
	if (s->block != OM_DEAD)
		m->blocks[s->block].t1 = e->time;
	s->block = e->idx;
	return 0;
}

/* Replay every process's allocations and frees in time order. */
static int om_lifetimes(struct objmap *m)
{
	const struct prof_objs *o = &m->p->objs;
	size_t nev = o->nallocs + o->nfrees, k = 0;
	struct om_live l = { 0 };
	struct om_ev *ev = malloc((nev + 1) * sizeof(*ev));
	uint32_t pid = 0;
	int err = 0;

	if (!ev) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < o->nallocs; i++)
		ev[k++] = (struct om_ev){ o->allocs[i].time, o->allocs[i].pid, (uint32_t)i, 1 };
	for (size_t i = 0; i < o->nfrees; i++)
		ev[k++] = (struct om_ev){ o->frees[i].time, o->frees[i].pid, (uint32_t)i, 0 };
	qsort(ev, nev, sizeof(*ev), om_ev_cmp);
	for (size_t i = 0; i < nev && !err; i++) {
		if (ev[i].pid != pid) { /* mappings are per process */
			pid = ev[i].pid;
			l.nmaps = 0;
		}
		err = om_event(m, &l, &ev[i]);
	}
	/* exec replaces the whole image */
	for (size_t i = 0; i < m->nblocks && !err; i++) {
		struct om_block *b = &m->blocks[i];
		const struct om_proc *pr = om_proc(m, b->pid);

		for (unsigned x = 0; pr && x < pr->nexec; x++) {
			if (pr->exec_time[x] > b->t0) {
				if (pr->exec_time[x] < b->t1)
					b->t1 = pr->exec_time[x];
				break;
			}
		}
	}
out:
	free(ev);
	free(l.starts);
	hash_free(&l.ix);
	free(l.maps);
	return err;
}

static int om_block_cmp(const void *a, const void *b)
{
	const struct om_block *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int om_runs(struct objmap *m)
{
	if (m->nblocks)
		qsort(m->blocks, m->nblocks, sizeof(*m->blocks), om_block_cmp);
	m->runs = malloc((m->nblocks + 1) * sizeof(*m->runs));
	if (!m->runs)
		return -ENOMEM;
	for (size_t i = 0; i < m->nblocks; i++) {
		const struct om_block *b = &m->blocks[i];
		struct om_run *r = m->nruns ? &m->runs[m->nruns - 1] : NULL;

		if (!r || r->pid != b->pid || r->start != b->start) {
			uint64_t before = r && r->pid == b->pid ? r->maxend : 0;

			r = &m->runs[m->nruns++];
			*r = (struct om_run){ b->start, before, b->pid, (uint32_t)i, 0 };
		}
		r->n++;
		if (b->end > r->maxend)
			r->maxend = b->end;
	}
	return 0;
}

/* --------------------------------------------------------------- statics */

static int om_static_cmp(const void *a, const void *b)
{
	const struct om_static *x = a, *y = b;

	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* the largest first */
}

/* Groups of a module's data without a symbol: one per module and image. */
struct om_modgroups {
	uint32_t *g;
	size_t n, cap;
};

static int om_static_group(struct objmap *m, struct om_modgroups *mg, const struct prof_sym *s,
			   uint32_t *out)
{
	char buf[OM_NAME_MAX];
	int err;

	if (!s->name) {
		snprintf(buf, sizeof(buf), "[%s]", om_base(s->module));
		for (size_t i = 0; i < mg->n; i++) {
			if (m->groups[mg->g[i]].image == s->pid &&
			    !strcmp(m->groups[mg->g[i]].name, buf)) {
				*out = mg->g[i];
				return 0;
			}
		}
		if (array_grow(&mg->g, &mg->cap, mg->n, sizeof(*mg->g)))
			return -ENOMEM;
	}
	err = om_group_new(m, OBJ_STATIC, 0, s->pid, PROF_NO_PATH, out);
	if (err)
		return err;
	if (!s->name)
		mg->g[mg->n++] = *out;
	m->groups[*out].name = strdup(s->name ? s->name : buf);
	if (!m->groups[*out].name)
		return -ENOMEM;
	m->groups[*out].blocks = 1;
	m->groups[*out].bytes = m->groups[*out].max_size = s->name ? s->size : 0;
	return 0;
}

/* Data symbols the profile resolved: ranges for named ones, the exact
 * addresses for module-only ones. */
static int om_statics(struct objmap *m)
{
	const struct profile *p = m->p;
	struct om_modgroups mg = { 0 };
	size_t n = 0, k = 0;
	int err = 0;

	m->statics = malloc((p->nsyms + 1) * sizeof(*m->statics));
	if (!m->statics)
		return -ENOMEM;
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_sym *s = &p->syms[i];

		if (s->kind != SYM_DATA || (!s->name && !s->module))
			continue;
		if (s->name)
			m->statics[n] = (struct om_static){ s->start, s->start + (s->size ? s->size : 1),
							    0, s->pid, OBJMAP_NO_GROUP };
		else
			m->statics[n] = (struct om_static){ s->addr, s->addr + 1, 0, s->pid,
							    OBJMAP_NO_GROUP };
		if (m->statics[n].end < m->statics[n].start)
			m->statics[n].end = UINT64_MAX;
		/* the group comes later, once per distinct object */
		m->statics[n].group = (uint32_t)i;
		n++;
	}
	qsort(m->statics, n, sizeof(*m->statics), om_static_cmp);
	for (size_t i = 0; i < n && !err; i++) {
		struct om_static *x = &m->statics[i];

		if (k && m->statics[k - 1].image == x->image && m->statics[k - 1].start == x->start)
			continue; /* an alias, or the same object by another address */
		err = om_static_group(m, &mg, &p->syms[x->group], &x->group);
		m->statics[k] = *x;
		m->statics[k].maxend = x->end;
		if (k && m->statics[k - 1].image == x->image && m->statics[k - 1].maxend > x->end)
			m->statics[k].maxend = m->statics[k - 1].maxend;
		k++;
	}
	m->nstatics = k;
	free(mg.g);
	return err;
}

static const struct om_static *om_find_static(const struct objmap *m, uint32_t image,
					      uint64_t addr)
{
	size_t lo = 0, hi = m->nstatics;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct om_static *s = &m->statics[mid];

		if (s->image < image || (s->image == image && s->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct om_static *s = &m->statics[i];

		if (s->image != image || s->maxend <= addr)
			break;
		if (s->end > addr)
			return s;
	}
	return NULL;
}

/* ------------------------------------------------------------------ API */

static int om_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int om_live_index(struct objmap *m)
{
	size_t *at;

	m->live_ix = calloc(m->ngroups + 1, sizeof(*m->live_ix));
	m->born = malloc((m->nblocks ? m->nblocks : 1) * sizeof(*m->born));
	m->died = malloc((m->nblocks ? m->nblocks : 1) * sizeof(*m->died));
	at = calloc(m->ngroups + 1, sizeof(*at));
	if (!m->live_ix || !m->born || !m->died || !at) {
		free(at);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nblocks; i++)
		m->live_ix[m->blocks[i].group + 1]++;
	for (size_t g = 0; g < m->ngroups; g++)
		at[g] = m->live_ix[g + 1] += m->live_ix[g];
	for (size_t g = m->ngroups; g-- > 0;)
		at[g] = m->live_ix[g];
	for (size_t i = 0; i < m->nblocks; i++) {
		size_t j = at[m->blocks[i].group]++;

		m->born[j] = m->blocks[i].t0;
		m->died[j] = m->blocks[i].t1;
	}
	for (size_t g = 0; g < m->ngroups; g++) {
		size_t a = m->live_ix[g], n = m->live_ix[g + 1] - a;

		qsort(m->born + a, n, sizeof(*m->born), om_u64_cmp);
		qsort(m->died + a, n, sizeof(*m->died), om_u64_cmp);
	}
	free(at);
	return 0;
}

/* How many of v[0..n), in order, are at most t. */
static size_t om_upto(const uint64_t *v, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t objmap_live(const struct objmap *m, uint32_t group, uint64_t time)
{
	size_t a, n, born, died;

	if (group >= m->ngroups)
		return 0;
	a = m->live_ix[group];
	n = m->live_ix[group + 1] - a;
	/* Those born by then less those ended by then are alive (a block
	 * ends after its birth, unless the records say otherwise). */
	born = om_upto(m->born + a, n, time);
	died = om_upto(m->died + a, n, time);
	return born > died ? born - died : 0;
}

int objmap_build(struct objmap **out, const struct profile *p)
{
	struct objmap *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->p = p;
	m->static_id0 = p->objs.nallocs;
	err = om_procs(m);
	if (!err)
		err = om_blocks(m);
	if (!err)
		err = om_lifetimes(m);
	if (!err)
		err = om_runs(m);
	if (!err)
		err = om_statics(m);
	if (!err)
		err = om_names(m);
	if (!err)
		err = om_live_index(m);
	if (err) {
		objmap_free(m);
		return err;
	}
	*out = m;
	return 0;
}

void objmap_free(struct objmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ngroups; i++)
		free((void *)m->groups[i].name);
	free(m->groups);
	free(m->blocks);
	free(m->runs);
	free(m->statics);
	free(m->procs);
	free(m->born);
	free(m->died);
	free(m->live_ix);
	free(m);
}

static const struct om_block *om_find_block(const struct objmap *m, uint32_t pid,
					    uint64_t addr, uint64_t time)
{
	const struct om_block *best = NULL;
	size_t lo = 0, hi = m->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct om_run *r = &m->runs[mid];

		if (r->pid < pid || (r->pid == pid && r->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct om_run *r = &m->runs[i];
		size_t a = r->first, b = (size_t)r->first + r->n;
		const struct om_block *x;

		if (r->pid != pid || r->maxend <= addr)
			break;
		/* the latest born by `time` is the only one that may be alive */
		while (a < b) {
			size_t mid = a + (b - a) / 2;

			if (m->blocks[mid].t0 <= time)
				a = mid + 1;
			else
				b = mid;
		}
		if (a == r->first)
			continue;
		x = &m->blocks[a - 1];
		if (x->end <= addr || x->t1 <= time)
			continue;
		/* overlapping blocks: a free went unseen; the younger wins */
		if (!best || x->t0 > best->t0 || (x->t0 == best->t0 && x->seq > best->seq))
			best = x;
	}
	return best;
}

int objmap_find(const struct objmap *m, uint32_t pid, uint64_t addr, uint64_t time,
		struct objmap_obj *out)
{
	const struct om_static *s;
	uint32_t qpid = pid;
	uint64_t qtime = time;

	memset(out, 0, sizeof(*out));
	out->group = OBJMAP_NO_GROUP;
	for (int d = 0; d < OM_FORK_DEPTH; d++) {
		const struct om_block *b = om_find_block(m, qpid, addr, qtime);
		const struct om_proc *pr;

		if (b) {
			out->id = b->id;
			out->group = b->group;
			out->kind = m->groups[b->group].kind;
			out->start = b->start;
			out->size = b->end - b->start;
			out->offset = addr - b->start;
			out->pid = b->pid;
			out->tid = b->tid;
			out->alloc_time = b->t0;
			out->free_time = b->t1;
			return 0;
		}
		/* A fork child has what its parent had when it forked, until it execs. */
		pr = om_proc(m, qpid);
		if (!pr || !(pr->flags & PROC_F_FORK) || !pr->ppid || pr->ppid == qpid ||
		    (pr->nexec && pr->exec_time[0] <= qtime))
			break;
		qpid = pr->ppid;
		qtime = pr->start;
	}
	s = om_find_static(m, om_image(m, pid, time), addr);
	if (!s)
		return -ENOENT;
	out->id = m->static_id0 + 1 + (uint64_t)(s - m->statics);
	out->group = s->group;
	out->kind = OBJ_STATIC;
	out->start = s->start;
	out->size = s->end - s->start;
	out->offset = addr - s->start;
	out->pid = pid;
	out->free_time = UINT64_MAX;
	return 0;
}

/* An allocator's header before each heap block, which its malloc and
 * free read and write (glibc: the previous chunk's size and this one's). */
#define OM_HEADER 16

/* Is addr in o or in the header before it? */
static int om_in_chunk(const struct objmap_obj *o, uint64_t addr)
{
	uint64_t lo = o->kind == OBJ_HEAP && o->start >= OM_HEADER ? o->start - OM_HEADER : o->start;

	return addr >= lo && addr - o->start < o->size;
}

/* The heap block, mapping or stack at addr (or whose header holds it). */
static int om_find_dynamic(const struct objmap *m, uint32_t pid, uint64_t addr, uint64_t time,
			   struct objmap_obj *o)
{
	if (!objmap_find(m, pid, addr, time, o) && o->kind != OBJ_STATIC)
		return 1;
	return addr <= UINT64_MAX - OM_HEADER && !objmap_find(m, pid, addr + OM_HEADER, time, o) &&
	       o->kind == OBJ_HEAP && o->offset < OM_HEADER;
}

int objmap_recycled(const struct objmap *m, uint32_t pid, uint64_t a_addr, uint64_t a_time,
		    uint64_t b_addr, uint64_t b_time)
{
	struct objmap_obj a, b;
	int ha = om_find_dynamic(m, pid, a_addr, a_time, &a);
	int hb = om_find_dynamic(m, pid, b_addr, b_time, &b);

	if (ha && hb)
		return a.id != b.id && a.free_time <= b.alloc_time;
	if (ha)
		return a.free_time <= b_time && om_in_chunk(&a, b_addr);
	if (hb)
		return b.alloc_time > a_time && om_in_chunk(&b, a_addr);
	return 0;
}

size_t objmap_ngroups(const struct objmap *m)
{
	return m->ngroups;
}

const struct objmap_group *objmap_group(const struct objmap *m, uint32_t group)
{
	return group < m->ngroups ? &m->groups[group] : NULL;
}

int objmap_path_text(const struct objmap *m, uint32_t group, char *buf, size_t len)
{
	const struct objmap_group *g = objmap_group(m, group);
	const struct prof_path *x;
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	if (!g || g->path == PROF_NO_PATH)
		return 0;
	x = &m->p->objs.paths[g->path];
	for (uint32_t k = 0; k < x->depth; k++) {
		char f[OM_NAME_MAX];
		int w = om_frame_text(m, x->image, x->frames[k], 0, f, sizeof(f));

		if (w < 0)
			return w;
		if (n < len)
			snprintf(buf + n, len - n, "%s%s", k ? " < " : "", f);
		n += (size_t)w + (k ? 3 : 0);
	}
	return (int)(n > INT32_MAX ? INT32_MAX : n);
}
