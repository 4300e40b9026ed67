// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data objects, so the front end (lib/objmap.c) can name what a sampled
 * address belongs to: heap blocks (malloc and its relatives, interposed),
 * the anonymous mappings the program makes (mmap, munmap, mremap) and each
 * thread's stack, as REC_ALLOC and REC_FREE.
 *
 * The interposers forward to the next definition (libc's, or the allocator
 * the program brought) and record only when the agent runs with
 * AGENT_F_OBJECTS, in a thread it profiles, never for the agent's own
 * calls (their return address is in the agent) and never recursively
 * (obj_busy).  These functions are not signal handlers, but a handler may
 * interrupt them: the arena append they end in is lock-free.
 *
 * The program's heap is the program's: cdt must not move a block of it,
 * or fields that shared a cache line would not, and the other way round.
 * Nothing of the agent's comes from it, not even through libc: the
 * allocations of the one libc call that must make them
 * (pthread_getattr_np: fopen of /proc/self/maps for the first thread, a
 * CPU set for every thread) come from the agent's pool (obj_pool), a
 * static buffer; the next allocator is found without dlsym (next.c); the
 * unwinder is libgcc's, linked into the agent (no libgcc_s to load, which
 * a pthread_exit of the program would otherwise find loaded and not load
 * into its heap); a thread's state is in its slot, not in thread-local
 * storage, whose vector glibc allocates per thread from the heap.
 *
 * What a block costs -- the decision.  A tight malloc/free pair costs 5-9 ns
 * in glibc here; a clock_gettime 29 ns, a record in the shared arena about
 * as much again, and a call path from the unwinder (libgcc, .eh_frame)
 * 100 ns per frame.  Recording every block that way would make a
 * malloc-heavy program 20 times slower and flood the arena, so:
 *
 *  - Call paths (8 frames) are unwound once per call site and stack depth
 *    in each thread, and cached with where each return address sits on the
 *    stack.  A later malloc from the same site at the same stack address
 *    only compares those 7 saved return addresses with the cached ones: if
 *    all match, the path is the same.  Each path gets a number per process;
 *    the first record of a path carries its frames, later ones the number.
 *  - Small blocks matter for false sharing, so there is no size threshold.
 *    Instead each thread keeps its last 16 blocks in a nursery: a block
 *    freed while still there died young.  A call path whose blocks keep
 *    dying young (churn score, obj_site.churn) is deferred: its blocks are
 *    recorded only when they leave the nursery alive, with a coarse time
 *    (4.5 ns, one tick early at most), and their young deaths cost no
 *    record at all.  Every other block is recorded at once with the exact
 *    time, so long-lived data (what sampling can hit) is never held back.
 *    A path starts that way and is deferred once its young deaths outrun
 *    its survivors (2 each) by OBJ_CHURN.
 *  - Many live blocks at once (a program building its data) are a burst
 *    of records: the front end then drains every millisecond (lib/core/run.c).
 *
 * Measured here (KVM guest, best of 5, tests/workloads/objects; e2e/objects
 * prints them on every `make check`): a malloc(32)/free pair in a loop
 * costs 5.4 ns plain, 7.0 ns under cdt with --no-objects and 18 ns
 * with objects (a deferred path: the cached path check, the coarse clock,
 * the nursery; no record).  A block that lives costs about 110 ns more
 * (--keep: 30 -> 143 ns for malloc, later free): two exact clock reads and
 * two records.  An unwind (first call from a site at a stack depth in a
 * thread) about 1 us.  Finding the thread's slot without TLS (a
 * pthread_getspecific in each call) costs a few ns: best of 8 on a busy
 * day, a pair took 12.3 ns plain, 54.8 ns with the TLS block and 61.5 ns
 * with the lookup; a living block 281 ns either way.  What a SIGKILL can
 * lose is at most 16 deferred (churning) blocks per thread; a thread's
 * nursery is published when it exits, the exiting thread's at exit().
 * mmap and munmap are system calls anyway: always recorded at once.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

#include "lib/agent/agent.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

#define OBJ_DEPTH ALLOC_MAX_DEPTH
#define OBJ_SETS 32      /* call-path cache of a thread: sets x ways */
#define OBJ_WAYS 2
#define OBJ_NURSERY 16   /* a thread's most recent heap blocks */
#define OBJ_CHURN 4      /* a path's blocks are deferred from this score on */
#define OBJ_CHURN_MAX 32
#define OBJ_SKIP 8       /* the agent's own frames above the caller, at most */
/* The agent's pool: pthread_getattr_np's fopen, its line buffer growing to
 * the longest line of /proc/self/maps (a path up to PATH_MAX) and a CPU set. */
#define OBJ_POOL (64 * 1024)

