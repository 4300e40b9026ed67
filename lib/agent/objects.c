// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data objects, so the front end (lib/objmap.c) can name what a sampled
 * address belongs to: heap blocks (malloc and its relatives, interposed),
 * the anonymous mappings the program makes (mmap, munmap, mremap) and each
 * thread's stack, as REC_ALLOC and REC_FREE.
 *
 * The interposers forward to the next definition (libc's, or the allocator
 * the program brought) and record only when the agent runs with
 * AGENT_F_OBJECTS, never for the agent's own calls (their return address
 * is in the agent) and never recursively (obj_busy: the unwinder,
 * pthread_getattr_np and dlsym may allocate).  dlsym may call calloc
 * before the real one is known: those blocks come from a static buffer
 * and are never freed.  These functions are not signal handlers, but a
 * handler may interrupt them: the arena append they end in is lock-free.
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
 * thread) about 1 us.  What a SIGKILL can lose is at most 16 deferred
 * (churning) blocks per thread; a thread's nursery is published when it
 * exits, the exiting thread's at exit().  mmap and munmap are system
 * calls anyway: always recorded at once.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
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
#define OBJ_BOOT 16384   /* static heap for dlsym's calloc */

#define IE __attribute__((tls_model("initial-exec")))

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

struct obj_thread {
	uint64_t stack_lo, stack_hi; /* the path cache reads only in here */
	uint64_t last_ns;            /* the latest exact time this thread took */
	uint32_t tid;                /* gettid() is a system call */
	int nodefer;                 /* no exit hook for the nursery: record all at once */
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
static pthread_key_t obj_key;

static unsigned char obj_boot[OBJ_BOOT] __attribute__((aligned(16)));
static atomic_size_t obj_boot_used;

static __thread struct obj_thread *obj_ts IE;
static __thread int obj_busy IE;
static __thread int obj_resolving IE;
/* From objects_thread_start, for the state made at the first malloc. */
static __thread uint64_t obj_stack_lo IE, obj_stack_hi IE;

#define OBJ_DEAD ((struct obj_thread *)1) /* the thread's state is gone */

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

/* ------------------------------------------------------------ bootstrap */

static void *obj_boot_alloc(size_t n)
{
	size_t need = 16 + ((n + 15) & ~(size_t)15), off;

	if (n > OBJ_BOOT)
		goto out;
	off = atomic_fetch_add(&obj_boot_used, need);
	if (off + need > OBJ_BOOT)
		goto out;
	/* The size goes before the block, for realloc; the rest is still zero. */
	memcpy(obj_boot + off, &n, sizeof(n));
	return obj_boot + off + 16;
out:
	errno = ENOMEM;
	return NULL;
}

static int obj_boot_owns(const void *p)
{
	return (const unsigned char *)p >= obj_boot &&
	       (const unsigned char *)p < obj_boot + OBJ_BOOT;
}

/*
 * The next definitions.  Two threads may get here at once: each resolves
 * into its own copy and uses it; the first one to finish publishes.
 * Nobody waits, since the other might hold the loader lock dlsym needs.
 */
static const struct obj_real *obj_resolve(struct obj_real *r)
{
	int expect = 0;

	obj_resolving++;
#define OBJ_SYM(f) (*(void **)&r->f = dlsym(RTLD_NEXT, #f))
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
	obj_resolving--;
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

static int obj_want(uint64_t ra)
{
	return atomic_load_explicit(&obj_on, memory_order_relaxed) && !obj_busy &&
	       (ra < obj_self_lo || ra >= obj_self_hi);
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

static uint32_t obj_tid(void)
{
	struct obj_thread *ts = obj_ts;

	return ts && ts != OBJ_DEAD ? ts->tid : (uint32_t)gettid();
}

static void obj_dropped(void)
{
	if (agent_self)
		agent_self->st.dropped++;
}

/*
 * One REC_ALLOC.  `path`: its frames go into the record (a path not yet
 * defined in this process, or an uncached one with site 0); otherwise the
 * site number alone names the path.
 */
static int obj_emit_alloc(const struct obj_site *path, uint32_t site, uint64_t addr,
			  uint64_t size, uint64_t time, int kind, uint16_t flags)
{
	uint8_t depth = path ? path->depth : 0;
	uint32_t rsize = (uint32_t)(sizeof(struct rec_alloc) + depth * sizeof(uint64_t));
	struct rec_alloc *r = arena_reserve(&agent_g.arena, rsize, REC_ALLOC);

	if (!r) {
		obj_dropped();
		return -ENOSPC;
	}
	r->pid = (uint32_t)agent_g.pid;
	r->tid = obj_tid();
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

static void obj_emit_free(uint64_t addr, uint64_t len, uint64_t time)
{
	struct rec_free r = { 0 };

	r.pid = (uint32_t)agent_g.pid;
	r.tid = obj_tid();
	r.time = time;
	r.addr = addr;
	r.len = len;
	if (arena_write(&agent_g.arena, &r, sizeof(r), REC_FREE))
		obj_dropped();
}

/* A block from a cached path: its frames the first time in this process. */
static void obj_emit_site(struct obj_site *s, uint64_t addr, uint64_t size, uint64_t time,
			  int kind, uint16_t flags)
{
	int define = s->pid != (uint32_t)agent_g.pid;

	/* The definition is reserved before any reference of this thread: the
	 * consumer reads the arena in reservation order. */
	if (!obj_emit_alloc(define ? s : NULL, s->id, addr, size, time, kind, flags) && define)
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

	if (!ts || cfa < ts->stack_lo || cfa >= ts->stack_hi) {
		obj_site_fill(scratch, ra0, cfa);
		scratch->id = 0;
		return scratch;
	}
	set = (unsigned)(((ra0 ^ (cfa >> 3)) * 0x9e3779b97f4a7c15ull) >> 59) % OBJ_SETS;
	for (way = 0; way < OBJ_WAYS; way++) {
		s = &ts->site[set][way];
		if (s->id && s->ra0 == ra0 && s->cfa == cfa &&
		    cfa + s->reach <= ts->stack_hi && obj_site_check(s)) {
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
		obj_emit_site(s, y->addr, y->size, y->time, y->kind, ALLOC_F_DEFERRED);
	else /* its path left the cache: the number alone, defined or not */
		obj_emit_alloc(NULL, y->site, y->addr, y->size, y->time, y->kind,
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

void objects_on_sample(uint64_t addr)
{
	struct obj_thread *ts = obj_ts;

	if (!ts || ts == OBJ_DEAD || !addr)
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

static void obj_stack_range(uint64_t *lo, uint64_t *hi)
{
	pthread_attr_t a;
	void *addr = NULL;
	size_t size = 0;

	*lo = *hi = 0;
	if (pthread_getattr_np(pthread_self(), &a))
		return;
	if (!pthread_attr_getstack(&a, &addr, &size)) {
		*lo = (uint64_t)(uintptr_t)addr;
		*hi = *lo + size;
	}
	(void)pthread_attr_destroy(&a); /* glibc's cannot fail */
}

/*
 * This thread's state, made at its first allocation (a thread that never
 * allocates costs no page).  Only objects_thread_start asks for the stack
 * range: pthread_getattr_np takes the thread's lock and calls realloc
 * under it, so it must not run inside an interposer.
 */
static struct obj_thread *obj_thread_get(const struct obj_real *r)
{
	struct obj_thread *ts = obj_ts;

	if (ts)
		return ts == OBJ_DEAD ? NULL : ts;
	ts = r->mmap(NULL, sizeof(*ts), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (ts == MAP_FAILED) {
		obj_ts = OBJ_DEAD;
		return NULL;
	}
	ts->tid = (uint32_t)gettid();
	ts->stack_lo = obj_stack_lo;
	ts->stack_hi = obj_stack_hi;
	obj_ts = ts;
	/* Thread exit publishes the nursery (obj_thread_end). */
	ts->nodefer = pthread_setspecific(obj_key, ts) != 0;
	return ts;
}

static void obj_thread_end(void *arg)
{
	struct obj_thread *ts = arg;

	obj_busy++;
	obj_young_flush(ts);
	obj_ts = OBJ_DEAD;
	(void)obj_real.munmap(ts, sizeof(*ts)); /* nothing to do if it fails */
	obj_busy--;
}

static void obj_exit(void)
{
	struct obj_thread *ts = obj_ts;

	obj_busy++;
	atomic_store(&obj_exiting, 1);
	if (ts && ts != OBJ_DEAD)
		obj_young_flush(ts);
	obj_busy--;
}

/* ------------------------------------------------------------- hooks */

/* A new block from the call that returns to ra0 (interposer CFA cfa). */
static void obj_note(const struct obj_real *r, void *p, uint64_t size, int kind, uint64_t ra0,
		     uint64_t cfa)
{
	struct obj_site scratch, *s;
	struct obj_thread *ts;
	unsigned set, way;

	obj_busy++;
	agent_quiet++; /* cdt's bookkeeping: its samples are not the program's */
	ts = obj_thread_get(r);
	s = obj_site_get(ts, ra0, cfa, &scratch);
	if (s == &scratch) {
		obj_emit_alloc(s, 0, (uint64_t)(uintptr_t)p, size, obj_exact(ts), kind, 0);
		goto out;
	}
	set = (unsigned)((s - &ts->site[0][0]) / OBJ_WAYS);
	way = (unsigned)((s - &ts->site[0][0]) % OBJ_WAYS);
	if (kind == ALLOC_MMAP || s->churn < OBJ_CHURN || ts->nodefer ||
	    atomic_load(&obj_exiting)) {
		uint64_t t = obj_exact(ts);

		obj_emit_site(s, (uint64_t)(uintptr_t)p, size, t, kind, 0);
		if (kind != ALLOC_MMAP)
			obj_young_push(ts, s, set, way, (uint64_t)(uintptr_t)p, size, t, 0, kind,
				       1);
	} else {
		uint64_t tick = obj_tick();

		obj_young_push(ts, s, set, way, (uint64_t)(uintptr_t)p, size,
			       obj_coarse(ts, tick), tick, kind, 0);
	}
out:
	agent_quiet--;
	obj_busy--;
}

/* Block p ends (free, or the old block of a realloc: `death` 0). */
static void obj_forget(void *p, int death)
{
	struct obj_thread *ts = obj_ts;
	uint64_t addr = (uint64_t)(uintptr_t)p;

	obj_busy++;
	agent_quiet++;
	if (ts && ts != OBJ_DEAD) {
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
				obj_emit_free(addr, 0, obj_exact(ts));
			goto out;
		}
	}
	obj_emit_free(addr, 0, obj_exact(ts && ts != OBJ_DEAD ? ts : NULL));
out:
	agent_quiet--;
	obj_busy--;
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

/* Once per process image, at agent start (not in a handler). */
static int objects_setup(void)
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
	if (pthread_key_create(&obj_key, obj_thread_end)) {
		agent_error(EAGAIN, "agent: no thread-specific key left; heap objects are "
				    "not recorded");
		return 0;
	}
	/* The unwinder's first call may set itself up: here, not in malloc. */
	obj_busy++;
	(void)_Unwind_Backtrace(obj_warm_frame, NULL);
	obj_busy--;
	if (atexit(obj_exit))
		agent_error(ENOMEM, "agent: no exit hook; short-lived heap blocks of the last "
				    "thread may be missing");
	atomic_store(&obj_on, 1);
	return 1;
}

void objects_thread_start(struct agent_thread *t)
{
	struct obj_thread *ts = obj_ts;
	uint64_t lo, hi;

	if (!objects_setup())
		return;
	obj_busy++;
	obj_stack_range(&lo, &hi);
	obj_stack_lo = lo;
	obj_stack_hi = hi;
	if (ts && ts != OBJ_DEAD) { /* made already: a fork child's, or by an early malloc */
		ts->stack_lo = lo;
		ts->stack_hi = hi;
		ts->tid = (uint32_t)t->tid;
	} else {
		ts = NULL;
	}
	if (hi > lo) {
		struct rec_alloc a = { 0 };

		a.pid = (uint32_t)agent_g.pid;
		a.tid = (uint32_t)t->tid;
		a.time = obj_exact(ts);
		a.addr = lo;
		a.size = hi - lo;
		a.kind = ALLOC_STACK;
		if (arena_write(&agent_g.arena, &a, sizeof(a), REC_ALLOC))
			t->st.dropped++;
	}
	obj_busy--;
}

/* ---------------------------------------------------------- interposers */

#define OBJ_RA() ((uint64_t)(uintptr_t)__builtin_return_address(0))
#define OBJ_CFA() ((uint64_t)(uintptr_t)__builtin_frame_address(0) + 16)

AGENT_API void *malloc(size_t n)
{
	struct obj_real tmp;
	const struct obj_real *r;
	void *p;

	if (obj_resolving)
		return obj_boot_alloc(n);
	OBJ_FNS(r, tmp);
	if (!r->malloc) {
		errno = ENOMEM;
		return NULL;
	}
	p = r->malloc(n);
	if (p && obj_want(OBJ_RA()))
		obj_note(r, p, n, ALLOC_MALLOC, OBJ_RA(), OBJ_CFA());
	return p;
}

AGENT_API void *calloc(size_t n, size_t size)
{
	struct obj_real tmp;
	const struct obj_real *r;
	void *p;

	if (obj_resolving) {
		if (size && n > SIZE_MAX / size) {
			errno = ENOMEM;
			return NULL;
		}
		return obj_boot_alloc(n * size); /* never handed out before: zero */
	}
	OBJ_FNS(r, tmp);
	if (!r->calloc) {
		errno = ENOMEM;
		return NULL;
	}
	p = r->calloc(n, size);
	if (p && obj_want(OBJ_RA()))
		obj_note(r, p, (uint64_t)n * size, ALLOC_CALLOC, OBJ_RA(), OBJ_CFA());
	return p;
}

AGENT_API void free(void *p)
{
	struct obj_real tmp;
	const struct obj_real *r;

	if (!p || obj_boot_owns(p))
		return;
	if (obj_resolving)
		return; /* nothing to free it with yet: keep it */
	OBJ_FNS(r, tmp);
	if (obj_want(OBJ_RA()))
		obj_forget(p, 1);
	if (r->free)
		r->free(p);
}

/* A block from the static buffer moves to the real heap. */
static void *obj_boot_move(const struct obj_real *r, void *p, size_t n)
{
	size_t old;
	void *q;

	memcpy(&old, (unsigned char *)p - 16, sizeof(old));
	q = r->malloc ? r->malloc(n ? n : 1) : NULL;
	if (q)
		memcpy(q, p, old < n ? old : n);
	return q;
}

AGENT_API void *realloc(void *p, size_t n)
{
	struct obj_real tmp;
	const struct obj_real *r;
	int want;
	void *q;

	if (obj_resolving)
		return p ? NULL : obj_boot_alloc(n);
	OBJ_FNS(r, tmp);
	if (p && obj_boot_owns(p))
		return obj_boot_move(r, p, n);
	if (!r->realloc) {
		errno = ENOMEM;
		return NULL;
	}
	want = obj_want(OBJ_RA());
	q = r->realloc(p, n);
	/* p is gone when a block came back, or when n was 0 (glibc frees). */
	if (want && p && (q || !n))
		obj_forget(p, 0);
	if (want && q)
		obj_note(r, q, n, ALLOC_REALLOC, OBJ_RA(), OBJ_CFA());
	return q;
}

AGENT_API void *reallocarray(void *p, size_t n, size_t size)
{
	struct obj_real tmp;
	const struct obj_real *r;
	int want;
	void *q;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	if (obj_resolving || (p && obj_boot_owns(p)))
		return realloc(p, n * size);
	OBJ_FNS(r, tmp);
	if (!r->reallocarray) {
		errno = ENOMEM;
		return NULL;
	}
	want = obj_want(OBJ_RA());
	q = r->reallocarray(p, n, size);
	if (want && p && (q || !n || !size))
		obj_forget(p, 0);
	if (want && q)
		obj_note(r, q, (uint64_t)n * size, ALLOC_REALLOC, OBJ_RA(), OBJ_CFA());
	return q;
}

AGENT_API int posix_memalign(void **out, size_t align, size_t n)
{
	struct obj_real tmp;
	const struct obj_real *r;
	int err;

	OBJ_FNS(r, tmp);
	if (!r->posix_memalign)
		return ENOMEM;
	err = r->posix_memalign(out, align, n);
	if (!err && *out && obj_want(OBJ_RA()))
		obj_note(r, *out, n, ALLOC_MEMALIGN, OBJ_RA(), OBJ_CFA());
	return err;
}

/* aligned_alloc, memalign, valloc, pvalloc: one shape. */
#define OBJ_ALIGNED(name, params, args, size)                                       \
	AGENT_API void *name params                                                 \
	{                                                                           \
		struct obj_real tmp;                                                \
		const struct obj_real *r;                                           \
		void *p;                                                            \
                                                                                    \
		OBJ_FNS(r, tmp);                                                    \
		if (!r->name) {                                                     \
			errno = ENOMEM;                                             \
			return NULL;                                                \
		}                                                                   \
		p = r->name args;                                                   \
		if (p && obj_want(OBJ_RA()))                                        \
			obj_note(r, p, size, ALLOC_MEMALIGN, OBJ_RA(), OBJ_CFA());  \
		return p;                                                           \
	}

OBJ_ALIGNED(aligned_alloc, (size_t align, size_t n), (align, n), n)
OBJ_ALIGNED(memalign, (size_t align, size_t n), (align, n), n)
OBJ_ALIGNED(valloc, (size_t n), (n), n)
OBJ_ALIGNED(pvalloc, (size_t n), (n), n)

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
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && obj_want(ra))
		obj_note(r, p, len, ALLOC_MMAP, ra, cfa);
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

AGENT_API int munmap(void *addr, size_t len)
{
	struct obj_real tmp;
	const struct obj_real *r;
	uint64_t t = 0;
	int want, ret;

	OBJ_FNS(r, tmp);
	if (!r->munmap) {
		errno = ENOSYS;
		return -1;
	}
	want = obj_want(OBJ_RA());
	if (want) /* before: a new mapping at this address starts after it */
		t = agent_now();
	ret = r->munmap(addr, len);
	if (!ret && want) {
		obj_busy++;
		agent_quiet++;
		obj_emit_free((uint64_t)(uintptr_t)addr, len, t);
		agent_quiet--;
		obj_busy--;
	}
	return ret;
}

AGENT_API void *mremap(void *old, size_t oldlen, size_t newlen, int flags, ...)
{
	struct obj_real tmp;
	const struct obj_real *r;
	void *want_addr = NULL, *p;
	uint64_t t = 0;
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
	want = obj_want(OBJ_RA());
	if (want)
		t = agent_now();
	p = r->mremap(old, oldlen, newlen, flags, want_addr);
	if (p != MAP_FAILED && want) {
		if (!(flags & MREMAP_DONTUNMAP)) {
			obj_busy++;
			agent_quiet++;
			obj_emit_free((uint64_t)(uintptr_t)old, oldlen, t);
			agent_quiet--;
			obj_busy--;
		}
		obj_note(r, p, newlen, ALLOC_MMAP, OBJ_RA(), OBJ_CFA());
	}
	return p;
}
