// SPDX-License-Identifier: GPL-2.0-only
/*
 * arena_scribbler: a hostile program for cdt's trust boundary.  It finds
 * the shared record buffer (the arena, lib/wire/arena.h) that cdt maps into
 * every program it profiles, and writes over it, the way a buggy or
 * malicious program could.  cdt must neither crash nor hang, must keep
 * every valid record, refuse the rest (lib/core/ingest.c) and exit with
 * this program's status.
 *
 *   cdt record|comm arena_scribbler MODE
 *
 * Every mode runs three phases:
 *
 *  1. before: two threads named "pre_worker" do ~300 ms of CPU each of
 *     loads and stores on a heap array (pre_work), and are joined; then
 *     the program waits until cdt has drained the ring (the shared tail
 *     reaches the head), so those records are cdt's before anything is
 *     scribbled;
 *  2. the scribbling MODE says:
 *     random     fill the whole mapping, header and ring, with xorshift
 *                bytes (fixed seed), 4 times, each until cdt has reset
 *                the head; a forked and an exec'd child start while the
 *                header is garbage; then, with a sane header, 64 framed
 *                and committed records of the agent's types with random
 *                bytes inside, every other one made to pass cdt's checks;
 *     header     try to shrink, grow and seal the memfd (cdt sealed it);
 *                forge the header: ring_size 0, 1<<40 and 4097 (a forked
 *                and an exec'd child start while it is forged), then a
 *                head below the tail, a head far past it, a head not a
 *                multiple of 8, and a garbage tail, each kept until cdt
 *                has seen it; ring_size stays forged;
 *     filetypes  framed, committed records of types the agent never
 *                writes: REC_SYM, REC_META, REC_TASK, REC_CPU,
 *                REC_RUNSTATS, REC_END (each naming "forged" where it has
 *                a string), 150 and the tool type 1000;
 *     truncated  committed records shorter than their type: REC_THREAD
 *                of 16 bytes, REC_SAMPLE 24, REC_ALLOC 40, REC_PROC 24,
 *                REC_MMAP 64 and REC_COMM 8 (comm's type: too short under
 *                cdt comm, of a foreign tool under cdt record); then one
 *                of size 13, one whose size runs past the ring's end, and
 *                one never committed (its writer "died");
 *     flip       FLIP_BATCHES batches of FLIP_PER_BATCH REC_ALLOC records
 *                (one frame, 56 bytes, then an 8-byte REC_PAD), while a
 *                second thread flips their depth between 1 and 200 and
 *                their size between 56 and 64 until cdt has taken them:
 *                at any instant about 3 in 4 are invalid, so cdt sees
 *                both states; those it takes valid are objects of 64
 *                bytes allocated at flip_site;
 *     counters   the header's dropped records and bytes set past what
 *                any run can reach, and a thread (tid FORGED_TID, named
 *                "forged_stats") whose agent statistics say it took more
 *                samples than the run had nanoseconds;
 *     mapfifo FIFO  a well-formed REC_MMAP naming FIFO, a FIFO the caller
 *                made: cdt's symbolizer must not wait on it; and one of
 *                an empty range, which cdt must refuse (rej_field 1), see
 *                mode_mapfifo;
 *  3. after: a thread named "post_worker" does ~100 ms of memory work
 *     (post_work), a forked child and an exec'd one (this program with
 *     MODE "child") do ~50 ms each and exit 0.
 *
 * Injected records are reserved as the agent does (lib/wire/arena.c): a
 * CAS on head within the ring size read at start-up, a REC_PAD to the
 * ring's end, size and type, then a release store of REC_F_COMMITTED;
 * the agent's own threads append at the same time.
 *
 * Ground truth: if ARENA_TRUTH names a file, "KEY N" lines ("KEY >=N": at
 * least N) are appended to it: rej_type, rej_size, rej_field, rej_frame
 * for the records cdt must refuse for each reason (enum rec_reject; a
 * reason not named: no expectation), and for flip "flip_records N" (each
 * either refused or an object of flip_site).  ARENA_SEED (a number) seeds
 * the random bytes differently, for exploring by hand.
 *
 * Exit status 3 when all went as planned; 4 if a child did not exit 0;
 * 2 on bad usage, without cdt (CDT_ARENA_FD unset) or if a system call
 * failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/tools/comm/comm.h"
#include "lib/wire/arena.h"
#include "lib/wire/record.h"

#define WORK_WORDS (1u << 16)  /* 512 KiB per worker */
#define DRAIN_WAIT_NS 10000000000ull /* cdt drains every 1-50 ms; 10 s is generous */
#define FLIP_BATCHES 16
#define FLIP_PER_BATCH 32
#define FLIP_SITE 0x7ff10000u  /* far above the agent's own path numbers */
#define FLIP_ADDR 0x100000000000ull /* fake, non-overlapping block addresses */
#define RANDOM_RECORDS 64
#define RANDOM_MAX 256 /* bytes of a random record, at most */