/* One call path, cached per thread under (ra0, cfa). */
struct obj_site {
	uint64_t ra0;  /* return address into malloc's caller */
	uint64_t cfa;  /* the interposer's CFA: ra0 is saved at cfa - 8 */
	uint64_t frames[OBJ_DEPTH];
	int32_t slot[OBJ_DEPTH]; /* frames[i] is saved at cfa + slot[i] */
	uint32_t id;    /* path number in this process; 0: empty entry */
	uint32_t pid;   /* the process whose arena holds the frames; 0: none yet */
	uint32_t reach; /* bytes from cfa up that the check reads */
	uint8_t depth;
	uint8_t churn;  /* young deaths less survivals */
};

/* A recent heap block of the thread. */
struct obj_young {
	uint64_t addr;  /* 0: empty */
	uint64_t size, time;
	uint64_t tick;  /* the coarse clock when a deferred block was made */
	uint32_t site;
	uint8_t kind, published, set, way;
	volatile uint8_t hit; /* a sample of this thread landed in it */
};

/* A thread's heap-block state, made at its first block and kept with its
 * slot (agent_thread.obj) for the slot's next threads; the path cache
 * reads only in the thread's stack (agent_thread.stack_lo, stack_hi). */
struct obj_thread {
	struct agent_thread *t;      /* its slot */
	uint64_t last_ns;            /* the latest exact time this thread took */
	unsigned head;               /* next nursery slot */
	uint8_t mru[OBJ_SETS];
	struct obj_young young[OBJ_NURSERY];
	struct obj_site site[OBJ_SETS][OBJ_WAYS];
};

struct obj_real {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
};

static struct obj_real obj_real;
static atomic_int obj_state;   /* 0, 1 being published, 2 obj_real complete */
static atomic_int obj_on;      /* record (AGENT_F_OBJECTS, agent active) */
static atomic_int obj_exiting; /* exit() ran: nothing is deferred any more */
static atomic_uint obj_next_site = 1;
static uintptr_t obj_self_lo, obj_self_hi; /* the agent's own image */

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

/* ----------------------------------------------------------------- pool */

/*
 * The agent's own allocations, made by libc on its behalf between
 * obj_pool_enter and obj_pool_leave (agent_thread.obj_own): from this
 * buffer, one thread at a time.  Each block has its size before it (for
 * realloc); the buffer starts over once every block is freed.
 */
static unsigned char obj_pool[OBJ_POOL] __attribute__((aligned(64)));
static size_t obj_pool_used;
static atomic_uint obj_pool_live;
static atomic_flag obj_pool_lock = ATOMIC_FLAG_INIT;

static void *obj_pool_alloc(size_t n, size_t align)
{
	size_t at;

	if (align < 16)
		align = 16;
	if (n > OBJ_POOL || align > OBJ_POOL / 4 || (align & (align - 1)))
		goto out;
	at = (obj_pool_used + 16 + align - 1) & ~(align - 1);
	if (at > OBJ_POOL || OBJ_POOL - at < n)
		goto out;
	memcpy(obj_pool + at - sizeof(n), &n, sizeof(n));
	obj_pool_used = at + n;
	atomic_fetch_add(&obj_pool_live, 1);
	return obj_pool + at;
out:
	errno = ENOMEM;
	return NULL;
}

static int obj_pool_owns(const void *p)
{
	return (const unsigned char *)p >= obj_pool &&
	       (const unsigned char *)p < obj_pool + OBJ_POOL;
}

static void obj_pool_free(void *p)
{
	(void)p;
	atomic_fetch_sub(&obj_pool_live, 1);
}

static void *obj_pool_realloc(void *p, size_t n)
{
	size_t old;
	void *q;

	if (!p)
		return obj_pool_alloc(n, 0);
	memcpy(&old, (unsigned char *)p - sizeof(old), sizeof(old));
	q = obj_pool_alloc(n, 0);
	if (q) {
		memcpy(q, p, old < n ? old : n);
		obj_pool_free(p);
	}
	return q;
}

/* t's allocations come from the pool until obj_pool_leave. */
static void obj_pool_enter(struct agent_thread *t)
{
	while (atomic_flag_test_and_set_explicit(&obj_pool_lock, memory_order_acquire))
		sched_yield();
	t->obj_own = 1;
}

static void obj_pool_leave(struct agent_thread *t)
{
	t->obj_own = 0;
	if (!atomic_load(&obj_pool_live))
		obj_pool_used = 0;
	atomic_flag_clear_explicit(&obj_pool_lock, memory_order_release);
}

void objects_fork_child(void)
{
	/* Another thread held the pool: its blocks are gone with it. */
	obj_pool_used = 0;
	atomic_store(&obj_pool_live, 0);
	atomic_flag_clear(&obj_pool_lock);
}

