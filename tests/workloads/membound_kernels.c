// SPDX-License-Identifier: GPL-2.0-only
/*
 * membound_kernels: the calibration's kinds of kernel as a program to
 * profile, each with a known answer for cdt membound.
 *
 *   membound_kernels MODE [-s BYTES] [-d SECONDS] [-t THREADS] [-T TRUTH]
 *
 *   compute  a dependency chain of multiplies and adds in registers, with
 *            one load of a 4 KiB table per 16 operations: not memory bound
 *   read     sequential loads (AVX2 or SSE2) over a buffer of -s bytes, again and
 *            again: bandwidth bound at the level that holds -s bytes
 *   chase    a pointer chase through the lines of -s bytes in a random
 *            cyclic order: latency bound at the level that holds them
 *   phases   compute for half of -d, then read over -s: two phases
 *
 * Each thread runs the kernel for -d seconds (default 2) on its own buffer.
 * -T writes the truth: a line "phase NAME START_NS END_NS" per phase of
 * thread 0 (CLOCK_MONOTONIC, as cdt's sample times), then "rate NAME
 * VALUE UNIT" (GB/s read, or ns per load).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct job {
	const char *mode;
	size_t bytes;
	double secs;
	int index;
	uint64_t start, mid, end;
	double rate;     /* GB/s (read) or ns per load (chase) */
	double sink;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef double v4d __attribute__((vector_size(32)));

/* noipa: each call is made, not hoisted as a pure function's. */

/*
 * One pass of loads over buf: eight sums so the loads are independent
 * (bandwidth, not the adds, is the limit), in the widest vectors the CPU
 * has, as the calibration's read kernel: a stream of this shape is what
 * the calibrated peak measures.  16 loads a step, each folded into its
 * add: the loop's own three instructions are a sixth of it (with 8, a
 * quarter, and an L2 read's samples, spread evenly there, put 62 to 89%
 * of its time at memory instructions against the estimate's 70%).  Without AVX a 32-byte vector is two
 * halves that GCC keeps on the stack, and the spills halved the rate
 * (6.3 GB/s from DRAM here, against the calibrated 12.5): so SSE2 reads
 * 16 bytes at a time.
 */
typedef double v2d __attribute__((vector_size(16)));

#define READ_PASS(name, vec, attr)                                                        \
	static __attribute__((noipa)) attr double name(const void *buf, size_t bytes)     \
	{                                                                                 \
		const vec *p = buf;                                                       \
		vec a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 }, f = { 0 },     \
		    g = { 0 }, h = { 0 };                                                 \
		size_t n = bytes / sizeof(vec);                                           \
                                                                                          \
		for (size_t i = 0; i + 16 <= n; i += 16) {                                \
			a += p[i];                                                        \
			b += p[i + 1];                                                    \
			c += p[i + 2];                                                    \
			d += p[i + 3];                                                    \
			e += p[i + 4];                                                    \
			f += p[i + 5];                                                    \
			g += p[i + 6];                                                    \
			h += p[i + 7];                                                    \
			a += p[i + 8];                                                    \
			b += p[i + 9];                                                    \
			c += p[i + 10];                                                   \
			d += p[i + 11];                                                   \
			e += p[i + 12];                                                   \
			f += p[i + 13];                                                   \
			g += p[i + 14];                                                   \
			h += p[i + 15];                                                   \
		}                                                                         \
		a += b + c + d + e + f + g + h;                                           \
		return a[0] + a[1];                                                       \
	}

READ_PASS(read_sse2, v2d, )
READ_PASS(read_avx2, v4d, __attribute__((target("avx2"))))

static double read_pass(const v4d *buf, size_t n)
{
	static int avx2 = -1;

	if (avx2 < 0)
		avx2 = __builtin_cpu_supports("avx2");
	return avx2 ? read_avx2(buf, n * sizeof(v4d)) : read_sse2(buf, n * sizeof(v4d));
}

static __attribute__((noipa)) void **chase_run(void **p, long steps)
{
	while (steps--)
		p = (void **)*p;
	return p;
}

static __attribute__((noipa)) double compute_run(const double *table, long rounds)
{
	double x = 1.0, y = 0.5;

	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < 16; k++) {
			x = x * 1.0000001 + y;
			y = y * 0.9999999 - x * 1e-9;
		}
		x += table[r & 511];
	}
	return x + y;
}

static double run_compute(struct job *j, uint64_t until)
{
	static double table[512];
	double s = 0;

	(void)j;
	for (int i = 0; i < 512; i++)
		table[i] = i * 1e-12;
	while (now_ns() < until)
		s += compute_run(table, 20000);
	return s;
}

/* The read buffer, written once before any phase is timed. */
static v4d *read_setup(size_t bytes, size_t *n)
{
	v4d *buf;

	*n = bytes / sizeof(v4d);
	buf = aligned_alloc(64, *n * sizeof(v4d));
	if (!buf) {
		perror("membound_kernels: aligned_alloc");
		exit(1);
	}
	for (size_t i = 0; i < *n; i++)
		buf[i] = (v4d){ 1e-9, 2e-9, 3e-9, (double)i * 1e-12 };
	return buf;
}

