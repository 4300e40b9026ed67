// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data objects: REC_ALLOC/REC_FREE into a profile (path numbers defined
 * and referenced, paths shared, a file round trip), and the object map
 * over them: offsets, address reuse decided by time, a free never seen,
 * munmap cutting a mapping into pieces, stacks, static variables as the
 * fallback, fork children seeing their parent's heap, exec ending it,
 * names from the first frame outside libc (and callers added when two
 * paths would share one), and a million lookups against the clock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/core/objmap.h"
#include "lib/core/profile.h"

#define APP "/usr/bin/app"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static void add_proc(struct profile *p, uint32_t pid, uint32_t ppid, uint64_t time,
		     uint32_t flags)
{
	union {
		struct rec_proc r;
		char b[sizeof(struct rec_proc) + 16];
	} u;

	memset(&u, 0, sizeof(u));
	u.r.h.size = sizeof(u);
	u.r.h.type = REC_PROC;
	u.r.pid = pid;
	u.r.ppid = ppid;
	u.r.time = time;
	u.r.flags = flags;
	strcpy(u.r.exe, APP);
	assert_int_equal(profile_add(p, &u.r.h), 0);
}

static void add_thread(struct profile *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct rec_thread r = { .h = { sizeof(r), REC_THREAD, 0 } };

	r.pid = pid;
	r.tid = tid;
	r.time = time;
	r.flags = pid == tid ? THREAD_F_MAIN : 0;
	strcpy(r.name, "app");
	assert_int_equal(profile_add(p, &r.h), 0);
}

/* An allocation; depth frames from `frames` (may be NULL), site number. */
static void add_alloc_site(struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
			   uint64_t size, int kind, const uint64_t *frames, unsigned depth,
			   uint32_t site)
{
	uint64_t buf[(sizeof(struct rec_alloc) / 8) + ALLOC_MAX_DEPTH];
	struct rec_alloc *r = (void *)buf;

	memset(buf, 0, sizeof(buf));
	r->h.size = (uint32_t)(sizeof(*r) + depth * 8);
	r->h.type = REC_ALLOC;
	r->pid = pid;
	r->tid = pid;
	r->time = time;
	r->addr = addr;
	r->size = size;
	r->kind = (uint8_t)kind;
	r->depth = (uint8_t)depth;
	r->site = site;
	if (depth)
		memcpy(r->frames, frames, depth * 8);
	assert_int_equal(profile_add(p, &r->h), 0);
}

static void add_alloc(struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
		      uint64_t size, int kind, const uint64_t *frames, unsigned depth)
{
	add_alloc_site(p, pid, time, addr, size, kind, frames, depth, 0);
}

/* A thread's stack, recorded when it starts. */
static void add_stack(struct profile *p, uint32_t pid, uint32_t tid, uint64_t time,
		      uint64_t addr, uint64_t size)
{
	struct rec_alloc r = { .h = { sizeof(r), REC_ALLOC, 0 } };

	r.pid = pid;
	r.tid = tid;
	r.time = time;
	r.addr = addr;
	r.size = size;
	r.kind = ALLOC_STACK;
	assert_int_equal(profile_add(p, &r.h), 0);
}

static void add_free(struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
		     uint64_t len)
{
	struct rec_free r = { .h = { sizeof(r), REC_FREE, 0 } };

	r.pid = pid;
	r.tid = pid;
	r.time = time;
	r.addr = addr;
	r.len = len;
	assert_int_equal(profile_add(p, &r.h), 0);
}

/* A resolved symbol, as the front end stores them after the run. */
static void add_sym(struct profile *p, uint32_t pid, int kind, uint64_t addr, uint64_t start,
		    uint64_t size, const char *name, const char *file, uint32_t line,
		    const char *module)
{
	size_t ln = name ? strlen(name) + 1 : 1, lf = file ? strlen(file) + 1 : 1;
	size_t lm = strlen(module) + 1;
	uint32_t rsize = REC_SIZE(sizeof(struct rec_sym) + ln + lf + lm);
	struct rec_sym *r = calloc(1, rsize);

	assert_non_null(r);
	r->h.size = rsize;
	r->h.type = REC_SYM;
	r->pid = pid;
	r->kind = (uint16_t)kind;
	r->name_len = (uint16_t)ln;
	r->addr = addr;
	r->sym_start = start;
	r->sym_size = size;
	r->line = line;
	r->file_len = (uint32_t)lf;
	r->module_len = (uint32_t)lm;
	if (name)
		memcpy(r->str, name, ln);
	if (file)
		memcpy(r->str + ln, file, lf);
	memcpy(r->str + ln + lf, module, lm);
	assert_int_equal(profile_add(p, &r->h), 0);
	free(r);
}