/*
 * The next definitions.  Two threads may get here at once: each resolves
 * into its own copy and uses it; the first one to finish publishes.
 * Nobody waits, since the other might hold the loader lock the lookup needs.
 */
static const struct obj_real *obj_resolve(struct obj_real *r)
{
	int expect = 0;

#define OBJ_SYM(f) (*(void **)&r->f = agent_next(#f))
	OBJ_SYM(malloc);
	OBJ_SYM(free);
	OBJ_SYM(calloc);
	OBJ_SYM(realloc);
	OBJ_SYM(reallocarray);
	OBJ_SYM(posix_memalign);
	OBJ_SYM(aligned_alloc);
	OBJ_SYM(memalign);
	OBJ_SYM(valloc);
	OBJ_SYM(pvalloc);
	OBJ_SYM(mmap);
	OBJ_SYM(munmap);
	OBJ_SYM(mremap);
#undef OBJ_SYM
	if (atomic_compare_exchange_strong(&obj_state, &expect, 1)) {
		obj_real = *r;
		atomic_store_explicit(&obj_state, 2, memory_order_release);
	}
	return r;
}

/* r: the real functions; tmp: room to resolve them into on first use. */
#define OBJ_FNS(r, tmp) \
	((r) = atomic_load_explicit(&obj_state, memory_order_acquire) == 2 ? \
	       &obj_real : obj_resolve(&(tmp)))

/* The calling thread, when its allocations are being recorded or come
 * from the pool; else NULL. */
static struct agent_thread *obj_self(void)
{
	return atomic_load_explicit(&obj_on, memory_order_relaxed) ? agent_self() : NULL;
}

/* A block for the program from a call that returns to ra: recorded? */
static int obj_want(const struct agent_thread *t, uint64_t ra)
{
	return t && !t->obj_busy && (ra < obj_self_lo || ra >= obj_self_hi);
}

/* ---------------------------------------------------------------- time */

static uint64_t obj_exact(struct obj_thread *ts)
{
	uint64_t t = agent_now();

	if (ts)
		ts->last_ns = t;
	return t;
}

/* The coarse clock (4.5 ns, one tick a few ms), ns. */
static uint64_t obj_tick(void)
{
	struct timespec tp = { 0, 0 };

	(void)clock_gettime(CLOCK_MONOTONIC_COARSE, &tp); /* cannot fail; 0 is safe */
	return (uint64_t)tp.tv_sec * 1000000000ull + (uint64_t)tp.tv_nsec;
}

/* Deferred blocks: the coarse clock `tick`, never before what this thread
 * saw last, so a block reusing the address of one it freed starts after it. */
static uint64_t obj_coarse(const struct obj_thread *ts, uint64_t tick)
{
	return tick > ts->last_ns ? tick : ts->last_ns;
}

/* ------------------------------------------------------------- records */

/*
 * One REC_ALLOC of thread t.  `path`: its frames go into the record (a
 * path not yet defined in this process, or an uncached one with site 0);
 * otherwise the site number alone names the path.
 */
static int obj_emit_alloc(struct agent_thread *t, const struct obj_site *path, uint32_t site,
			  uint64_t addr, uint64_t size, uint64_t time, int kind, uint16_t flags)
{
	uint8_t depth = path ? path->depth : 0;
	uint32_t rsize = (uint32_t)(sizeof(struct rec_alloc) + depth * sizeof(uint64_t));
	struct rec_alloc *r = arena_reserve(&agent_g.arena, rsize, REC_ALLOC);

	if (!r) {
		t->st.dropped++;
		return -ENOSPC;
	}
	r->pid = (uint32_t)agent_g.pid;
	r->tid = (uint32_t)t->tid;
	r->time = time;
	r->addr = addr;
	r->size = size;
	r->site = site;
	r->kind = (uint8_t)kind;
	r->depth = depth;
	r->flags = flags;
	if (depth)
		memcpy(r->frames, path->frames, depth * sizeof(uint64_t));
	arena_commit(&agent_g.arena, r);
	return 0;
}

/* t: NULL for a thread the agent does not profile. */
static void obj_emit_free(struct agent_thread *t, uint64_t addr, uint64_t len, uint64_t time)
{
	struct rec_free r = { 0 };

	r.pid = (uint32_t)agent_g.pid;
	r.tid = t ? (uint32_t)t->tid : (uint32_t)gettid();
	r.time = time;
	r.addr = addr;
	r.len = len;
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_FREE) && t)
		t->st.dropped++;
}

/* A block from a cached path: its frames the first time in this process. */
static void obj_emit_site(struct agent_thread *t, struct obj_site *s, uint64_t addr,
			  uint64_t size, uint64_t time, int kind, uint16_t flags)
{
	int define = s->pid != (uint32_t)agent_g.pid;

	/* The definition is reserved before any reference of this thread: the
	 * consumer reads the arena in reservation order. */
	if (!obj_emit_alloc(t, define ? s : NULL, s->id, addr, size, time, kind, flags) && define)
		s->pid = (uint32_t)agent_g.pid;
}

