// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calibration's measurements (Molka et al., ICPE'17, §3): a sweep of
 * buffer sizes on one pinned core (read and write bandwidth, latency),
 * the effective level sizes from that curve, then per level: bandwidth on
 * one core and on all cores of the first socket, latency alone and with
 * multiplications between the loads, and the distribution of the agent's
 * probe; local memory, and remote memory when there are two nodes.
 *
 * Every figure is the best of CALIB_REPS runs (max bandwidth, min
 * latency), as x86-membench does: on a shared machine interference only
 * ever slows a run down, so the best run is the one nearest the hardware.
 */
#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "lib/core/pmu_events.h"
#include "lib/core/topo.h"
#include "lib/tools/membound/calib_parts.h"

#define MSG "cdt membound: "

/* Runs per figure, best taken: 5 (quick 4).  Five runs of a few ms each
 * ride out a neighbour's time slice (4 ms at 250 Hz) on this 2-CPU VM. */
#define REPS_FULL 5
#define REPS_QUICK 4
/* A level's own figures (the ones kept) take more: a core shared with a
 * busy neighbour runs at full speed only in its own slices of a few ms,
 * and 8 runs of 2 ms (12 of 5 ms) find one (tests/e2e/membound_likwid.sh). */
#define LEVEL_REPS_FULL 12
#define LEVEL_REPS_QUICK 8
#define MAX_REPS 12
/* Each bandwidth run lasts at least this long (and one pass). */
#define MIN_NS_FULL 5000000ull
#define MIN_NS_QUICK 2000000ull
/* Dependent loads per latency run. */
#define LOADS_FULL 200000
#define LOADS_QUICK 48000
#define PROBES_FULL 8000
#define PROBES_QUICK 2000
/* The sweep: from 16 KiB (under half of any L1d in use) by 2^(1/2)
 * (quick: by 2) up to 10x the topology's LLC, capped here. */
#define SWEEP_MIN (16u << 10)
#define CAP_FULL (1ull << 30)
#define CAP_QUICK (256ull << 20)
/* The knee rules of calib_levels_detect. */
#define KNEE_PRIVATE 2.0 /* a private level ends where latency passes 2x its own */
#define SEEN_DRAM 0.5    /* a level whose latency is half DRAM's or more is not a cache */

static volatile uint64_t calib_sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *calib_level_name(int level)
{
	static const char *const n[MB_NLEVELS] = { "L1", "L2", "L3", "DRAM", "remote DRAM" };

	return level >= 0 && level < MB_NLEVELS ? n[level] : "?";
}

const char *calib_origin_name(int origin)
{
	static const char *const n[] = { "-", "topology", "measured", "sweep" };

	return origin >= 0 && origin <= CALIB_ORIGIN_SWEEP ? n[origin] : "?";
}

void calib_fmt_size(uint64_t b, char *buf, size_t len)
{
	if (b >= (1ull << 30))
		snprintf(buf, len, "%.3g GiB", (double)b / (1 << 30));
	else if (b >= (1ull << 20))
		snprintf(buf, len, "%.3g MiB", (double)b / (1 << 20));
	else if (b >= 1024)
		snprintf(buf, len, "%.3g KiB", (double)b / 1024);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
}

void calib_topo_caches(uint64_t out[CALIB_CACHE_LEVELS])
{
	/* glibc reads these from CPUID: the prior, which may be what a
	 * hypervisor claims rather than what the guest gets. */
	long v[CALIB_CACHE_LEVELS] = { sysconf(_SC_LEVEL1_DCACHE_SIZE),
				       sysconf(_SC_LEVEL2_CACHE_SIZE),
				       sysconf(_SC_LEVEL3_CACHE_SIZE) };

	for (int k = 0; k < CALIB_CACHE_LEVELS; k++)
		out[k] = v[k] > 0 ? (uint64_t)v[k] : 0;
}