/* A return address: its call is the byte before, and that is what is resolved. */
static void add_frame(struct profile *p, uint32_t pid, uint64_t ra, const char *fn,
		      const char *file, uint32_t line, const char *module)
{
	add_sym(p, pid, SYM_CODE, ra - 1, ra - 0x20, 0x40, fn, file, line, module);
}

static const char *group_name(const struct objmap *m, const struct objmap_obj *o)
{
	const struct objmap_group *g = objmap_group(m, o->group);

	assert_non_null(g);
	return g->name;
}

static void expect_none(const struct objmap *m, uint32_t pid, uint64_t addr, uint64_t t)
{
	struct objmap_obj o;

	assert_int_equal(objmap_find(m, pid, addr, t, &o), -ENOENT);
	assert_int_equal(o.kind, OBJ_NONE);
	assert_int_equal(o.group, OBJMAP_NO_GROUP);
}

static uint64_t expect_obj(const struct objmap *m, uint32_t pid, uint64_t addr, uint64_t t,
			   uint32_t kind, uint64_t start, uint64_t size)
{
	struct objmap_obj o;

	assert_int_equal(objmap_find(m, pid, addr, t, &o), 0);
	assert_int_equal(o.kind, kind);
	assert_int_equal(o.start, start);
	assert_int_equal(o.size, size);
	assert_int_equal(o.offset, addr - start);
	assert_true(o.id != 0);
	return o.id;
}

/* ------------------------------------------------------------------ tests */

static void test_records(void **state)
{
	static const uint64_t a[] = { 0x401010, 0x402020, 0x403030 };
	static const uint64_t b[] = { 0x401010, 0x402099 };
	struct profile p, q;
	char path[] = "/tmp/cdt-test-objmap-XXXXXX";
	int fd;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1, 1, 0);
	/* site 7 defined with its frames, then used by number */
	add_alloc_site(&p, 100, 10, 0x1000, 48, ALLOC_MALLOC, a, 3, 7);
	add_alloc_site(&p, 100, 11, 0x2000, 48, ALLOC_MALLOC, NULL, 0, 7);
	/* the same frames under another number share the path */
	add_alloc_site(&p, 100, 12, 0x3000, 64, ALLOC_CALLOC, a, 3, 8);
	add_alloc_site(&p, 100, 13, 0x4000, 16, ALLOC_MALLOC, b, 2, 9);
	/* a number never defined (its record was dropped): no path */
	add_alloc_site(&p, 100, 14, 0x5000, 16, ALLOC_MALLOC, NULL, 0, 99);
	add_alloc(&p, 100, 15, 0x7f0000000000, 1 << 20, ALLOC_STACK, NULL, 0);
	add_free(&p, 100, 20, 0x1000, 0);
	assert_int_equal(p.objs.nallocs, 6);
	assert_int_equal(p.objs.nfrees, 1);
	assert_int_equal(p.objs.npaths, 2);
	assert_int_equal(p.objs.allocs[0].path, 0);
	assert_int_equal(p.objs.allocs[1].path, 0);
	assert_int_equal(p.objs.allocs[2].path, 0);
	assert_int_equal(p.objs.allocs[3].path, 1);
	assert_int_equal(p.objs.allocs[4].path, PROF_NO_PATH);
	assert_int_equal(p.objs.allocs[5].path, PROF_NO_PATH);
	assert_int_equal(p.objs.paths[0].depth, 3);
	assert_memory_equal(p.objs.paths[0].frames, a, sizeof(a));

	/* a file carries every record's frames */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(profile_write(&p, path), 0);
	profile_init(&q);
	assert_int_equal(profile_read(&q, path, NULL, 0), 0);
	unlink(path);
	assert_int_equal(q.objs.nallocs, 6);
	assert_int_equal(q.objs.nfrees, 1);
	assert_int_equal(q.objs.npaths, 2);
	for (size_t i = 0; i < 6; i++) {
		const struct prof_alloc *x = &p.objs.allocs[i], *y = &q.objs.allocs[i];

		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->size, y->size);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->time, y->time);
		assert_int_equal(x->path, y->path);
	}
	assert_int_equal(q.objs.frees[0].addr, 0x1000);
	profile_free(&p);
	profile_free(&q);
}

