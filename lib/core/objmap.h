/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Data objects of a profile: which heap block, anonymous mapping, thread
 * stack or static variable an address of a process belonged to at a time.
 * Built from the profile's REC_ALLOC/REC_FREE (p->objs) and its symbols
 * (SYM_DATA), after symbolization; one answer for any address.  Tools
 * use it to attribute samples and cache lines to data.
 *
 * Blocks from the same allocation call path form one group, the unit a
 * report aggregates, named after the innermost frame outside libc, the
 * C++ runtime and the agent: "heap@main.c:42 (make_table)",
 * "mmap@pool.c:17 (pool_grow)".  A thread's stack is a group of its own
 * ("stack@T3", thread index), a static variable too ("counter", or
 * "[libfoo.so]" for a module's data without a symbol).  When different
 * paths would get the same name, the library function each called is
 * added if that tells them apart ("heap@main.c:9 (main) via puts"), else
 * callers until the names differ ("heap@util.c:10 (xmalloc) < parse.c:88
 * (parse_line)"); the same path in several processes (fork, MPI ranks)
 * keeps one name, so a view that aggregates by name merges them.
 *
 * Addresses are reused: the time decides.  A block lives from its
 * REC_ALLOC to the REC_FREE of its start (munmap: the range, which may cut
 * a mapping into pieces), to a later block at the same start (a free that
 * was never seen) or to an exec of its process; a fork child also sees
 * the blocks its parent had when it forked.  Memory is proportional to
 * the blocks recorded; a lookup is two binary searches.
 */
#ifndef CDT_OBJMAP_H
#define CDT_OBJMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/profile.h"

enum obj_kind {
	OBJ_NONE = 0,   /* nothing known at the address */
	OBJ_HEAP = 1,   /* malloc, calloc, realloc, posix_memalign... */
	OBJ_MMAP = 2,   /* an anonymous mapping the program made */
	OBJ_STACK = 3,  /* a thread's stack */
	OBJ_STATIC = 4, /* an ELF data symbol, or a module's data without one */
};

#define OBJMAP_NO_GROUP UINT32_MAX

/* What objmap_find found. */
struct objmap_obj {
	uint64_t id;       /* the block or static object, unique in the map; 0: none */
	uint32_t group;    /* objmap_group(); OBJMAP_NO_GROUP if none */
	uint32_t kind;     /* enum obj_kind */
	uint64_t start;    /* the block (or symbol) */
	uint64_t size;
	uint64_t offset;   /* of the address in it */
	uint32_t pid;      /* the process that allocated it (a fork's parent) */
	uint32_t tid;      /* heap, mmap: the allocating thread; stack: its thread */
	uint64_t alloc_time;
	uint64_t free_time; /* UINT64_MAX: never seen ending */
};

struct objmap_group {
	uint32_t kind;       /* enum obj_kind */
	uint32_t alloc_kind; /* enum alloc_kind of its first block; 0 for static */
	const char *name;
	uint64_t blocks;     /* blocks allocated (static: 1) */
	uint64_t bytes;      /* their sizes summed */
	uint64_t max_size;
	uint32_t image;      /* profile_image() of its process */
	uint32_t path;       /* index into p->objs.paths; PROF_NO_PATH if none */
	uint32_t frame;      /* the path frame the name comes from */
};

struct objmap;

/* Build from p, which must outlive the map.  Returns 0 or -ENOMEM. */
int objmap_build(struct objmap **m, const struct profile *p);
void objmap_free(struct objmap *m);

/* The object at addr in process pid at time: 0, or -ENOENT (out->kind
 * OBJ_NONE, out->group OBJMAP_NO_GROUP). */
int objmap_find(const struct objmap *m, uint32_t pid, uint64_t addr, uint64_t time,
		struct objmap_obj *out);

/*
 * Did the allocator hand memory on between two accesses of process pid,
 * a first at (a_addr, a_time) and a later one at (b_addr, b_time)?  1
 * when the block (heap, mapping or stack) live at the first had ended
 * before the block live at the second began: freed, then allocated
 * again, so the two touched different instances and share no data.
 * With only one of the two blocks known: when the first's had ended by
 * the second access, made inside it (the allocator's own use of freed
 * memory), or the second's began after the first access, made inside
 * it.  The allocator's header before a heap block (16 bytes) counts as
 * the block's.  0 otherwise: the same block, blocks alive together
 * (neighbours on a line), static objects, or nothing known.
 */
int objmap_recycled(const struct objmap *m, uint32_t pid, uint64_t a_addr, uint64_t a_time,
		    uint64_t b_addr, uint64_t b_time);

/* How many blocks of a group (heap, mmap or stack) were alive at a time,
 * in any process. */
uint64_t objmap_live(const struct objmap *m, uint32_t group, uint64_t time);

size_t objmap_ngroups(const struct objmap *m);
const struct objmap_group *objmap_group(const struct objmap *m, uint32_t group);
const char *objmap_kind_name(uint32_t kind); /* "heap", "mmap", "stack", "static", "none" */

/* A group's call path as text, innermost first, frames joined by " < ":
 * "make_table (main.c:42) < main (main.c:90)".  Empty for stacks and
 * statics.  Returns the length it needed (as snprintf). */
int objmap_path_text(const struct objmap *m, uint32_t group, char *buf, size_t len);

#endif