/*
 * The effective capacities from the latency curve, the topology as the
 * prior.  Level k starts at the first size at least twice the previous
 * level's capacity (the sizes between are a mix of both), and its
 * latency there (the lower of two sizes) is its own, P.  It ends at the last size before two
 * sizes in a row whose latency passes a threshold: 2 P for a level
 * that another cache follows (private levels are flat, and the next one
 * is 3 to 4 times slower; this VM slows down by up to 1.5x for seconds
 * at a time), and for the last cache the geometric mean of
 * P and DRAM's latency (the largest size's), since an LLC's latency
 * creeps up with size (TLB, distance) well before the big step to DRAM.
 * Two sizes in a row, so that one disturbed run does not end a level.
 * A level whose P is already half DRAM's or more is not there.  When the
 * knee lies within a factor of 2 of the topology's size (one or two
 * steps of the sweep), the two agree and the topology's size is used;
 * otherwise the measured one, and note says so.
 */
void calib_levels_detect(const uint64_t *size, const double *lat, size_t n,
			 const uint64_t topo[CALIB_CACHE_LEVELS],
			 uint64_t out[CALIB_CACHE_LEVELS], int origin[CALIB_CACHE_LEVELS],
			 char *note, size_t notelen)
{
	uint64_t prev = 0;
	double dram = n ? lat[n - 1] : 0;
	int last = -1, gone = 0;
	size_t used = strlen(note);

	for (int k = 0; k < CALIB_CACHE_LEVELS; k++) {
		out[k] = 0;
		origin[k] = CALIB_ORIGIN_NONE;
		if (topo[k])
			last = k;
	}
	if (last < 0)
		last = CALIB_CACHE_LEVELS - 1;
	for (int k = 0; k <= last && n >= 2 && !gone; k++) {
		size_t i0 = 0, i;
		uint64_t knee;
		double p, thr;
		char a[32], b[32];

		while (i0 < n && size[i0] < 2 * prev)
			i0++;
		if (i0 >= n - 1) /* the sweep ended inside the previous level */
			break;
		/* P, the lower of the level's first two sizes: a run slowed
		 * down (stress-ng beside it) only ever reads higher, and a P
		 * twice too high set the knee past the next level (this
		 * Cascade Lake guest found an L2 of 8 MiB, and no L3). */
		p = lat[i0];
		if (i0 + 1 < n && lat[i0 + 1] < p)
			p = lat[i0 + 1];
		if (k > 0 && p >= SEEN_DRAM * dram) {
			calib_fmt_size(topo[k], a, sizeof(a));
			used += (size_t)snprintf(note + used, used < notelen ? notelen - used : 0,
				"%s%s: no level between %s and DRAM in the latency curve "
				"(the topology says %s); not measured", used ? "; " : "",
				calib_level_name(k), calib_level_name(k - 1), topo[k] ? a : "nothing");
			break;
		}
		thr = k == last ? sqrt(p * dram) : KNEE_PRIVATE * p;
		knee = size[i0];
		for (i = i0; i < n; i++) {
			if (lat[i] <= thr)
				knee = size[i];
			else if (i + 1 >= n || lat[i + 1] > thr)
				break;
		}
		if (topo[k] && knee >= topo[k] / 2 && knee <= topo[k] * 2) {
			out[k] = topo[k];
			origin[k] = CALIB_ORIGIN_TOPO;
		} else {
			out[k] = knee;
			origin[k] = CALIB_ORIGIN_MEASURED;
			calib_fmt_size(topo[k], a, sizeof(a));
			calib_fmt_size(knee, b, sizeof(b));
			used += (size_t)snprintf(note + used, used < notelen ? notelen - used : 0,
				"%s%s: the topology says %s, the latency curve %s; using %s",
				used ? "; " : "", calib_level_name(k), topo[k] ? a : "nothing", b, b);
		}
		prev = out[k];
		gone = i >= n; /* the curve never left this level */
	}
	if (used >= notelen && notelen)
		note[notelen - 1] = '\0';
}

/* Whether a cache level of the topology's was not found at its size. */
static int calib_disagrees(const uint64_t topo[CALIB_CACHE_LEVELS],
			   const int origin[CALIB_CACHE_LEVELS])
{
	for (int k = 0; k < CALIB_CACHE_LEVELS; k++)
		if (topo[k] && origin[k] != CALIB_ORIGIN_TOPO)
			return 1;
	return 0;
}

/* ---- memory ---- */

/* bytes on node (-1: the default policy), huge pages if the kernel
 * gives them (fewer TLB misses blur the levels less, and the streams'
 * prefetch does not stop every 4 KiB: DRAM reads faster), touched now so
 * that no page fault lands in a measurement. */
