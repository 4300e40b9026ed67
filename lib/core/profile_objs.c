// SPDX-License-Identifier: GPL-2.0-only
/*
 * The allocation records of a profile: REC_ALLOC and REC_FREE as they
 * arrive, each distinct call path of an image stored once, and the agent's
 * per-process path numbers resolved to those entries.  A file gets every
 * record with its frames written out (zlib makes the repetition cheap), so
 * a reader never depends on records it may not have.
 */
#include "lib/core/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/datafile.h"

struct prof_site {
	uint64_t key; /* pid << 32 | site number; 0: empty */
	uint32_t path;
};

static uint64_t objs_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static uint64_t objs_path_hash(const struct prof_path *x)
{
	uint64_t h = objs_mix(x->image | (uint64_t)x->depth << 32);

	for (uint32_t k = 0; k < x->depth; k++)
		h = objs_mix(h ^ x->frames[k]);
	return h;
}

static int objs_path_eq(const struct prof_path *a, const struct prof_path *b)
{
	return a->image == b->image && a->depth == b->depth &&
	       !memcmp(a->frames, b->frames, a->depth * sizeof(a->frames[0]));
}

static int objs_path_rehash(struct prof_objs *o)
{
	size_t cap = o->path_tab_cap ? o->path_tab_cap * 2 : 256;
	uint32_t *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < o->npaths; i++) {
		size_t k = objs_path_hash(&o->paths[i]) & (cap - 1);

		while (tab[k])
			k = (k + 1) & (cap - 1);
		tab[k] = (uint32_t)i + 1;
	}
	free(o->path_tab);
	o->path_tab = tab;
	o->path_tab_cap = cap;
	return 0;
}

/* The index of path x, added if new. */
static int objs_path_intern(struct prof_objs *o, const struct prof_path *x, uint32_t *out)
{
	size_t k;

	if ((o->npaths + 1) * 2 > o->path_tab_cap && objs_path_rehash(o))
		return -ENOMEM;
	for (k = objs_path_hash(x) & (o->path_tab_cap - 1); o->path_tab[k];
	     k = (k + 1) & (o->path_tab_cap - 1)) {
		if (objs_path_eq(&o->paths[o->path_tab[k] - 1], x)) {
			*out = o->path_tab[k] - 1;
			return 0;
		}
	}
	if (o->npaths >= PROF_NO_PATH - 1)
		return -EOVERFLOW;
	if (array_grow(&o->paths, &o->paths_cap, o->npaths, sizeof(*o->paths)))
		return -ENOMEM;
	o->paths[o->npaths] = *x;
	o->path_tab[k] = (uint32_t)o->npaths + 1;
	*out = (uint32_t)o->npaths++;
	return 0;
}

static struct prof_site *objs_site_slot(const struct prof_objs *o, uint64_t key)
{
	size_t k;

	if (!o->sites_cap)
		return NULL;
	for (k = objs_mix(key) & (o->sites_cap - 1);; k = (k + 1) & (o->sites_cap - 1))
		if (!o->sites[k].key || o->sites[k].key == key)
			return &o->sites[k];
}

/* A path number the agent defined; a later definition replaces it (the
 * numbers start again after exec). */
static int objs_site_put(struct prof_objs *o, uint64_t key, uint32_t path)
{
	struct prof_site *s;

	if ((o->nsites + 1) * 2 > o->sites_cap) {
		struct prof_site *old = o->sites;
		size_t oldcap = o->sites_cap;

		o->sites_cap = oldcap ? oldcap * 2 : 256;
		o->sites = calloc(o->sites_cap, sizeof(*o->sites));
		if (!o->sites) {
			o->sites = old;
			o->sites_cap = oldcap;
			return -ENOMEM;
		}
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key)
				*objs_site_slot(o, old[i].key) = old[i];
		free(old);
	}
	s = objs_site_slot(o, key);
	if (!s->key)
		o->nsites++;
	s->key = key;
	s->path = path;
	return 0;
}

static int objs_add_alloc(struct profile *p, const struct rec_alloc *r)
{
	struct prof_objs *o = &p->objs;
	uint64_t key = (uint64_t)r->pid << 32 | r->site;
	struct prof_alloc a = {
		.pid = r->pid, .tid = r->tid, .time = r->time, .addr = r->addr,
		.size = r->size, .path = PROF_NO_PATH, .kind = r->kind,
		.flags = (uint8_t)r->flags,
	};
	int err = 0;

	if (r->depth) {
		struct prof_path x = { .image = profile_image(p, r->pid, r->time),
				       .depth = r->depth };

		memcpy(x.frames, r->frames, r->depth * sizeof(x.frames[0]));
		err = objs_path_intern(o, &x, &a.path);
		if (!err && r->site)
			err = objs_site_put(o, key, a.path);
	} else if (r->site) {
		const struct prof_site *s = objs_site_slot(o, key);

		/* Its definition may have been dropped: no path then. */
		if (s && s->key)
			a.path = s->path;
	}
	if (!err)
		err = array_grow(&o->allocs, &o->allocs_cap, o->nallocs, sizeof(*o->allocs));
	if (!err)
		o->allocs[o->nallocs++] = a;
	return err;
}

int profile_objs_add(struct profile *p, const struct rec_hdr *r)
{
	struct prof_objs *o = &p->objs;

	/* r is a checked private copy (profile_add): its depth fits its size. */
	if (r->type == REC_ALLOC)
		return objs_add_alloc(p, (const struct rec_alloc *)r);
	if (r->type != REC_FREE)
		return -EINVAL;
	if (array_grow(&o->frees, &o->frees_cap, o->nfrees, sizeof(*o->frees)))
		return -ENOMEM;
	o->frees[o->nfrees] = *(const struct rec_free *)r;
	o->frees[o->nfrees].h.size = sizeof(struct rec_free);
	o->frees[o->nfrees].h.flags = 0;
	o->nfrees++;
	return 0;
}

void profile_objs_free(struct profile *p)
{
	struct prof_objs *o = &p->objs;

	free(o->allocs);
	free(o->frees);
	free(o->paths);
	free(o->path_tab);
	free(o->sites);
	memset(o, 0, sizeof(*o));
}

int profile_objs_write(const struct profile *p, struct df_writer *w)
{
	const struct prof_objs *o = &p->objs;
	struct rec_alloc *r;
	int err = 0;

	if (!o->nallocs && !o->nfrees)
		return 0;
	r = calloc(1, sizeof(*r) + ALLOC_MAX_DEPTH * sizeof(r->frames[0]));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; !err && i < o->nallocs; i++) {
		const struct prof_alloc *a = &o->allocs[i];
		const struct prof_path *x = a->path != PROF_NO_PATH ? &o->paths[a->path] : NULL;
		uint32_t depth = x ? x->depth : 0;

		r->h.size = (uint32_t)(sizeof(*r) + depth * sizeof(r->frames[0]));
		r->h.type = REC_ALLOC;
		r->pid = a->pid;
		r->tid = a->tid;
		r->time = a->time;
		r->addr = a->addr;
		r->size = a->size;
		r->site = 0; /* the frames are here: no numbering in files */
		r->kind = a->kind;
		r->depth = (uint8_t)depth;
		r->flags = a->flags;
		if (depth)
			memcpy(r->frames, x->frames, depth * sizeof(r->frames[0]));
		err = df_write(w, &r->h);
	}
	free(r);
	for (size_t i = 0; !err && i < o->nfrees; i++)
		err = df_write(w, &o->frees[i].h);
	return err;
}