static void test_reuse(void **state)
{
	static const uint64_t fa[] = { 0x401010 }, fb[] = { 0x402020 };
	struct objmap *m;
	struct profile p;
	uint64_t ida, idb, idc;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1, 1, 0);
	/* A lives [10, 20) at 0x1000; B reuses the address from 30 */
	add_alloc(&p, 100, 10, 0x1000, 64, ALLOC_MALLOC, fa, 1);
	add_free(&p, 100, 20, 0x1000, 0);
	add_alloc(&p, 100, 30, 0x1000, 32, ALLOC_MALLOC, fb, 1);
	/* a big block over 0x8000 [10, 40), then a small one inside it */
	add_alloc(&p, 100, 10, 0x8000, 0x100, ALLOC_MALLOC, fa, 1);
	add_free(&p, 100, 40, 0x8000, 0);
	add_alloc(&p, 100, 50, 0x8080, 16, ALLOC_MALLOC, fb, 1);
	/* C at 0x9000 is never freed; D arrives at the same start: C ended */
	add_alloc(&p, 100, 10, 0x9000, 64, ALLOC_MALLOC, fa, 1);
	add_alloc(&p, 100, 60, 0x9000, 8, ALLOC_MALLOC, fb, 1);
	/* a free and a realloc in place at the same instant: free first */
	add_alloc(&p, 100, 10, 0xa000, 16, ALLOC_MALLOC, fa, 1);
	add_free(&p, 100, 70, 0xa000, 0);
	add_alloc(&p, 100, 70, 0xa000, 32, ALLOC_REALLOC, fb, 1);
	/* a free of something never seen changes nothing */
	add_free(&p, 100, 25, 0x123456, 0);
	assert_int_equal(objmap_build(&m, &p), 0);

	expect_none(m, 100, 0x1000, 5);    /* before A */
	ida = expect_obj(m, 100, 0x1010, 15, OBJ_HEAP, 0x1000, 64);
	expect_none(m, 100, 0x1010, 25);   /* between A and B */
	idb = expect_obj(m, 100, 0x1010, 35, OBJ_HEAP, 0x1000, 32);
	assert_true(ida != idb);
	expect_none(m, 100, 0x1020, 35);   /* beyond B's end */
	expect_none(m, 101, 0x1010, 15);   /* another process */

	expect_obj(m, 100, 0x8088, 20, OBJ_HEAP, 0x8000, 0x100);
	expect_none(m, 100, 0x8088, 45);
	expect_obj(m, 100, 0x8088, 55, OBJ_HEAP, 0x8080, 16);
	expect_none(m, 100, 0x8010, 55);

	idc = expect_obj(m, 100, 0x9004, 59, OBJ_HEAP, 0x9000, 64);
	assert_true(expect_obj(m, 100, 0x9004, 61, OBJ_HEAP, 0x9000, 8) != idc);
	expect_none(m, 100, 0x9010, 61);   /* C ended when D came */

	expect_obj(m, 100, 0xa008, 69, OBJ_HEAP, 0xa000, 16);
	expect_obj(m, 100, 0xa018, 70, OBJ_HEAP, 0xa000, 32);

	/* Memory handed on: A's bytes at 15, B's at 35 (other bytes of the
	 * line too); a realloc in place; C to D, its free unseen. */
	assert_int_equal(objmap_recycled(m, 100, 0x1010, 15, 0x1010, 35), 1);
	assert_int_equal(objmap_recycled(m, 100, 0x1008, 15, 0x1018, 35), 1);
	assert_int_equal(objmap_recycled(m, 100, 0xa008, 69, 0xa018, 70), 1);
	assert_int_equal(objmap_recycled(m, 100, 0x9004, 59, 0x9004, 61), 1);
	/* the same instance, whenever */
	assert_int_equal(objmap_recycled(m, 100, 0x1010, 11, 0x1018, 19), 0);
	assert_int_equal(objmap_recycled(m, 100, 0x8010, 11, 0x8020, 39), 0);
	/* freed A touched again (the allocator's own writes), then B's first
	 * access to bytes written before it existed; one side unknown */
	assert_int_equal(objmap_recycled(m, 100, 0x1010, 15, 0x1010, 25), 1);
	assert_int_equal(objmap_recycled(m, 100, 0x1010, 25, 0x1010, 35), 1);
	assert_int_equal(objmap_recycled(m, 100, 0x1010, 15, 0x1040, 25), 0); /* outside A */
	/* malloc reading the header before B, which A's owner had written */
	assert_int_equal(objmap_recycled(m, 100, 0x1010, 15, 0x0ff8, 35), 1);
	assert_int_equal(objmap_recycled(m, 100, 0x0ff8, 15, 0x1010, 35), 1);
	assert_int_equal(objmap_recycled(m, 100, 0x1010, 15, 0x0fe8, 35), 0);
	assert_int_equal(objmap_recycled(m, 100, 0x1040, 25, 0x1010, 35), 0); /* outside B */
	/* the big block and the small one in it: after, not alive together */
	assert_int_equal(objmap_recycled(m, 100, 0x8088, 20, 0x8088, 55), 1);
	/* nothing known, another process */
	assert_int_equal(objmap_recycled(m, 100, 0x5000, 1, 0x5000, 2), 0);
	assert_int_equal(objmap_recycled(m, 101, 0x1010, 15, 0x1010, 35), 0);
	objmap_free(m);
	profile_free(&p);
}