/* ----------------------------------------------------------- call paths */

struct obj_walk {
	uint64_t ra0;
	int skipped, n;
	uint64_t ip[OBJ_DEPTH], cfa[OBJ_DEPTH];
};

static _Unwind_Reason_Code obj_walk_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct obj_walk *w = arg;
	uint64_t ip = _Unwind_GetIP(ctx);

	if (!w->n && ip != w->ra0) /* still in the agent */
		return ++w->skipped > OBJ_SKIP ? _URC_END_OF_STACK : _URC_NO_REASON;
	if (!ip)
		return _URC_END_OF_STACK;
	w->ip[w->n] = ip;
	w->cfa[w->n] = _Unwind_GetCFA(ctx);
	return ++w->n < OBJ_DEPTH ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/*
 * Unwind: the path from ra0, and where each of its return addresses is
 * saved (x86-64: just below the CFA of the frame that returns there).
 * libgcc's backtrace hands each IP with the CFA of the frame below it
 * (cfa[0] is ours), older unwinders with the CFA of its own frame: either
 * way every slot is checked against the stack before the path is cached.
 */
static void obj_site_fill(struct obj_site *s, uint64_t ra0, uint64_t cfa)
{
	struct obj_walk w = { .ra0 = ra0 };
	int below;

	/* A walk cut short still gives the frames it found. */
	(void)_Unwind_Backtrace(obj_walk_frame, &w);
	below = w.n && w.cfa[0] == cfa;
	s->ra0 = ra0;
	s->cfa = cfa;
	s->frames[0] = ra0;
	s->slot[0] = -8;
	s->depth = 1;
	s->reach = 0;
	for (int k = 1; k < w.n; k++) {
		uint64_t at = (below ? w.cfa[k] : w.cfa[k - 1]) - 8;
		int64_t off = (int64_t)(at - cfa);

		s->frames[k] = w.ip[k];
		s->depth = (uint8_t)(k + 1);
		if (s->reach == UINT32_MAX)
			continue;
		/* Another stack (a signal's), or not where a return address is
		 * kept: the path is right but cannot be recognized cheaply. */
		if (off < 0 || off > INT32_MAX - 8 || *(const uint64_t *)(uintptr_t)at != w.ip[k]) {
			s->reach = UINT32_MAX;
			continue;
		}
		s->slot[k] = (int32_t)off;
		if ((uint32_t)off + 8 > s->reach)
			s->reach = (uint32_t)off + 8;
	}
	s->id = atomic_fetch_add(&obj_next_site, 1);
	s->pid = 0;
	s->churn = 0;
}

/* Same site, same stack address: the same path if every saved return
 * address is still the one unwound then. */
static int obj_site_check(const struct obj_site *s)
{
	for (int k = 1; k < s->depth; k++)
		if (*(const uint64_t *)(uintptr_t)(s->cfa + (uint64_t)(int64_t)s->slot[k]) !=
		    s->frames[k])
			return 0;
	return 1;
}

/*
 * The cached path of this call, or `scratch` filled by unwinding when the
 * stack is not the thread's own (a signal stack, a coroutine): the cache
 * only reads stack memory known to stay mapped.
 */
static struct obj_site *obj_site_get(struct obj_thread *ts, uint64_t ra0, uint64_t cfa,
				     struct obj_site *scratch)
{
	unsigned set, way;
	struct obj_site *s;

	if (!ts || cfa < ts->t->stack_lo || cfa >= ts->t->stack_hi) {
		obj_site_fill(scratch, ra0, cfa);
		scratch->id = 0;
		return scratch;
	}
	set = (unsigned)(((ra0 ^ (cfa >> 3)) * 0x9e3779b97f4a7c15ull) >> 59) % OBJ_SETS;
	for (way = 0; way < OBJ_WAYS; way++) {
		s = &ts->site[set][way];
		if (s->id && s->ra0 == ra0 && s->cfa == cfa &&
		    cfa + s->reach <= ts->t->stack_hi && obj_site_check(s)) {
			ts->mru[set] = (uint8_t)way;
			return s;
		}
	}
	way = (ts->mru[set] + 1) % OBJ_WAYS;
	s = &ts->site[set][way];
	obj_site_fill(s, ra0, cfa);
	ts->mru[set] = (uint8_t)way;
	return s;
}

/* ------------------------------------------------------------- nursery */

static struct obj_site *obj_young_site(struct obj_thread *ts, const struct obj_young *y)
{
	struct obj_site *s = &ts->site[y->set][y->way];

	return s->id == y->site ? s : NULL;
}

