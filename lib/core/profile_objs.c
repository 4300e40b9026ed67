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
	uint64_t key; /* pid << 32 | site number */
	uint32_t path;
};

static uint64_t objs_path_hash(const struct prof_path *x)
{
	return hash_mix(hash_bytes(x->frames, x->depth * sizeof(x->frames[0])), x->image);
}

static int objs_path_eq(const struct prof_path *a, const struct prof_path *b)
{
	return a->image == b->image && a->depth == b->depth &&
	       !memcmp(a->frames, b->frames, a->depth * sizeof(a->frames[0]));
}

/* The index of path x, added if new. */
static int objs_path_intern(struct prof_objs *o, const struct prof_path *x, uint32_t *out)
{
	uint64_t hv = objs_path_hash(x);
	int err;

	for (size_t c = 0, i; (i = hash_walk(&o->path_ix, hv, &c)) != HASH_NONE;) {
		if (objs_path_eq(&o->paths[i], x)) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	if (o->npaths >= PROF_NO_PATH - 1)
		return -EOVERFLOW;
	err = array_grow(&o->paths, &o->paths_cap, o->npaths, sizeof(*o->paths));
	if (!err)
		err = hash_add(&o->path_ix, hv, o->npaths);
	if (err)
		return err;
	o->paths[o->npaths] = *x;
	*out = (uint32_t)o->npaths++;
	return 0;
}

static struct prof_site *objs_site(const struct prof_objs *o, uint64_t key)
{
	for (size_t c = 0, i; (i = hash_walk(&o->site_ix, hash_u64(key), &c)) != HASH_NONE;)
		if (o->sites[i].key == key)
			return &o->sites[i];
	return NULL;
}

/* A path number the agent defined; a later definition replaces it (the
 * numbers start again after exec). */
static int objs_site_put(struct prof_objs *o, uint64_t key, uint32_t path)
{
	struct prof_site *s = objs_site(o, key);
	int err;

	if (s) {
		s->path = path;
		return 0;
	}
	err = array_grow(&o->sites, &o->sites_cap, o->nsites, sizeof(*o->sites));
	if (!err)
		err = hash_add(&o->site_ix, hash_u64(key), o->nsites);
	if (!err)
		o->sites[o->nsites++] = (struct prof_site){ key, path };
	return err;
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
		const struct prof_site *s = objs_site(o, key);

		/* Its definition may have been dropped: no path then. */
		if (s)
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
	hash_free(&o->path_ix);
	free(o->sites);
	hash_free(&o->site_ix);
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