static double run_read(struct job *j, const v4d *buf, size_t n, uint64_t until)
{
	uint64_t t0 = now_ns(), passes = 0;
	double s = 0;

	while (now_ns() < until) {
		/* Small buffers take many passes between clock reads. */
		for (size_t k = 0; k < 1 + (1u << 20) / (n + 1); k++, passes++)
			s += read_pass(buf, n);
	}
	j->rate = (double)passes * (double)(n * sizeof(v4d)) / (double)(now_ns() - t0);
	return s;
}

/* The lines of bytes in one random cycle. */
static void **chase_setup(size_t bytes, int index)
{
	size_t n = bytes / 64, *perm = malloc(n * sizeof(size_t));
	char *buf = aligned_alloc(64, n * 64);
	unsigned seed = 12345u + (unsigned)index;

	if (!buf || !perm || n < 2) {
		fprintf(stderr, "membound_kernels: chase needs -s of two lines or more\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t k = (size_t)rand_r(&seed) % (i + 1), x = perm[i];

		perm[i] = perm[k];
		perm[k] = x;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + perm[i] * 64) = buf + perm[(i + 1) % n] * 64;
	free(perm);
	return (void **)buf;
}

static void run_chase(struct job *j, void **p, uint64_t until)
{
	uint64_t t0 = now_ns(), loads = 0;

	while (now_ns() < until) {
		p = chase_run(p, 100000);
		loads += 100000;
	}
	j->rate = (double)(now_ns() - t0) / (double)(loads ? loads : 1);
	j->sink = (double)(uintptr_t)p;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	uint64_t len = (uint64_t)(j->secs * 1e9);
	void **chain = NULL;
	v4d *buf = NULL;
	size_t n = 0;

	/* Buffers are made before the clock starts: their page faults and
	 * first writes are not part of any phase. */
	if (!strcmp(j->mode, "chase"))
		chain = chase_setup(j->bytes, j->index);
	else if (strcmp(j->mode, "compute"))
		buf = read_setup(j->bytes, &n);
	j->start = now_ns();
	if (!strcmp(j->mode, "compute")) {
		j->sink = run_compute(j, j->start + len);
	} else if (!strcmp(j->mode, "read")) {
		j->sink = run_read(j, buf, n, j->start + len);
	} else if (!strcmp(j->mode, "chase")) {
		run_chase(j, chain, j->start + len);
	} else {
		j->sink = run_compute(j, j->start + len / 2);
		j->mid = now_ns();
		j->sink += run_read(j, buf, n, j->start + len);
	}
	j->end = now_ns();
	free(buf);
	free(chain);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: membound_kernels compute|read|chase|phases [-s BYTES] "
		"[-d SECONDS] [-t THREADS] [-T TRUTH]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *truth = NULL;
	size_t bytes = 256u << 20;
	double secs = 2;
	int threads = 1, c;
	struct job *jobs;
	pthread_t *tid;
	FILE *f;

	if (argc < 2 || (strcmp(argv[1], "compute") && strcmp(argv[1], "read") &&
			 strcmp(argv[1], "chase") && strcmp(argv[1], "phases")))
		usage();
	optind = 2;
	while ((c = getopt(argc, argv, "s:d:t:T:")) != -1) {
		switch (c) {
		case 's': bytes = strtoull(optarg, NULL, 0); break;
		case 'd': secs = atof(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'T': truth = optarg; break;
		default: usage();
		}
	}
	if (threads < 1 || threads > 64 || secs <= 0 || bytes < 4096)
		usage();
	jobs = calloc((size_t)threads, sizeof(*jobs));
	tid = calloc((size_t)threads, sizeof(*tid));
	if (!jobs || !tid)
		return 1;
	for (int i = 0; i < threads; i++) {
		jobs[i] = (struct job){ .mode = argv[1], .bytes = bytes, .secs = secs, .index = i };
		if (pthread_create(&tid[i], NULL, worker, &jobs[i]))
			return 1;
	}
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	if (truth) {
		if (!(f = fopen(truth, "w")))
			return 1;
		if (!strcmp(argv[1], "phases")) {
			fprintf(f, "phase compute %llu %llu\n", (unsigned long long)jobs[0].start,
				(unsigned long long)jobs[0].mid);
			fprintf(f, "phase read %llu %llu\n", (unsigned long long)jobs[0].mid,
				(unsigned long long)jobs[0].end);
		} else {
			fprintf(f, "phase %s %llu %llu\n", argv[1], (unsigned long long)jobs[0].start,
				(unsigned long long)jobs[0].end);
		}
		for (int i = 0; i < threads; i++)
			if (jobs[i].rate > 0)
				fprintf(f, "rate %s %.3f %s\n", argv[1], jobs[i].rate,
					strcmp(argv[1], "chase") ? "GB/s" : "ns/load");
		if (fclose(f))
			return 1;
	}
	free(jobs);
	free(tid);
	return 0;
}