/* The record of a deferred block, made late. */
static void obj_young_emit(struct obj_thread *ts, const struct obj_young *y)
{
	struct obj_site *s = obj_young_site(ts, y);

	if (s)
		obj_emit_site(ts->t, s, y->addr, y->size, y->time, y->kind, ALLOC_F_DEFERRED);
	else /* its path left the cache: the number alone, defined or not */
		obj_emit_alloc(ts->t, NULL, y->site, y->addr, y->size, y->time, y->kind,
			       ALLOC_F_DEFERRED);
}

/* A block leaves the nursery alive: record it if it was deferred. */
static void obj_young_retire(struct obj_thread *ts, struct obj_young *y)
{
	struct obj_site *s = obj_young_site(ts, y);

	if (s)
		s->churn = s->churn > 2 ? (uint8_t)(s->churn - 2) : 0;
	if (!y->published)
		obj_young_emit(ts, y);
}

static void obj_young_flush(struct obj_thread *ts)
{
	for (unsigned i = 0; i < OBJ_NURSERY; i++) {
		struct obj_young *y = &ts->young[(ts->head + i) % OBJ_NURSERY];

		if (y->addr)
			obj_young_retire(ts, y);
		y->addr = 0;
	}
}

void objects_on_sample(struct agent_thread *t, uint64_t addr)
{
	struct obj_thread *ts = t->obj;

	if (!ts || !addr)
		return;
	for (unsigned i = 0; i < OBJ_NURSERY; i++) {
		struct obj_young *y = &ts->young[i];

		if (!y->published && addr >= y->addr && addr - y->addr < y->size)
			y->hit = 1;
	}
}

static void obj_young_push(struct obj_thread *ts, const struct obj_site *s, unsigned set,
			   unsigned way, uint64_t addr, uint64_t size, uint64_t time,
			   uint64_t tick, int kind, int published)
{
	struct obj_young *y = &ts->young[ts->head];

	if (y->addr)
		obj_young_retire(ts, y);
	y->addr = addr;
	y->size = size;
	y->time = time;
	y->tick = tick;
	y->site = s->id;
	y->kind = (uint8_t)kind;
	y->published = (uint8_t)published;
	y->hit = 0;
	y->set = (uint8_t)set;
	y->way = (uint8_t)way;
	ts->head = (ts->head + 1) % OBJ_NURSERY;
}

/* ------------------------------------------------------- thread state */

/* The calling thread's stack.  pthread_getattr_np allocates (the first
 * thread's reads /proc/self/maps with fopen, every thread's copies its CPU
 * set): from the agent's pool. */
static void obj_stack_range(struct agent_thread *t)
{
	pthread_attr_t a;
	void *addr = NULL;
	size_t size = 0;

	t->stack_lo = t->stack_hi = 0;
	obj_pool_enter(t);
	if (!pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &addr, &size)) {
			t->stack_lo = (uint64_t)(uintptr_t)addr;
			t->stack_hi = t->stack_lo + size;
		}
		(void)pthread_attr_destroy(&a); /* glibc's cannot fail */
	}
	obj_pool_leave(t);
}

/* t's state, made at its first block (a slot whose threads never allocate
 * costs no page). */
static struct obj_thread *obj_thread_get(struct agent_thread *t, const struct obj_real *r)
{
	struct obj_thread *ts = t->obj;