/* The arena as this program found it at start-up. */
static struct {
	unsigned char *map;
	size_t map_size;
	struct arena_hdr *hdr;
	unsigned char *ring;
	uint64_t ring_size;
	int fd;
	int comm; /* the tool is comm (its record types are the tool's) */
} A;

static volatile uint64_t sink;
static const char *prog;

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pause_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(2);
}

/* xorshift64: the same bytes every run. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rnd_state = x;
}

/* ---- ordinary work, whose records must survive ---- */

/* Random loads and stores into a heap array for `cpu_ns` of this thread's
 * CPU time (so the samples come whatever else the machine runs). */
__attribute__((noinline)) static uint64_t mem_work(uint64_t cpu_ns, uint64_t x)
{
	uint64_t *a = calloc(WORK_WORDS, sizeof(*a)), sum = 0;
	uint64_t end = now_ns(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;

	if (!a)
		return 0;
	do {
		for (uint32_t k = 0; k < 20000; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			sum += a[(x >> 20) & (WORK_WORDS - 1)];
			a[(x >> 40) & (WORK_WORDS - 1)] = sum + k;
		}
	} while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end);
	free(a);
	return sum;
}

__attribute__((noinline)) static void *pre_work(void *arg)
{
	pthread_setname_np(pthread_self(), "pre_worker");
	sink = mem_work(300000000ull, (uintptr_t)arg);
	return NULL;
}