static void *calib_alloc(size_t bytes, int node)
{
	void *p;

	if (node >= 0 && numa_available() >= 0) {
		p = numa_alloc_onnode(bytes, node);
	} else {
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	}
	if (!p)
		return NULL;
	/* CDT_CALIB_NO_HUGEPAGES=1: 4 KiB pages, as a peer without huge
	 * pages has (tests/e2e/membound_likwid.sh). */
	(void)madvise(p, bytes, getenv("CDT_CALIB_NO_HUGEPAGES") ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
	memset(p, 1, bytes);
	return p;
}

static void calib_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}

/* ---- one core ---- */

struct ctx {
	struct calib_kern k;
	int reps, level_reps; /* sweep; a level's bandwidth (and all cores') */
	uint64_t min_ns;
	size_t loads, probes;
	uint64_t seed;
	double tsc_hz;
};

static double bw_best(const struct ctx *x, int write, void *buf, size_t bytes)
{
	size_t batch = bytes >= (1u << 20) ? 1 : (1u << 20) / bytes;
	double best = 0;

	if (write)
		x->k.wr(buf, bytes, 1, 2);
	else
		calib_sink += x->k.rd(buf, bytes, 1);
	for (int r = 0; r < x->reps; r++) {
		uint64_t t0 = now_ns(), t, done = 0;

		do {
			if (write)
				x->k.wr(buf, bytes, batch, (uint64_t)r);
			else
				calib_sink += x->k.rd(buf, bytes, batch);
			done += batch;
		} while ((t = now_ns() - t0) < x->min_ns);
		if ((double)done * (double)bytes / (double)t * 1e9 > best)
			best = (double)done * (double)bytes / (double)t * 1e9;
	}
	return best;
}