	if (ts)
		return ts;
	ts = r->mmap(NULL, sizeof(*ts), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (ts == MAP_FAILED)
		return NULL;
	ts->t = t;
	t->obj = ts;
	return ts;
}

void objects_thread_stop(struct agent_thread *t)
{
	struct obj_thread *ts = t->obj;

	if (!ts)
		return;
	t->obj_busy++;
	obj_young_flush(ts);
	/* Clean for the slot's next thread. */
	memset(ts, 0, sizeof(*ts));
	ts->t = t;
	t->obj_busy--;
}

void objects_exit(void)
{
	struct agent_thread *t = agent_self();

	if (!atomic_load(&obj_on))
		return;
	atomic_store(&obj_exiting, 1);
	if (t && t->obj) {
		t->obj_busy++;
		obj_young_flush(t->obj);
		t->obj_busy--;
	}
}

/* ------------------------------------------------------------- hooks */

/* A new block of t from the call that returns to ra0 (interposer CFA cfa). */
static void obj_note(struct agent_thread *t, const struct obj_real *r, void *p, uint64_t size,
		     int kind, uint64_t ra0, uint64_t cfa)
{
	struct obj_site scratch, *s;
	struct obj_thread *ts;
	unsigned set, way;

	t->obj_busy++;
	t->quiet++; /* cdt's bookkeeping: its samples are not the program's */
	ts = obj_thread_get(t, r);
	s = obj_site_get(ts, ra0, cfa, &scratch);
	if (s == &scratch) {
		obj_emit_alloc(t, s, 0, (uint64_t)(uintptr_t)p, size, obj_exact(ts), kind, 0);
		goto out;
	}
	set = (unsigned)((s - &ts->site[0][0]) / OBJ_WAYS);
	way = (unsigned)((s - &ts->site[0][0]) % OBJ_WAYS);
	if (kind == ALLOC_MMAP || s->churn < OBJ_CHURN || atomic_load(&obj_exiting)) {
		uint64_t now = obj_exact(ts);

		obj_emit_site(t, s, (uint64_t)(uintptr_t)p, size, now, kind, 0);
		if (kind != ALLOC_MMAP)
			obj_young_push(ts, s, set, way, (uint64_t)(uintptr_t)p, size, now, 0,
				       kind, 1);
	} else {
		uint64_t tick = obj_tick();

		obj_young_push(ts, s, set, way, (uint64_t)(uintptr_t)p, size,
			       obj_coarse(ts, tick), tick, kind, 0);
	}
out:
	t->quiet--;
	t->obj_busy--;
}

/* Block p ends (free, or the old block of a realloc: `death` 0); t: NULL
 * for a thread the agent does not profile. */
static void obj_forget(struct agent_thread *t, void *p, int death)
{
	struct obj_thread *ts = t ? t->obj : NULL;
	uint64_t addr = (uint64_t)(uintptr_t)p;

	if (t) {
		t->obj_busy++;
		t->quiet++;
	}
	if (ts) {
		for (unsigned i = 1; i <= OBJ_NURSERY; i++) {
			struct obj_young *y = &ts->young[(ts->head + OBJ_NURSERY - i) % OBJ_NURSERY];
			struct obj_site *s;

			if (y->addr != addr)
				continue;
			if (death && (s = obj_young_site(ts, y)) && s->churn < OBJ_CHURN_MAX)
				s->churn++;
			/*
			 * A deferred block that dies young costs no record,
			 * unless a sample may name it: one of this thread's
			 * samples landed in it, or it lived across a tick of
			 * the coarse clock (a sample period is about one), so
			 * that communication on a temporary of every call
			 * (LULESH's) is not left without an object.
			 */
			if (!y->published && (y->hit || obj_tick() != y->tick)) {
				obj_young_emit(ts, y);
				y->published = 1;
			}
			y->addr = 0;
			if (y->published)
				obj_emit_free(t, addr, 0, obj_exact(ts));
			goto out;
		}
	}
	obj_emit_free(t, addr, 0, obj_exact(ts));
out:
	if (t) {
		t->quiet--;
		t->obj_busy--;
	}
}

/* A block of the program's ends, freed by a call that returns to ra: recorded? */
static int obj_want_free(const struct agent_thread *t, uint64_t ra)
{
	return atomic_load_explicit(&obj_on, memory_order_relaxed) && (!t || !t->obj_busy) &&
	       (ra < obj_self_lo || ra >= obj_self_hi);
}

static void obj_self_range(void)
{
	const ElfW(Ehdr) *eh = &__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	uintptr_t lo = UINTPTR_MAX, hi = 0, base = 0;

	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (!ph[i].p_offset)
			base = (uintptr_t)eh - ph[i].p_vaddr;
		if (ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	if (hi > lo) {
		obj_self_lo = base + lo;
		obj_self_hi = base + hi;
	}
}

static _Unwind_Reason_Code obj_warm_frame(struct _Unwind_Context *ctx, void *arg)
{
	(void)ctx;
	(void)arg;
	return _URC_END_OF_STACK;
}

/* Once per process image, at agent start (not in a handler), in thread t. */
static int objects_setup(struct agent_thread *t)
{
	static int done;
	struct obj_real tmp;
	const struct obj_real *r;

	if (done)
		return atomic_load(&obj_on);
	done = 1;
	if (!agent_g.active || !(agent_g.cfg.flags & AGENT_F_OBJECTS))
		return 0;
	OBJ_FNS(r, tmp);
	if (!r->malloc || !r->free || !r->calloc || !r->realloc || !r->mmap || !r->munmap) {
		agent_error(ENOSYS, "agent: the allocator's functions cannot be found; "
				    "heap objects are not recorded");
		return 0;
	}
	obj_self_range();
	/* The unwinder's first call sets itself up: here, not in malloc. */
	t->obj_busy++;
	(void)_Unwind_Backtrace(obj_warm_frame, NULL);
	t->obj_busy--;
	atomic_store(&obj_on, 1);
	return 1;
}

void objects_thread_start(struct agent_thread *t)
{
	struct rec_alloc a = { 0 };

	if (!objects_setup(t))
		return;
	obj_stack_range(t);
	if (t->obj) /* a fork child's first thread goes on with its blocks */
		t->obj->t = t;
	if (t->stack_hi <= t->stack_lo)
		return;
	a.pid = (uint32_t)agent_g.pid;
	a.tid = (uint32_t)t->tid;
	a.time = obj_exact(t->obj);
	a.addr = t->stack_lo;
	a.size = t->stack_hi - t->stack_lo;
	a.kind = ALLOC_STACK;
	if (arena_write(&agent_g.arena, &a, sizeof(a), REC_ALLOC))
		t->st.dropped++;
}

/* ---------------------------------------------------------- interposers */

#define OBJ_RA() ((uint64_t)(uintptr_t)__builtin_return_address(0))
#define OBJ_CFA() ((uint64_t)(uintptr_t)__builtin_frame_address(0) + 16)

/* The agent's own calls (obj_pool_enter): t, when they are being made. */
static int obj_own(const struct agent_thread *t)
{
	return t && t->obj_own;
}

AGENT_API void *malloc(size_t n)
{
	struct agent_thread *t = obj_self();
	struct obj_real tmp;
	const struct obj_real *r;
	void *p;

	if (obj_own(t))
		return obj_pool_alloc(n, 0);
	OBJ_FNS(r, tmp);
	if (!r->malloc) {
		errno = ENOMEM;
		return NULL;
	}
	p = r->malloc(n);
	if (p && obj_want(t, OBJ_RA()))
		obj_note(t, r, p, n, ALLOC_MALLOC, OBJ_RA(), OBJ_CFA());
	return p;
}

AGENT_API void *calloc(size_t n, size_t size)
{
	struct agent_thread *t = obj_self();
	struct obj_real tmp;
	const struct obj_real *r;
	void *p;

	if (obj_own(t)) {
		if (size && n > SIZE_MAX / size) {
			errno = ENOMEM;
			return NULL;
		}
		p = obj_pool_alloc(n * size, 0);
		return p ? memset(p, 0, n * size) : NULL;
	}
	OBJ_FNS(r, tmp);
	if (!r->calloc) {
		errno = ENOMEM;
		return NULL;
	}
	p = r->calloc(n, size);
	if (p && obj_want(t, OBJ_RA()))
		obj_note(t, r, p, (uint64_t)n * size, ALLOC_CALLOC, OBJ_RA(), OBJ_CFA());
	return p;
}

AGENT_API void free(void *p)
{
	struct agent_thread *t;
	struct obj_real tmp;
	const struct obj_real *r;

	if (!p)
		return;
	if (obj_pool_owns(p)) {
		obj_pool_free(p);
		return;
	}
	t = obj_self();
	OBJ_FNS(r, tmp);
	if (obj_want_free(t, OBJ_RA()))
		obj_forget(t, p, 1);
	if (r->free)
		r->free(p);
}

/* A block of the pool outside the calls that made it (none is known to
 * outlive them) moves to the program's heap. */
static void *obj_pool_move(const struct obj_real *r, void *p, size_t n)
{
	size_t old;
	void *q;

	memcpy(&old, (unsigned char *)p - sizeof(old), sizeof(old));
	q = r->malloc ? r->malloc(n ? n : 1) : NULL;
	if (q) {
		memcpy(q, p, old < n ? old : n);
		obj_pool_free(p);
	}
	return q;
}

AGENT_API void *realloc(void *p, size_t n)
{
	struct agent_thread *t = obj_self();
	struct obj_real tmp;
	const struct obj_real *r;
	int want;
	void *q;

	if (obj_own(t) && (!p || obj_pool_owns(p)))
		return obj_pool_realloc(p, n);
	OBJ_FNS(r, tmp);
	if (p && obj_pool_owns(p))
		return obj_pool_move(r, p, n);
	if (!r->realloc) {
		errno = ENOMEM;
		return NULL;
	}
	want = obj_want(t, OBJ_RA());
	q = r->realloc(p, n);
	/* p is gone when a block came back, or when n was 0 (glibc frees). */
	if (want && p && (q || !n))
		obj_forget(t, p, 0);
	if (want && q)
		obj_note(t, r, q, n, ALLOC_REALLOC, OBJ_RA(), OBJ_CFA());
	return q;
}

AGENT_API void *reallocarray(void *p, size_t n, size_t size)
{
	struct agent_thread *t = obj_self();
	struct obj_real tmp;
	const struct obj_real *r;
	int want;
	void *q;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	if (obj_own(t) || (p && obj_pool_owns(p)))
		return realloc(p, n * size);
	OBJ_FNS(r, tmp);
	if (!r->reallocarray) {
		errno = ENOMEM;
		return NULL;
	}
	want = obj_want(t, OBJ_RA());
	q = r->reallocarray(p, n, size);
	if (want && p && (q || !n || !size))
		obj_forget(t, p, 0);
	if (want && q)
		obj_note(t, r, q, (uint64_t)n * size, ALLOC_REALLOC, OBJ_RA(), OBJ_CFA());
	return q;
}

AGENT_API int posix_memalign(void **out, size_t align, size_t n)
{
	struct agent_thread *t = obj_self();
	struct obj_real tmp;
	const struct obj_real *r;
	int err;

	if (obj_own(t))
		return (*out = obj_pool_alloc(n, align)) ? 0 : ENOMEM;
	OBJ_FNS(r, tmp);
	if (!r->posix_memalign)
		return ENOMEM;
	err = r->posix_memalign(out, align, n);
	if (!err && *out && obj_want(t, OBJ_RA()))
		obj_note(t, r, *out, n, ALLOC_MEMALIGN, OBJ_RA(), OBJ_CFA());
	return err;
}

/* aligned_alloc, memalign, valloc, pvalloc: one shape. */
#define OBJ_ALIGNED(name, params, args, align, size)                                \
	AGENT_API void *name params                                                 \
	{                                                                           \
		struct agent_thread *t = obj_self();                                \
		struct obj_real tmp;                                                \
		const struct obj_real *r;                                           \
		void *p;                                                            \
                                                                                    \
		if (obj_own(t))                                                     \
			return obj_pool_alloc(size, align);                         \
		OBJ_FNS(r, tmp);                                                    \
		if (!r->name) {                                                     \
			errno = ENOMEM;                                             \
			return NULL;                                                \
		}                                                                   \
		p = r->name args;                                                   \
		if (p && obj_want(t, OBJ_RA()))                                     \
			obj_note(t, r, p, size, ALLOC_MEMALIGN, OBJ_RA(), OBJ_CFA()); \
		return p;                                                           \
	}

OBJ_ALIGNED(aligned_alloc, (size_t align, size_t n), (align, n), align, n)
OBJ_ALIGNED(memalign, (size_t align, size_t n), (align, n), align, n)
OBJ_ALIGNED(valloc, (size_t n), (n), (size_t)getpagesize(), n)
OBJ_ALIGNED(pvalloc, (size_t n), (n), (size_t)getpagesize(), n)

static void *obj_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off,
		      uint64_t ra, uint64_t cfa)
{
	struct obj_real tmp;
	const struct obj_real *r;
	void *p;

	OBJ_FNS(r, tmp);
	if (!r->mmap) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	p = r->mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS)) {
		struct agent_thread *t = obj_self();

		if (obj_want(t, ra))
			obj_note(t, r, p, len, ALLOC_MMAP, ra, cfa);
	}
	return p;
}