__attribute__((noinline)) static void *post_work(void *arg)
{
	pthread_setname_np(pthread_self(), "post_worker");
	sink = mem_work(100000000ull, (uintptr_t)arg);
	return NULL;
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t th[2];
	int err;

	for (int i = 0; i < n; i++) {
		err = pthread_create(&th[i], NULL, fn, (void *)(uintptr_t)(i + 7));
		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

/* ---- the arena ---- */

static void arena_find(void)
{
	const char *s = getenv(AGENT_ENV_FD);
	struct arena_hdr h;
	struct stat st;
	void *p;
	int fd;

	if (!s) {
		fprintf(stderr, "%s: %s is not set: run me under cdt record or cdt comm\n", prog,
			AGENT_ENV_FD);
		exit(2);
	}
	fd = atoi(s);
	if (fstat(fd, &st) < 0)
		die("fstat of the arena");
	if ((size_t)st.st_size < sizeof(h)) {
		fprintf(stderr, "%s: the arena is only %lld bytes\n", prog, (long long)st.st_size);
		exit(2);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap of the arena");
	A.fd = fd;
	A.map = p;
	A.map_size = (size_t)st.st_size;
	A.hdr = p;
	memcpy(&h, p, sizeof(h));
	/* The geometry a producer uses: the header's, while it is intact. */
	if (h.magic != ARENA_MAGIC || h.hdr_size != sizeof(h) ||
	    h.ring_size + sizeof(h) != A.map_size || (h.ring_size & (h.ring_size - 1))) {
		fprintf(stderr, "%s: the arena header is not one I know\n", prog);
		exit(2);
	}
	A.ring = A.map + h.hdr_size;
	A.ring_size = h.ring_size;
	A.comm = !strncmp(h.cfg.tool, "comm", sizeof(h.cfg.tool));
}

static uint64_t head_now(void)
{
	return atomic_load_explicit(&A.hdr->head, memory_order_acquire);
}

static uint64_t tail_now(void)
{
	return atomic_load_explicit(&A.hdr->tail, memory_order_acquire);
}

/* Until cdt has consumed the ring up to pos (bytes ever); 0 if it did. */
static int wait_tail(uint64_t pos)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	while (tail_now() < pos) {
		if (now_ns(CLOCK_MONOTONIC) - t0 > DRAIN_WAIT_NS) {
			fprintf(stderr, "%s: cdt did not drain the ring within 10 s\n", prog);
			return -1;
		}
		pause_ms(1);
	}
	return 0;
}

/* Until cdt has replaced what this program forged at *field (it resets a
 * head it cannot believe, and writes its own tail back after each drain). */
static void wait_replaced(_Atomic uint64_t *field, uint64_t forged, const char *what)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	while (atomic_load(field) == forged) {
		if (now_ns(CLOCK_MONOTONIC) - t0 > DRAIN_WAIT_NS) {
			fprintf(stderr, "%s: cdt left the forged %s %llu for 10 s\n", prog, what,
				(unsigned long long)forged);
			return;
		}
		pause_ms(1);
	}
}

/*
 * Reserve size bytes the way the agent does (arena_reserve): CAS on head,
 * a committed REC_PAD to the ring's end if the record would straddle it.
 * Returns the record with size and type set, not committed, and its end
 * position (bytes ever) in *end; NULL if the ring is full.
 */
static struct rec_hdr *reserve(uint32_t size, uint16_t type, uint64_t *end)
{
	uint64_t mask = A.ring_size - 1, head, tail, off, pad, need;
	struct rec_hdr *r;

	head = atomic_load_explicit(&A.hdr->head, memory_order_relaxed);
	do {
		tail = atomic_load_explicit(&A.hdr->tail, memory_order_acquire);
		off = head & mask;
		pad = off + size > A.ring_size ? A.ring_size - off : 0;
		need = pad + size;
		if (head + need - tail > A.ring_size)
			return NULL;
	} while (!atomic_compare_exchange_weak_explicit(&A.hdr->head, &head, head + need,
							 memory_order_acq_rel,
							 memory_order_relaxed));
	if (pad) {
		r = (struct rec_hdr *)(A.ring + off);
		r->type = REC_PAD;
		r->size = (uint32_t)pad;
		atomic_store_explicit((_Atomic uint16_t *)&r->flags, REC_F_COMMITTED,
				      memory_order_release);
		off = 0;
	}
	r = (struct rec_hdr *)(A.ring + off);
	r->size = size;
	r->type = type;
	*end = head + need;
	return r;
}

static void commit(struct rec_hdr *r)
{
	atomic_store_explicit((_Atomic uint16_t *)&r->flags, REC_F_COMMITTED,
			      memory_order_release);
}

/*
 * Inject a committed record: reserve `room` bytes, copy body (the record
 * after its header; `room` - 8 bytes, zero-filled past blen), and give it
 * the header size `size` (which may lie).  Returns its end position.
 */
static uint64_t inject(uint16_t type, uint32_t room, uint32_t size, const void *body,
		       size_t blen)
{
	uint64_t end;
	struct rec_hdr *r = reserve(room, type, &end);

	if (!r) {
		fprintf(stderr, "%s: the ring is full: cannot inject a record\n", prog);
		exit(2);
	}
	memset(r + 1, 0, room - sizeof(*r));
	memcpy(r + 1, body, blen < room - sizeof(*r) ? blen : room - sizeof(*r));
	r->size = size;
	commit(r);
	return end;
}

/* A record struct's bytes after its header. */
#define BODY(rec) ((const char *)&(rec) + sizeof(struct rec_hdr))

/* ---- ground truth ---- */

static FILE *truth;

static void truth_open(void)
{
	const char *path = getenv("ARENA_TRUTH");

	if (path && !(truth = fopen(path, "a")))
		die(path);
}

/* "KEY N": exactly N; "KEY >=N": at least N. */
static void truth_put(const char *key, const char *op, long n)
{
	if (truth)
		fprintf(truth, "%s %s%ld\n", key, op, n);
}

/* ---- children: their agents must not mind the scribbled header ---- */

static void child_work(void)
{
	sink = mem_work(50000000ull, 11);
}

/* Start a forked child and one that execs this program ("child"); 0 if
 * both exited 0. */
static int children(void)
{
	pid_t pid[2];
	int bad = 0, st;

	fflush(NULL);
	pid[0] = fork();
	if (pid[0] < 0)
		die("fork");
	if (pid[0] == 0) {
		child_work();
		exit(0);
	}
	pid[1] = fork();
	if (pid[1] < 0)
		die("fork");
	if (pid[1] == 0) {
		execl("/proc/self/exe", prog, "child", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 2; i++) {
		if (waitpid(pid[i], &st, 0) != pid[i])
			die("waitpid");
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "%s: the %s child %s %d\n", prog, i ? "exec'd" : "forked",
				WIFEXITED(st) ? "exited" : "was killed by signal",
				WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* ---- the modes ---- */

static void fill_random(unsigned char *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v = rnd();

		memcpy(p + i, &v, 8);
	}
	for (; i < n; i++)
		p[i] = (unsigned char)rnd();
}

/*
 * Make the random record r of `size` bytes pass cdt's checks
 * (lib/core/records.c): long enough, strings ending inside, enumerations
 * known, the frame count fitting; now and then this process's pid and
 * tid, and addresses of its code and data.  Returns its size now.
 */
static uint32_t plausible(uint16_t type, struct rec_hdr *r, uint32_t size)
{
	static const uint32_t min[] = {
		[REC_PROC] = sizeof(struct rec_proc) + 8,
		[REC_PROC_END] = sizeof(struct rec_proc_end),
		[REC_THREAD] = sizeof(struct rec_thread),
		[REC_THREAD_END] = sizeof(struct rec_thread_end),
		[REC_MMAP] = sizeof(struct rec_mmap) + 8,
		[REC_SAMPLE] = sizeof(struct rec_sample),
		[REC_TRAP] = sizeof(struct rec_trap),
		[REC_ERROR] = sizeof(struct rec_error) + 8,
		[REC_FREE] = sizeof(struct rec_free),
		[REC_THREAD_STATS] = sizeof(struct rec_thread_end),
	};
	unsigned char *b = (unsigned char *)r;
	uint32_t *ids = (uint32_t *)(b + 8); /* pid, and tid or ppid, in every type */

	if (type < sizeof(min) / sizeof(min[0]) && size < min[type])
		size = min[type];
	if (type == REC_COMM && size < sizeof(struct rec_comm))
		size = sizeof(struct rec_comm);
	if (rnd() & 1) {
		ids[0] = (uint32_t)getpid();
		ids[1] = (uint32_t)gettid();
	}
	b[size - 1] = 0; /* exe, path, msg */
	switch (type) {
	case REC_THREAD:
		((struct rec_thread *)r)->name[15] = 0;
		break;
	case REC_THREAD_END:
	case REC_THREAD_STATS:
		((struct rec_thread_end *)r)->name[15] = 0;
		break;
	case REC_MMAP:
		((struct rec_mmap *)r)->build_id_len = (uint32_t)(rnd() % 21);
		break;
	case REC_SAMPLE: {
		struct rec_sample *x = (struct rec_sample *)r;

		x->kind = (uint8_t)(rnd() % 4);
		x->source = (uint8_t)(rnd() % 3);
		if (rnd() & 1) {
			x->ip = (uintptr_t)mem_work + rnd() % 256;
			x->addr = (uintptr_t)&sink + rnd() % 64;
		}
		break;
	}
	case REC_TRAP: {
		struct rec_trap *x = (struct rec_trap *)r;

		x->kind = (uint8_t)(rnd() % 4);
		x->slot = (uint8_t)(rnd() % 4);
		break;
	}
	case REC_ALLOC: {
		struct rec_alloc *x = (struct rec_alloc *)r;

		x->depth = (uint8_t)(rnd() % (ALLOC_MAX_DEPTH + 1));
		x->kind = (uint8_t)(1 + rnd() % ALLOC_KIND_MAX);
		size = (uint32_t)(sizeof(*x) + x->depth * sizeof(x->frames[0]));
		for (unsigned k = 0; k < x->depth && (rnd() & 1); k++)
			x->frames[k] = (uintptr_t)mem_work + rnd() % 256;
		break;
	}
	case REC_COMM: {
		struct rec_comm *x = (struct rec_comm *)r;

		x->kind = (uint8_t)(rnd() % 4);
		x->pub_kind = (uint8_t)(rnd() % 4);
		break;
	}
	}
	return size;
}

static int mode_random(void)
{
	struct arena_hdr saved;
	uint64_t end = 0, forged;

	memcpy(&saved, A.hdr, sizeof(saved));
	/* The whole mapping: each time cdt finds a head it cannot believe (1
	 * in 2^40 it could), maybe while the fill goes on, so the head is set
	 * again after it; the agent here keeps its own geometry. */
	for (int i = 0; i < 4; i++) {
		fill_random(A.map, A.map_size);
		forged = rnd();
		atomic_store(&A.hdr->head, forged);
		wait_replaced(&A.hdr->head, forged, "head");
	}
	truth_put("rej_frame", ">=", 4);
	/* An exec'd child now finds no arena it can attach to. */
	if (children())
		return -1;
	/* A sane header again (head and tail as cdt set them), then framed,
	 * committed records of random agent types with random insides: what
	 * passes the checks must not upset what comes after ingest. */
	memcpy(A.hdr, &saved, offsetof(struct arena_hdr, head));
	atomic_store(&A.hdr->dropped_records, saved.dropped_records);
	atomic_store(&A.hdr->dropped_bytes, saved.dropped_bytes);
	atomic_store(&A.hdr->agents, saved.agents);
	A.hdr->cfg = saved.cfg;
	for (int i = 0; i < RANDOM_RECORDS; i++) {
		static const uint16_t types[] = { REC_PROC, REC_PROC_END, REC_THREAD,
						  REC_THREAD_END, REC_MMAP, REC_SAMPLE, REC_TRAP,
						  REC_ERROR, REC_ALLOC, REC_FREE, REC_THREAD_STATS,
						  REC_COMM };
		uint64_t rec[RANDOM_MAX / 8];
		uint16_t type = types[rnd() % (sizeof(types) / sizeof(types[0]))];
		uint32_t size = REC_SIZE(16 + rnd() % (RANDOM_MAX - 16 - 7));

		fill_random((unsigned char *)rec, sizeof(rec));
		/* Every other one passes the checks, to go further in. */
		if (i & 1)
			size = plausible(type, (struct rec_hdr *)rec, size);
		end = inject(type, size, size, (const char *)rec + 8, size - 8);
	}
	return wait_tail(end);
}

static int mode_header(void)
{
	uint64_t forged, tail, rs = A.hdr->ring_size;

	/* The memfd itself: shrunk under cdt's mapping, the next read there
	 * would kill cdt with SIGBUS; sealed against writes, no exec'd child
	 * could map it.  cdt seals its size and its seals first. */
	if (!ftruncate(A.fd, 4096) || !ftruncate(A.fd, (off_t)A.map_size * 2) ||
	    !fcntl(A.fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE)) {
		fprintf(stderr, "%s: the arena's memfd could be resized or sealed\n", prog);
		return -1;
	}

	/* The ring size: nobody reads it after start-up.  A forked child
	 * keeps its parent's geometry; an exec'd one must refuse to attach. */
	A.hdr->ring_size = 0;
	pause_ms(100);
	A.hdr->ring_size = 1ull << 40;
	if (children())
		return -1;
	A.hdr->ring_size = 4097;
	if (children())
		return -1;
	A.hdr->ring_size = rs;

	/* A head below the tail. */
	tail = tail_now();
	forged = tail - 4096;
	atomic_store(&A.hdr->head, forged);
	wait_replaced(&A.hdr->head, forged, "head");
	/* A head far past the tail; an exec'd child attaches meanwhile. */
	forged = tail_now() + (1ull << 40);
	atomic_store(&A.hdr->head, forged);
	if (children())
		return -1;
	wait_replaced(&A.hdr->head, forged, "head");
	/* A head that no record can end at.  Producers must not append
	 * from it (a record there would straddle the ring's end one day),
	 * and cdt must reset it: records are multiples of 8. */
	forged = head_now() + 3;
	atomic_store(&A.hdr->head, forged);
	for (uint64_t t0 = now_ns(CLOCK_MONOTONIC); head_now() % REC_ALIGN;) {
		if (now_ns(CLOCK_MONOTONIC) - t0 > DRAIN_WAIT_NS) {
			fprintf(stderr, "%s: the ring's head stayed misaligned for 10 s (%llu)\n",
				prog, (unsigned long long)head_now());
			return -1;
		}
		pause_ms(1);
	}
	truth_put("rej_frame", ">=", 3);
	/* A garbage tail: producers must take the ring for full, not write. */
	forged = head_now() + 12345;
	atomic_store(&A.hdr->tail, forged);
	wait_replaced(&A.hdr->tail, forged, "tail");
	forged = 0;
	atomic_store(&A.hdr->tail, forged);
	wait_replaced(&A.hdr->tail, forged, "tail");
	/* Stays forged to the end: the children after this see it too. */
	A.hdr->ring_size = 4097;
	return 0;
}

static int mode_filetypes(void)
{
	struct rec_sym sym = { .pid = (uint32_t)getpid(), .kind = SYM_CODE, .addr = 0x1000 };
	struct rec_task task = { .index = 0, .pid = (uint32_t)getpid(), .tid = 1 };
	struct rec_cpu cpu = { .cpu = 0, .core = 0, .socket = 0, .node = 0 };
	struct rec_runstats rs = { .exit_status = 77, .records = 1 };
	struct rec_end e = { .records = 1, .bytes = 1 };
	char buf[256];
	uint64_t end;
	size_t n;

	/* A symbol "forged_sym": name, file and module, as a file holds one. */
	memset(buf, 0, sizeof(buf));
	sym.name_len = 11;
	sym.file_len = 9;
	sym.module_len = 7;
	memcpy(buf, &sym, sizeof(sym));
	memcpy(buf + sizeof(sym), "forged_sym\0forged.c\0forged", 27);
	n = REC_SIZE(sizeof(sym) + 27);
	inject(REC_SYM, (uint32_t)n, (uint32_t)n, buf + 8, n - 8);
	/* Meta that would rename the tool. */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "tool\0forged", 12);
	n = REC_SIZE(sizeof(struct rec_meta) + 12);
	inject(REC_META, (uint32_t)n, (uint32_t)n, buf, n - 8);
	snprintf(task.name, sizeof(task.name), "forged_task");
	inject(REC_TASK, sizeof(task), sizeof(task), BODY(task), sizeof(task) - 8);
	inject(REC_CPU, sizeof(cpu), sizeof(cpu), BODY(cpu), sizeof(cpu) - 8);
	inject(REC_RUNSTATS, sizeof(rs), sizeof(rs), BODY(rs), sizeof(rs) - 8);
	inject(REC_END, sizeof(e), sizeof(e), BODY(e), sizeof(e) - 8);
	/* Unknown core and tool types. */
	memset(buf, 0xab, sizeof(buf));
	inject(150, 64, 64, buf, 56);
	end = inject(1000, 64, 64, buf, 56);
	truth_put("rej_type", "", 8);
	return wait_tail(end);
}

/*
 * The counts the arena carries: the header's dropped records and bytes,
 * set to what no run can reach (the figures a scribbled run once
 * printed), and the agent statistics of a thread FORGED_TID named
 * "forged_stats", whose records say it took more samples than the run
 * had nanoseconds.  cdt must report neither as a figure.
 */
#define FORGED_TID 4194321u /* above any pid_max (2^22) */

static int mode_counters(void)
{
	struct rec_thread th = { .pid = (uint32_t)getpid(), .tid = FORGED_TID };
	struct rec_thread_end te = { .pid = (uint32_t)getpid(), .tid = FORGED_TID };
	unsigned char junk[56];
	uint64_t end;

	th.time = te.time = now_ns(CLOCK_MONOTONIC);
	snprintf(th.name, sizeof(th.name), "forged_stats");
	snprintf(te.name, sizeof(te.name), "forged_stats");
	te.st.samples = 7556425513547583220ull;
	te.st.mem_samples = 7556425513547583220ull;
	te.st.handler_ns = 13863210061016419131ull;
	te.ext.cpu_ns = 13863210061016419131ull;
	inject(REC_THREAD, sizeof(th), sizeof(th), BODY(th), sizeof(th) - 8);
	inject(REC_THREAD_END, sizeof(te), sizeof(te), BODY(te), sizeof(te) - 8);
	/* One refused record, as every mode has. */
	memset(junk, 0xab, sizeof(junk));
	end = inject(150, 64, 64, junk, sizeof(junk));
	truth_put("rej_type", "", 1);
	atomic_store(&A.hdr->dropped_records, UINT64_MAX);
	atomic_store(&A.hdr->dropped_bytes, 13863210061016419131ull);
	return wait_tail(end);
}

static int mode_truncated(void)
{
	unsigned char zero[64] = { 0 };
	struct rec_thread th = { .pid = (uint32_t)getpid(), .tid = (uint32_t)gettid() };
	struct rec_sample s = { .pid = (uint32_t)getpid(), .tid = (uint32_t)gettid() };
	struct rec_alloc al = { .pid = (uint32_t)getpid(), .kind = ALLOC_MALLOC, .depth = 0 };
	struct rec_hdr *r;
	uint64_t end, off;

	/* Each the first bytes of its struct, framed by the size it has. */
	inject(REC_THREAD, 16, 16, BODY(th), 8);
	inject(REC_SAMPLE, 24, 24, BODY(s), 16);
	inject(REC_ALLOC, 40, 40, BODY(al), 32);
	inject(REC_PROC, 24, 24, zero, 16);
	inject(REC_MMAP, 64, 64, zero, 56);
	/* The reported bug: an 8-byte REC_COMM was taken, and then the profile
	 * writer refused the whole profile (cdt exited 125, wrote nothing). */
	end = inject(REC_COMM, 8, 8, zero, 0);
	truth_put("rej_size", "", A.comm ? 6 : 5);
	truth_put("rej_type", "", A.comm ? 0 : 1);
	if (wait_tail(end))
		return -1;
	/* A size no record has: the rest of the ring then is lost, and the
	 * agent's records after it; collection goes on. */
	end = inject(REC_SAMPLE, sizeof(s), 13, BODY(s), sizeof(s) - 8);
	if (wait_tail(end))
		return -1;
	/* A record whose size runs past the ring's end (and, unless it
	 * starts in the last MiB, past the largest size a record may have). */
	r = reserve(16, REC_SAMPLE, &end);
	if (!r)
		return -1;
	off = (uint64_t)((unsigned char *)r - A.ring);
	r->size = (uint32_t)(A.ring_size - off + 8);
	commit(r);
	if (wait_tail(end))
		return -1;
	/* A record never finished: its writer died after reserving it; cdt
	 * waits for it a while (ingest.h: INGEST_STUCK_NS), then goes on. */
	if (!reserve(sizeof(s), REC_SAMPLE, &end))
		return -1;
	truth_put("rej_frame", "", 3);
	return wait_tail(end);
}

/* The records the flipper works on: the current batch. */
static struct rec_alloc *_Atomic flip_batch[FLIP_PER_BATCH];
static atomic_int flip_run = 1;  /* 0: the flipper ends */
static atomic_uint flip_gen;     /* bumped when a batch is let go of */
static atomic_uint flip_ack;     /* the flip_gen the flipper's pass started with */

/* The call path the flipped records claim: frames[0] returns into here. */
__attribute__((noinline)) static uint64_t flip_site(uint64_t x)
{
	return x * 2654435761u + 1;
}

/* Flip every record of the batch until the main thread moves on: record
 * i at pass k has a bad depth if (i + k) is odd, a bad size if bit 1 of
 * (i + k) is set, so whenever cdt looks, about 3 in 4 records are bad. */
static void *flipper(void *arg)
{
	unsigned k = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "flipper");
	while (atomic_load(&flip_run)) {
		/* Whatever the last pass held, it holds no longer. */
		atomic_store(&flip_ack, atomic_load(&flip_gen));
		for (unsigned i = 0; i < FLIP_PER_BATCH; i++) {
			struct rec_alloc *r = atomic_load(&flip_batch[i]);
			unsigned v = i + k;

			if (!r)
				continue;
			atomic_store_explicit((_Atomic uint8_t *)&r->depth,
					      (uint8_t)(v & 1 ? 200 : 1), memory_order_relaxed);
			atomic_store_explicit((_Atomic uint32_t *)&r->h.size,
					      v & 2 ? 64u : 56u, memory_order_relaxed);
		}
		k++;
		if (!(k & 255))
			sched_yield();
	}
	return NULL;
}

static int mode_flip(void)
{
	uint64_t seq = 0, end = 0;
	unsigned gen;
	pthread_t th;
	int err;

	err = pthread_create(&th, NULL, flipper, NULL);
	if (err) {
		errno = err;
		die("pthread_create");
	}
	for (unsigned b = 0; b < FLIP_BATCHES; b++) {
		for (unsigned i = 0; i < FLIP_PER_BATCH; i++) {
			struct rec_alloc *r;
			struct rec_hdr *pad;

			/* 64 bytes: the record (56 with its frame), then a pad, so
			 * both sizes it flips between frame the next record. */
			r = (struct rec_alloc *)reserve(64, REC_ALLOC, &end);
			if (!r) {
				fprintf(stderr, "%s: the ring is full\n", prog);
				return -1;
			}
			pad = (struct rec_hdr *)((char *)r + 56);
			pad->size = 8;
			pad->type = REC_PAD;
			commit(pad);
			r->pid = (uint32_t)getpid();
			r->tid = (uint32_t)gettid();
			r->time = now_ns(CLOCK_MONOTONIC);
			r->addr = FLIP_ADDR + (seq++) * 4096;
			r->size = 64;
			r->site = FLIP_SITE;
			r->kind = ALLOC_MALLOC;
			r->flags = 0;
			r->frames[0] = (uintptr_t)flip_site + 4;
			r->depth = (i & 1) ? 200 : 1;
			r->h.size = (i & 2) ? 64 : 56;
			commit(&r->h);
			atomic_store(&flip_batch[i], r);
		}
		/* Flip until cdt has taken the whole batch, then let go of it
		 * before its bytes are cleared for reuse... or soon after: the
		 * ring comes round only 8 MiB later. */
		err = wait_tail(end);
		for (unsigned i = 0; i < FLIP_PER_BATCH; i++)
			atomic_store(&flip_batch[i], NULL);
		gen = atomic_fetch_add(&flip_gen, 1) + 1;
		while (atomic_load(&flip_ack) != gen)
			sched_yield();
		if (err)
			break;
	}
	atomic_store(&flip_run, 0);
	pthread_join(th, NULL);
	sink = flip_site(seq);
	truth_put("flip_records", "", (long)seq);
	return err ? -1 : 0;
}

/*
 * A well-formed REC_MMAP of this process naming mapfifo_path, a FIFO the
 * caller made (and removes after cdt ends).  cdt's symbolizer opens every
 * mapped path to read its ELF, and a blocking open() of a FIFO waits for
 * a writer: cdt hung there after the program had exited, until
 * lib/core/symbolize.c (file_open) opened without blocking and read
 * regular files only.  The agent's own records can name one too: a
 * library mapped, deleted and replaced by a FIFO.
 */
static const char *mapfifo_path;

static int mode_mapfifo(void)
{
	uint64_t rec[(sizeof(struct rec_mmap) + 4096) / 8] = { 0 };
	struct rec_mmap *m = (struct rec_mmap *)rec;
	size_t n = strlen(mapfifo_path) + 1;
	uint32_t size = REC_SIZE(sizeof(*m) + n);

	if (n > 4096) {
		fprintf(stderr, "%s: the FIFO's path is too long\n", prog);
		return -1;
	}
	m->pid = (uint32_t)getpid();
	m->time = now_ns(CLOCK_MONOTONIC);
	m->start = 0x10000;
	m->end = 0x20000;
	memcpy(m->path, mapfifo_path, n);
	inject(REC_MMAP, size, size, (const char *)rec + 8, size - 8);
	/* Empty: it used to stop the symbolization of every module. */
	m->start = m->end;
	truth_put("rej_field", "", 1);
	return wait_tail(inject(REC_MMAP, size, size, (const char *)rec + 8, size - 8));
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} modes[] = {
		{ "random", mode_random },
		{ "header", mode_header },
		{ "filetypes", mode_filetypes },
		{ "truncated", mode_truncated },
		{ "flip", mode_flip },
		{ "counters", mode_counters },
	};
	int (*fn)(void) = NULL;
	int rc = 3;

	prog = argv[0];
	if (argc == 2 && !strcmp(argv[1], "child")) {
		child_work();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "mapfifo")) {
		mapfifo_path = argv[2];
		fn = mode_mapfifo;
	}
	for (size_t i = 0; argc == 2 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			fn = modes[i].fn;
	if (!fn) {
		fprintf(stderr, "usage: %s random|header|filetypes|truncated|flip|counters\n"
			"       %s mapfifo FIFO\n", prog, prog);
		return 2;
	}
	arena_find();
	truth_open();
	if (getenv("ARENA_SEED"))
		rnd_state = strtoull(getenv("ARENA_SEED"), NULL, 0) | 1;

	/* 1. Work whose records cdt must have before the scribbling. */
	run_threads(pre_work, 2);
	if (wait_tail(head_now()))
		return 2;

	/* 2. Scribble. */
	if (fn())
		return 2;

	/* 3. More work, and children whose agents must cope. */
	run_threads(post_work, 1);
	if (children())
		rc = 4;
	if (truth && fclose(truth))
		die("ARENA_TRUTH");
	return rc;
}