/* Neighbours on a line alive together share it (false sharing), even
 * when one ends before the other's access: nothing was handed on. */
static void test_neighbours(void **state)
{
	static const uint64_t f[] = { 0x401010 };
	struct objmap *m;
	struct profile p;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1, 1, 0);
	add_alloc(&p, 100, 10, 0x2000, 32, ALLOC_MALLOC, f, 1);
	add_alloc(&p, 100, 11, 0x2020, 32, ALLOC_MALLOC, f, 1);
	add_free(&p, 100, 30, 0x2020, 0);
	add_stack(&p, 100, 101, 5, 0x7000, 0x1000);
	assert_int_equal(objmap_build(&m, &p), 0);
	assert_int_equal(objmap_recycled(m, 100, 0x2028, 20, 0x2008, 25), 0);
	assert_int_equal(objmap_recycled(m, 100, 0x2028, 20, 0x2008, 35), 0);
	assert_int_equal(objmap_recycled(m, 100, 0x2008, 20, 0x2028, 25), 0);
	/* a thread's stack while it lives */
	assert_int_equal(objmap_recycled(m, 100, 0x7100, 6, 0x7108, 50), 0);
	objmap_free(m);
	profile_free(&p);
}

static void test_mmap_cut(void **state)
{
	static const uint64_t f[] = { 0x401010 };
	struct objmap *m;
	struct profile p;
	uint64_t id;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1, 1, 0);
	add_alloc(&p, 100, 10, 0x10000, 0x10000, ALLOC_MMAP, f, 1);
	add_free(&p, 100, 20, 0x14000, 0x4000);   /* a hole in the middle */
	add_alloc(&p, 100, 30, 0x1a000, 0x1000, ALLOC_MMAP, f, 1); /* MAP_FIXED over it */
	add_free(&p, 100, 40, 0x8000, 0x9000);    /* the head, and what is before */
	assert_int_equal(objmap_build(&m, &p), 0);

	id = expect_obj(m, 100, 0x15000, 15, OBJ_MMAP, 0x10000, 0x10000);
	expect_none(m, 100, 0x15000, 25);
	assert_int_equal(expect_obj(m, 100, 0x12000, 25, OBJ_MMAP, 0x10000, 0x4000), id);
	assert_int_equal(expect_obj(m, 100, 0x1c000, 25, OBJ_MMAP, 0x18000, 0x8000), id);
	/* the fixed mapping replaced a page of the tail piece */
	assert_true(expect_obj(m, 100, 0x1a800, 35, OBJ_MMAP, 0x1a000, 0x1000) != id);
	assert_int_equal(expect_obj(m, 100, 0x19000, 35, OBJ_MMAP, 0x18000, 0x2000), id);
	assert_int_equal(expect_obj(m, 100, 0x1b000, 35, OBJ_MMAP, 0x1b000, 0x5000), id);
	/* the head unmapped at 40: [0x10000, 0x11000) goes, the rest stays */
	expect_none(m, 100, 0x10800, 45);
	assert_int_equal(expect_obj(m, 100, 0x11000, 45, OBJ_MMAP, 0x11000, 0x3000), id);
	objmap_free(m);
	profile_free(&p);
}