AGENT_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return obj_mmap(addr, len, prot, flags, fd, off, OBJ_RA(), OBJ_CFA());
}

AGENT_API void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return obj_mmap(addr, len, prot, flags, fd, off, OBJ_RA(), OBJ_CFA());
}

/* A mapping of the program's ends at time `when`. */
static void obj_unmapped(struct agent_thread *t, void *addr, size_t len, uint64_t when)
{
	if (t) {
		t->obj_busy++;
		t->quiet++;
	}
	obj_emit_free(t, (uint64_t)(uintptr_t)addr, len, when);
	if (t) {
		t->quiet--;
		t->obj_busy--;
	}
}

AGENT_API int munmap(void *addr, size_t len)
{
	struct agent_thread *t = obj_self();
	struct obj_real tmp;
	const struct obj_real *r;
	uint64_t when = 0;
	int want, ret;

	OBJ_FNS(r, tmp);
	if (!r->munmap) {
		errno = ENOSYS;
		return -1;
	}
	want = obj_want_free(t, OBJ_RA());
	if (want) /* before: a new mapping at this address starts after it */
		when = agent_now();
	ret = r->munmap(addr, len);
	if (!ret && want)
		obj_unmapped(t, addr, len, when);
	return ret;
}

AGENT_API void *mremap(void *old, size_t oldlen, size_t newlen, int flags, ...)
{
	struct agent_thread *t = obj_self();
	struct obj_real tmp;
	const struct obj_real *r;
	void *want_addr = NULL, *p;
	uint64_t when = 0;
	int want;

	if (flags & MREMAP_FIXED) {
		va_list ap;

		va_start(ap, flags);
		want_addr = va_arg(ap, void *);
		va_end(ap);
	}
	OBJ_FNS(r, tmp);
	if (!r->mremap) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	want = obj_want_free(t, OBJ_RA());
	if (want)
		when = agent_now();
	p = r->mremap(old, oldlen, newlen, flags, want_addr);
	if (p != MAP_FAILED && want) {
		if (!(flags & MREMAP_DONTUNMAP))
			obj_unmapped(t, old, oldlen, when);
		if (t)
			obj_note(t, r, p, newlen, ALLOC_MMAP, OBJ_RA(), OBJ_CFA());
	}
	return p;
}