/* ns per load of fn on a fresh random cycle through buf; -1: ENOMEM. */
static double lat_best(struct ctx *x, void *buf, size_t bytes, void *(*fn)(void *, size_t),
		       size_t loads)
{
	void *p = calib_chase_build(buf, bytes, &x->seed);
	double best = INFINITY;
	size_t warm;

	if (!p)
		return -1;
	calib_sink += x->k.rd(buf, bytes, 1); /* warm: the lines are where they live */
	warm = bytes / CALIB_LINE < loads ? bytes / CALIB_LINE : loads;
	p = fn(p, (warm + 7) / 8 * 8);
	for (int r = 0; r < x->reps; r++) {
		uint64_t t0 = now_ns(), t;

		p = fn(p, loads);
		t = now_ns() - t0;
		if ((double)t / (double)loads < best)
			best = (double)t / (double)loads;
	}
	calib_sink += (uintptr_t)p;
	return best;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * mb_probe() less its floor on random lines of buf resident at the level:
 * after a sequential pass, the first quarter of the buffer has been pushed
 * out of the levels above by the rest (L1: all of it stays), and 32
 * distinct random lines of it are probed before the next pass.  DRAM's
 * buffer is many times the LLC and needs no pass.
 */
static int probe_dist(struct ctx *x, struct calib_level *L, int level, void *buf, size_t bytes)
{
	uint64_t *v = malloc(x->probes * sizeof(*v)), floor = UINT64_MAX;
	size_t nl = bytes / CALIB_LINE, region = level == MB_L1 || level >= MB_DRAM ? nl : nl / 4;

	if (!v)
		return -ENOMEM;
	if (!region)
		region = 1;
	for (int r = 0; r < 8; r++) {
		uint64_t f = mb_probe_floor(buf, 200);

		if (f < floor)
			floor = f;
	}
	for (size_t i = 0; i < x->probes; i++) {
		uint64_t t;

		if (level < MB_DRAM && i % 32 == 0)
			calib_sink += x->k.rd(buf, bytes, 1);
		t = mb_probe((const char *)buf + calib_rand(&x->seed) % region * CALIB_LINE);
		v[i] = t > floor ? t - floor : 0;
	}
	qsort(v, x->probes, sizeof(*v), cmp_u64);
	L->probe_p10 = v[x->probes / 10];
	L->probe_p50 = v[x->probes / 2];
	L->probe_p90 = v[x->probes * 9 / 10];
	L->probe_ns_p50 = (double)L->probe_p50 / x->tsc_hz * 1e9;
	free(v);
	return 0;
}

/* One core's figures of a level on buf (work bytes). */
static int level_one_core(struct ctx *x, struct calib_level *L, int level, void *buf, size_t work)
{
	size_t few = x->loads / 4;
	double lat, ind, chn;
	int r, reps = x->reps;

	x->reps = x->level_reps;
	L->rd_bw1 = bw_best(x, 0, buf, work);
	L->wr_bw1 = bw_best(x, 1, buf, work);
	x->reps = reps;
	lat = lat_best(x, buf, work, calib_chase, x->loads);
	ind = lat_best(x, buf, work, calib_chase_indep, few);
	chn = lat_best(x, buf, work, calib_chase_chain, few);
	if (lat < 0 || ind < 0 || chn < 0)
		return -ENOMEM;
	L->lat_ns = lat;
	L->ops_ns_indep = ind;
	L->ops_ns_chain = chn;
	r = probe_dist(x, L, level, buf, work);
	return r;
}

/* ---- all cores of a socket ---- */

struct mt_shared {
	pthread_barrier_t bar;
	atomic_int go; /* 0: wait, 1: all threads exist, -1: give up */
	const struct ctx *x;
	size_t bytes, passes[2];
	int node;
};

struct mt_thread {
	pthread_t th;
	struct mt_shared *sh;
	uint64_t t0[2][MAX_REPS], t1[2][MAX_REPS];
	int err;
};

static void *mt_main(void *arg)
{
	struct mt_thread *me = arg;
	struct mt_shared *sh = me->sh;
	void *buf = NULL;
	int go;

	/* The barrier counts every thread: it is used only once all exist. */
	while (!(go = atomic_load(&sh->go)))
		sched_yield();
	if (go < 0)
		return NULL;
	buf = calib_alloc(sh->bytes, sh->node);
	if (!buf)
		me->err = ENOMEM;
	else
		calib_sink += sh->x->k.rd(buf, sh->bytes, 1);
	/* Everyone goes through every barrier, a failed thread too. */
	for (int r = 0; r < sh->x->level_reps; r++) {
		for (int w = 0; w < 2; w++) {
			pthread_barrier_wait(&sh->bar);
			me->t0[w][r] = now_ns();
			if (buf && w)
				sh->x->k.wr(buf, sh->bytes, sh->passes[w], (uint64_t)r);
			else if (buf)
				calib_sink += sh->x->k.rd(buf, sh->bytes, sh->passes[w]);
			me->t1[w][r] = now_ns();
		}
	}
	calib_free(buf, sh->bytes);
	return NULL;
}

/* Aggregate read and write bandwidth of n threads on cpus[], each on its
 * own buffer of bytes on node, started together: all bytes over the time
 * from the first start to the last end. */
static int level_all_cores(const struct ctx *x, struct calib_level *L, const int *cpus, unsigned n,
			   size_t bytes, int node)
{
	struct mt_shared sh = { .x = x, .bytes = bytes, .node = node };
	struct mt_thread *t = calloc(n, sizeof(*t));
	unsigned started = 0;
	int r = 0, bar = 0;

	if (!t) {
		fprintf(stderr, MSG "all cores: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	atomic_init(&sh.go, 0);
	/* Passes for about min_ns at one core's speed. */
	sh.passes[0] = (size_t)(L->rd_bw1 * (double)x->min_ns / 1e9 / (double)bytes) + 1;
	sh.passes[1] = (size_t)(L->wr_bw1 * (double)x->min_ns / 1e9 / (double)bytes) + 1;
	if ((r = -pthread_barrier_init(&sh.bar, NULL, n))) {
		fprintf(stderr, MSG "all cores: pthread_barrier_init: %s\n", strerror(-r));
		goto out;
	}
	bar = 1;
	for (; started < n; started++) {
		pthread_attr_t a;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpus[started], &set);
		t[started].sh = &sh;
		pthread_attr_init(&a);
		pthread_attr_setaffinity_np(&a, sizeof(set), &set);
		r = -pthread_create(&t[started].th, &a, mt_main, &t[started]);
		pthread_attr_destroy(&a);
		if (r) {
			fprintf(stderr, MSG "all cores: pthread_create pinned to CPU %d: %s\n",
				cpus[started], strerror(-r));
			break;
		}
	}
	atomic_store(&sh.go, r ? -1 : 1);
	for (unsigned i = 0; i < started; i++) {
		pthread_join(t[i].th, NULL);
		if (t[i].err && !r) {
			r = -t[i].err;
			fprintf(stderr, MSG "all cores: %zu bytes on node %d for thread %u: %s\n",
				bytes, node, i, strerror(t[i].err));
		}
	}
	for (int w = 0; w < 2 && !r; w++) {
		double best = 0;

		for (int k = 0; k < x->level_reps; k++) {
			uint64_t a = UINT64_MAX, b = 0;

			for (unsigned i = 0; i < n; i++) {
				a = t[i].t0[w][k] < a ? t[i].t0[w][k] : a;
				b = t[i].t1[w][k] > b ? t[i].t1[w][k] : b;
			}
			if (b > a) {
				double bw = (double)n * (double)sh.passes[w] * (double)bytes /
					    (double)(b - a) * 1e9;
				best = bw > best ? bw : best;
			}
		}
		*(w ? &L->wr_bwN : &L->rd_bwN) = best;
	}
out:
	if (bar)
		pthread_barrier_destroy(&sh.bar);
	free(t);
	return r;
}

/* ---- the run ---- */

static double tsc_rate(uint64_t ns)
{
	uint64_t t0 = now_ns(), c0 = __rdtsc(), t1, c1;

	while ((t1 = now_ns()) - t0 < ns)
		;
	c1 = __rdtsc();
	return (double)(c1 - c0) / (double)(t1 - t0) * 1e9;
}

/* One CPU of each core of the first socket, in CPU order. */
static int socket_cpus(int **cpus, unsigned *n)
{
	struct topo t;
	int r = topo_read(&t), *c = NULL;
	unsigned k = 0;

	if (r < 0) {
		fprintf(stderr, MSG "reading the topology: %s\n", strerror(-r));
		return r;
	}
	c = calloc((size_t)t.ncpus, sizeof(*c));
	if (!c) {
		r = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < t.ncpus; i++) {
		int dup = 0;

		if (t.cpus[i].socket != t.cpus[0].socket)
			continue;
		for (int j = 0; j < i; j++)
			dup |= t.cpus[j].core == t.cpus[i].core;
		if (!dup)
			c[k++] = t.cpus[i].cpu;
	}
	*cpus = c;
	*n = k;
	c = NULL;
out:
	free(c);
	topo_free(&t);
	return r;
}

static void cpu_name(char *buf, size_t len)
{
	unsigned int r[12];

	buf[0] = '\0';
	if (__get_cpuid_max(0x80000000, NULL) >= 0x80000004) {
		char s[49], *p = s;
		size_t e;

		for (unsigned i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
		memcpy(s, r, 48);
		s[48] = '\0';
		while (*p == ' ')
			p++;
		e = strlen(p);
		while (e && p[e - 1] == ' ')
			p[--e] = '\0';
		snprintf(buf, len, "%s", p);
	}
	if (!buf[0])
		snprintf(buf, len, "unknown");
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs(MSG, stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

int calib_run(struct calib *c, int quick, unsigned threads)
{
	struct ctx x = { .reps = quick ? REPS_QUICK : REPS_FULL,
			 .level_reps = quick ? LEVEL_REPS_QUICK : LEVEL_REPS_FULL,
			 .min_ns = quick ? MIN_NS_QUICK : MIN_NS_FULL,
			 .loads = quick ? LOADS_QUICK : LOADS_FULL,
			 .probes = quick ? PROBES_QUICK : PROBES_FULL,
			 .seed = 0x9e3779b97f4a7c15ull };
	uint64_t topo[CALIB_CACHE_LEVELS], sizes[CALIB_MAX_POINTS], want, t_start = now_ns();
	uint64_t found[CALIB_CACHE_LEVELS];
	double lats[CALIB_MAX_POINTS];
	int origin[CALIB_CACHE_LEVELS], *cpus = NULL, node = -1, rnode = -1, r, pinned = 0;
	unsigned ncores = 0;
	cpu_set_t old, one;
	void *buf = NULL, *rbuf = NULL;
	size_t n = 0, rbytes = 0, cap = 0, note0;
	long avail = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	char a[32], b[32];

	memset(c, 0, sizeof(*c));
	c->version = CALIB_VERSION;
	c->quick = !!quick;
	c->time = (int64_t)time(NULL);
	if ((r = calib_key(c->key, sizeof(c->key))) < 0) {
		fprintf(stderr, MSG "the machine's key (topology): %s\n", strerror(-r));
		goto out;
	}
	cpu_name(c->cpu, sizeof(c->cpu));
	calib_kern_pick(&x.k, getenv("CDT_CALIB_SSE2") != NULL);
	snprintf(c->isa, sizeof(c->isa), "%s", x.k.isa);
	if ((r = socket_cpus(&cpus, &ncores)) < 0)
		goto out;
	if (threads > ncores) {
		fprintf(stderr, MSG "--threads %u: the first socket has %u cores\n", threads, ncores);
		r = -EINVAL;
		goto out;
	}
	c->nthreads = threads ? threads : ncores;

	/* Everything single-core runs on the socket's first CPU. */
	if (sched_getaffinity(0, sizeof(old), &old) < 0) {
		r = -errno;
		fprintf(stderr, MSG "sched_getaffinity: %s\n", strerror(errno));
		goto out;
	}
	CPU_ZERO(&one);
	CPU_SET(cpus[0], &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0) {
		r = -errno;
		fprintf(stderr, MSG "pinning to CPU %d: %s\n", cpus[0], strerror(errno));
		goto out;
	}
	pinned = 1;
	if (numa_available() >= 0) {
		node = numa_node_of_cpu(cpus[0]);
		for (int i = 0; i <= numa_max_node() && rnode < 0; i++)
			if (i != node && numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)i) &&
			    numa_node_size64(i, NULL) > 0)
				rnode = i;
	}

	x.tsc_hz = c->tsc_hz = tsc_rate(quick ? 20000000 : 100000000);
	calib_topo_caches(topo);

	/* The sweep's end: 10x the LLC the topology claims, capped. */
	want = 10 * (topo[2] ? topo[2] : topo[1] ? topo[1] * 4 : 8ull << 20);
	cap = quick ? CAP_QUICK : CAP_FULL;
	if (avail > 0 && page > 0 && (uint64_t)avail * (uint64_t)page / 4 < cap)
		cap = (uint64_t)avail * (uint64_t)page / 4;
	for (uint64_t s = SWEEP_MIN; n < CALIB_MAX_POINTS;) {
		if (s > cap)
			break;
		sizes[n++] = s;
		if (s >= want)
			break;
		/* 2^(1/2) steps: 16K 24K 32K 48K ... (quick: doublings) */
		if (s & (s - 1))
			s = s / 3 * 4;
		else
			s = quick ? s * 2 : s / 2 * 3;
	}
	if (n < 4) {
		r = -ENOMEM;
		fprintf(stderr, MSG "only %zu bytes free: too little to calibrate\n", (size_t)cap);
		goto out;
	}
	cap = sizes[n - 1];
	if (cap < want) {
		calib_fmt_size(want, a, sizeof(a));
		calib_fmt_size(cap, b, sizeof(b));
		snprintf(c->note, sizeof(c->note), "sweep capped at %s (10x the topology's LLC is %s)",
			 b, a);
	}
	buf = calib_alloc(cap, node);
	if (!buf) {
		r = -ENOMEM;
		calib_fmt_size(cap, a, sizeof(a));
		fprintf(stderr, MSG "allocating %s on node %d: %s\n", a, node, strerror(ENOMEM));
		goto out;
	}
	calib_fmt_size(sizes[0], a, sizeof(a));
	calib_fmt_size(cap, b, sizeof(b));
	progress("calibrating%s with %s kernels: %zu sizes from %s to %s on CPU %d\n",
		 quick ? " (quick)" : "", x.k.isa, n, a, b, cpus[0]);
	for (size_t i = 0; i < n; i++) {
		struct calib_point *p = &c->pt[i];

		p->size = sizes[i];
		p->rd_bw = bw_best(&x, 0, buf, sizes[i]);
		p->wr_bw = bw_best(&x, 1, buf, sizes[i]);
		p->lat_ns = lats[i] = lat_best(&x, buf, sizes[i], calib_chase, x.loads);
		if (p->lat_ns < 0) {
			r = -ENOMEM;
			fprintf(stderr, MSG "the chase's permutation: %s\n", strerror(ENOMEM));
			goto out;
		}
	}
	c->npoints = n;

	note0 = strlen(c->note);
	calib_levels_detect(sizes, lats, n, topo, found, origin,
			    c->note, sizeof(c->note));
	/* A second look where the curve and the topology disagree: a run
	 * slowed down only ever reads higher, and this VM runs up to 1.5x
	 * slower for seconds at a time, enough to lift an L1's own latency
	 * over half of L2's (under stress-ng a quick calibration found an
	 * L1 of 512 KiB).  Each size keeps the lower of its two latencies. */
	if (calib_disagrees(topo, origin)) {
		progress("the latency curve and the topology disagree: measuring the curve again\n");
		for (size_t i = 0; i < n; i++) {
			double l = lat_best(&x, buf, sizes[i], calib_chase, x.loads);

			if (l < 0) {
				r = -ENOMEM;
				fprintf(stderr, MSG "the chase's permutation: %s\n", strerror(ENOMEM));
				goto out;
			}
			if (l < lats[i])
				c->pt[i].lat_ns = lats[i] = l;
		}
		c->note[note0] = '\0';
		calib_levels_detect(sizes, lats, n, topo, found, origin, c->note, sizeof(c->note));
	}
	for (int k = 0; k < CALIB_CACHE_LEVELS; k++) {
		struct calib_level *L = &c->lvl[k];

		L->topo_size = topo[k];
		L->size = found[k];
		L->origin = origin[k];
		/* Half the level, but at least twice the level above (which
		 * must not hold it) and at most the level: an L3 found at 2 MiB
		 * under a 1 MiB L2 is measured at 2 MiB, not at the L2's size. */
		L->work = found[k] / 2;
		if (k > 0 && L->work < 2 * found[k - 1])
			L->work = 2 * found[k - 1];
		if (L->work > found[k])
			L->work = found[k];
		L->work = L->work / 512 * 512;
		if (L->work > cap)
			L->work = cap;
		if (origin[k] != CALIB_ORIGIN_NONE) {
			calib_fmt_size(found[k], a, sizeof(a));
			progress("%s: %s (%s)\n", calib_level_name(k), a, calib_origin_name(origin[k]));
		}
	}
	if (c->note[0])
		progress("%s\n", c->note);
	c->lvl[MB_DRAM].work = cap;
	c->lvl[MB_DRAM].origin = CALIB_ORIGIN_SWEEP;

	for (int k = 0; k <= MB_DRAM; k++) {
		struct calib_level *L = &c->lvl[k];

		if (!L->work)
			continue;
		calib_fmt_size(L->work, a, sizeof(a));
		progress("%s: %s buffer, 1 and %u cores\n", calib_level_name(k), a, c->nthreads);
		if ((r = level_one_core(&x, L, k, buf, L->work)) < 0)
			goto out;
		/* A shared level or memory is split among the threads. */
		if ((r = level_all_cores(&x, L, cpus, c->nthreads,
					 k >= MB_L3 ? L->work / c->nthreads / 512 * 512 : L->work,
					 node)) < 0)
			goto out;
	}
	{
		uint64_t t0 = now_ns();
		size_t ops = x.loads / 4;

		calib_sink += calib_ops_alone(3, ops);
		c->ops_ns_alone = (double)(now_ns() - t0) / (double)ops;
	}
	if (rnode >= 0) {
		struct calib_level *L = &c->lvl[MB_RDRAM];

		rbytes = cap;
		rbuf = calib_alloc(rbytes, rnode);
		if (!rbuf) {
			r = -ENOMEM;
			calib_fmt_size(rbytes, a, sizeof(a));
			fprintf(stderr, MSG "allocating %s on node %d: %s\n", a, rnode, strerror(ENOMEM));
			goto out;
		}
		L->work = rbytes;
		L->origin = CALIB_ORIGIN_SWEEP;
		progress("remote DRAM (node %d from CPU %d)\n", rnode, cpus[0]);
		if ((r = level_one_core(&x, L, MB_RDRAM, rbuf, rbytes)) < 0)
			goto out;
		if ((r = level_all_cores(&x, L, cpus, c->nthreads,
					 rbytes / c->nthreads / 512 * 512, rnode)) < 0)
			goto out;
	} else {
		progress("remote DRAM: not measured (one NUMA node)\n");
	}
	calib_events_host(c);
	progress("calibrated in %.1f s\n", (double)(now_ns() - t_start) / 1e9);
	r = 0;
out:
	calib_free(buf, cap);
	calib_free(rbuf, rbytes);
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	free(cpus);
	return r;
}