static void test_names(void **state)
{
	/* strdup in libc called from two places, an app site, xmalloc called
	 * from two places (one name, so the callers are added), a mapping */
	static const uint64_t dup1[] = { 0x7f0000001000, 0x401100, 0x401900 };
	static const uint64_t dup2[] = { 0x7f0000001000, 0x401200, 0x401900 };
	static const uint64_t app[] = { 0x401300, 0x401900 };
	static const uint64_t x1[] = { 0x401400, 0x401500, 0x401900 };
	static const uint64_t x2[] = { 0x401400, 0x401600, 0x401900 };
	static const uint64_t mp[] = { 0x401700 };
	/* one line reaching malloc through two library functions */
	static const uint64_t v1[] = { 0x7f0000002000, 0x401800 };
	static const uint64_t v2[] = { 0x7f0000003000, 0x7f0000004000, 0x401800 };
	struct objmap *m;
	struct profile p;
	struct objmap_obj o;
	char text[512];
	size_t heap = 0;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1, 1, 0);
	add_thread(&p, 100, 100, 1);
	add_thread(&p, 100, 101, 2);
	profile_number_tasks(&p);
	add_frame(&p, 100, 0x7f0000001000, "strdup", "strdup.c", 40, LIBC);
	add_frame(&p, 100, 0x401100, "load", "main.c", 11, APP);
	add_frame(&p, 100, 0x401200, "save", "main.c", 22, APP);
	add_frame(&p, 100, 0x401300, "make", "main.c", 33, APP);
	add_frame(&p, 100, 0x401400, "xmalloc", "util.c", 10, APP);
	add_frame(&p, 100, 0x401500, "parse", "parse.c", 88, APP);
	add_frame(&p, 100, 0x401600, "emit", "emit.c", 9, APP);
	add_frame(&p, 100, 0x401900, "main", "main.c", 90, APP);
	add_frame(&p, 100, 0x7f0000002000, "puts", "ioputs.c", 40, LIBC);
	add_frame(&p, 100, 0x7f0000003000, "allocate_dtv", "dl-tls.c", 44, LIBC);
	add_frame(&p, 100, 0x7f0000004000, "pthread_create@@GLIBC_2.34", "pthread_create.c", 423,
		  LIBC);
	add_frame(&p, 100, 0x401800, "main", "main.c", 70, APP);
	/* 0x401700 has no symbol */
	add_sym(&p, 100, SYM_DATA, 0x601008, 0x601000, 64, "counter", NULL, 0, APP);
	add_sym(&p, 100, SYM_DATA, 0x7f0000200010, 0, 0, NULL, NULL, 0, LIBC);

	add_alloc(&p, 100, 10, 0x1000, 16, ALLOC_MALLOC, dup1, 3);
	add_alloc(&p, 100, 10, 0x2000, 16, ALLOC_MALLOC, dup2, 3);
	add_alloc(&p, 100, 10, 0x3000, 100, ALLOC_CALLOC, app, 2);
	add_alloc(&p, 100, 11, 0x3100, 300, ALLOC_CALLOC, app, 2);
	add_alloc(&p, 100, 10, 0x4000, 8, ALLOC_MALLOC, x1, 3);
	add_alloc(&p, 100, 10, 0x5000, 8, ALLOC_MALLOC, x2, 3);
	add_alloc(&p, 100, 10, 0x100000, 0x2000, ALLOC_MMAP, mp, 1);
	add_alloc(&p, 100, 10, 0x6000, 8, ALLOC_MALLOC, v1, 2);
	add_alloc(&p, 100, 10, 0x7000, 8, ALLOC_MALLOC, v2, 3);
	add_stack(&p, 100, 100, 5, 0x7ff000000000, 0x800000);
	add_stack(&p, 100, 101, 6, 0x7fe000000000, 0x10000);
	assert_int_equal(objmap_build(&m, &p), 0);

	assert_int_equal(objmap_find(m, 100, 0x1004, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@main.c:11 (load)");
	assert_int_equal(objmap_find(m, 100, 0x2004, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@main.c:22 (save)");
	assert_int_equal(objmap_find(m, 100, 0x3004, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@main.c:33 (make)");
	assert_int_equal(objmap_group(m, o.group)->blocks, 2);
	assert_int_equal(objmap_group(m, o.group)->bytes, 400);
	assert_int_equal(objmap_group(m, o.group)->max_size, 300);
	assert_int_equal(objmap_group(m, o.group)->alloc_kind, ALLOC_CALLOC);
	objmap_path_text(m, o.group, text, sizeof(text));
	assert_string_equal(text, "make (main.c:33) < main (main.c:90)");
	assert_int_equal(objmap_find(m, 100, 0x3104, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@main.c:33 (make)");
	assert_int_equal(objmap_find(m, 100, 0x4000, 20, &o), 0);
	/* xmalloc, the program's own allocation wrapper, names nothing */
	assert_string_equal(group_name(m, &o), "heap@parse.c:88 (parse)");
	assert_int_equal(objmap_find(m, 100, 0x5000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@emit.c:9 (emit)");
	assert_int_equal(objmap_find(m, 100, 0x101000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "mmap@0x401700");
	assert_int_equal(objmap_find(m, 100, 0x6000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@main.c:70 (main) via puts");
	assert_int_equal(objmap_find(m, 100, 0x7000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@main.c:70 (main) via pthread_create");
	assert_int_equal(objmap_find(m, 100, 0x7ff000001000, 20, &o), 0);
	assert_int_equal(o.kind, OBJ_STACK);
	assert_string_equal(group_name(m, &o), "stack@T0");
	assert_int_equal(objmap_find(m, 100, 0x7fe000000010, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "stack@T1");
	assert_int_equal(o.tid, 101);

	/* statics: any address inside the symbol; module data without one */
	expect_obj(m, 100, 0x601030, 20, OBJ_STATIC, 0x601000, 64);
	assert_int_equal(objmap_find(m, 100, 0x601030, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "counter");
	expect_none(m, 100, 0x601040, 20);
	assert_int_equal(objmap_find(m, 100, 0x7f0000200010, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "[libc.so.6]");

	for (size_t g = 0; g < objmap_ngroups(m); g++)
		heap += objmap_group(m, (uint32_t)g)->kind == OBJ_HEAP;
	assert_int_equal(heap, 7);
	objmap_free(m);
	profile_free(&p);
}

/* One path in two processes (a fork) keeps one name; another path with
 * that name in the parent makes all of them name their callers. */
static void test_names_processes(void **state)
{
	static const uint64_t a[] = { 0x401000, 0x401100 }, b[] = { 0x401000, 0x401200 };
	struct objmap *m;
	struct profile p;
	struct objmap_obj o;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1, 1, 0);
	add_proc(&p, 200, 100, 2, PROC_F_FORK);
	for (uint32_t pid = 100; pid <= 200; pid += 100) {
		add_frame(&p, pid, 0x401000, "work", "fe.c", 37, APP);
		add_frame(&p, pid, 0x401100, "main", "fe.c", 111, APP);
		add_frame(&p, pid, 0x401200, "main", "fe.c", 125, APP);
	}
	add_alloc(&p, 100, 10, 0x1000, 8, ALLOC_MALLOC, a, 2);
	add_alloc(&p, 200, 10, 0x1000, 8, ALLOC_MALLOC, a, 2);
	assert_int_equal(objmap_build(&m, &p), 0);
	assert_int_equal(objmap_find(m, 100, 0x1000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@fe.c:37 (work)");
	assert_int_equal(objmap_find(m, 200, 0x1000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@fe.c:37 (work)");
	objmap_free(m);

	add_alloc(&p, 100, 10, 0x2000, 8, ALLOC_MALLOC, b, 2);
	assert_int_equal(objmap_build(&m, &p), 0);
	assert_int_equal(objmap_find(m, 100, 0x1000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@fe.c:37 (work) < fe.c:111 (main)");
	assert_int_equal(objmap_find(m, 200, 0x1000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@fe.c:37 (work) < fe.c:111 (main)");
	assert_int_equal(objmap_find(m, 100, 0x2000, 20, &o), 0);
	assert_string_equal(group_name(m, &o), "heap@fe.c:37 (work) < fe.c:125 (main)");
	objmap_free(m);
	profile_free(&p);
}

static void test_fork_exec(void **state)
{
	static const uint64_t f[] = { 0x401010 };
	struct objmap *m;
	struct profile p;
	uint64_t id;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1, 1, 0);
	add_alloc(&p, 100, 10, 0x1000, 64, ALLOC_MALLOC, f, 1);   /* freed after the fork */
	add_free(&p, 100, 80, 0x1000, 0);
	add_proc(&p, 200, 100, 50, PROC_F_FORK);
	add_alloc(&p, 100, 55, 0x2000, 64, ALLOC_MALLOC, f, 1);   /* after the fork */
	add_alloc(&p, 200, 60, 0x3000, 64, ALLOC_MALLOC, f, 1);   /* the child's own */
	add_proc(&p, 200, 100, 70, 0);                            /* the child execs */
	add_alloc(&p, 100, 10, 0x9000, 64, ALLOC_MALLOC, f, 1);   /* the parent execs too */
	add_proc(&p, 100, 1, 90, 0);
	assert_int_equal(objmap_build(&m, &p), 0);

	id = expect_obj(m, 100, 0x1008, 60, OBJ_HEAP, 0x1000, 64);
	assert_int_equal(expect_obj(m, 200, 0x1008, 60, OBJ_HEAP, 0x1000, 64), id);
	assert_int_equal(expect_obj(m, 200, 0x1008, 65, OBJ_HEAP, 0x1000, 64), id);
	expect_none(m, 200, 0x2008, 60);      /* allocated by the parent later */
	expect_obj(m, 200, 0x3008, 65, OBJ_HEAP, 0x3000, 64);
	expect_none(m, 200, 0x3008, 75);      /* gone with the exec */
	expect_none(m, 200, 0x1008, 75);      /* and the inherited heap too */
	expect_obj(m, 100, 0x9008, 85, OBJ_HEAP, 0x9000, 64);
	expect_none(m, 100, 0x9008, 95);
	objmap_free(m);
	profile_free(&p);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 100k blocks over time, addresses reused; a million lookups. */
static void test_speed(void **state)
{
	static const uint64_t f[] = { 0x401010, 0x402020 };
	enum { NBLOCKS = 100000, SLOTS = 4096, LOOKUPS = 1000000 };
	struct objmap *m;
	struct profile p;
	uint64_t seed = 42, found = 0;
	double t0, build, look;

	(void)state;
	profile_init(&p);
	add_proc(&p, 100, 1, 1, 0);
	for (uint64_t i = 0; i < NBLOCKS; i++) {
		uint64_t addr = 0x10000000 + (i % SLOTS) * 256;

		add_alloc(&p, 100, 10 + i * 10, addr, 64 + (i % 3) * 64, ALLOC_MALLOC, f,
			  1 + (unsigned)(i % 2));
		if (i + SLOTS < NBLOCKS)
			add_free(&p, 100, 10 + (i + SLOTS) * 10 - 5, addr, 0);
	}
	t0 = now_s();
	assert_int_equal(objmap_build(&m, &p), 0);
	build = now_s() - t0;
	t0 = now_s();
	for (int i = 0; i < LOOKUPS; i++) {
		struct objmap_obj o;
		uint64_t slot, t;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		slot = (seed >> 33) % SLOTS;
		t = 10 + ((seed >> 13) % (NBLOCKS * 10ull));
		found += !objmap_find(m, 100, 0x10000000 + slot * 256 + 32, t, &o);
	}
	look = now_s() - t0;
	print_message("%d blocks: build %.0f ms; %d lookups %.0f ms, %.0f%% found (ASan build)\n",
		      NBLOCKS, build * 1e3, LOOKUPS, look * 1e3, 100.0 * (double)found / LOOKUPS);
	assert_true(found > LOOKUPS / 2);
	/* well under a second without sanitizers; ASan costs some 3x */
	assert_true(look < 3.0);
	objmap_free(m);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_neighbours),
		cmocka_unit_test(test_mmap_cut),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_names_processes),
		cmocka_unit_test(test_fork_exec),
		cmocka_unit_test(test_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
