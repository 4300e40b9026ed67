/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * numa_jacobi: the paper's Jacobi case, a 5-point stencil over two heap
 * grids, each worker sweeping its own band of rows.
 *
 * Ground truth:
 *   --init main       the main thread (cdt thread 0) writes both grids
 *                     before any worker starts: it first-touches every
 *                     page of `grid` and `next`, so on a NUMA machine
 *                     they all land on the main thread's node, and the
 *                     workers on other nodes read and write remote memory;
 *   --init parallel   each worker writes its own band first: every page
 *                     lands on the node of the worker that uses it, and
 *                     only the band edges (one row each side) are shared.
 * Workers are created one at a time, each only after the previous one
 * has started running, so cdt thread k is worker k (k = 1..T), and the
 * order threads start is the order they were created (--bind relies on
 * it, and --predict assumes it).
 *
 * With --report each thread prints "thread K cpu C allowed N pages node0
 * A node1 B other C" on stderr as it starts computing: sched_getcpu, the
 * size of its affinity mask (which a test compares with what --bind
 * promised) and where the kernel put the pages of its band of both grids
 * (all rows for the main thread), from move_pages: the ground truth of
 * placement.
 *
 * Usage: numa_jacobi [-t WORKERS] [-n ROWS] [-c COLS] [-s SECONDS | -N SWEEPS]
 *                    [--init main|parallel] [--report]
 * -N makes the work fixed (for benchmarks): SWEEPS sweeps, however long.
 * Prints one summary line on stdout; exit 0, 2 on bad usage.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 64

static int nworkers = 4, rows = 512, cols = 1024, parallel_init, report;
static double seconds = 1.0;
static long max_sweeps; /* -N: stop after this many sweeps (fixed work) */
static double *grid, *next;
static pthread_barrier_t bar;
static atomic_int started;
static atomic_int stop;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Rows [lo, hi) of worker k (1-based) of nworkers, the inner rows only. */
static void band(int k, int *lo, int *hi)
{
	int inner = rows - 2;

	*lo = 1 + inner * (k - 1) / nworkers;
	*hi = 1 + inner * k / nworkers;
}

static void init_rows(int lo, int hi)
{
	for (int i = lo; i < hi; i++)
		for (int j = 0; j < cols; j++) {
			grid[(size_t)i * cols + j] = (i == 0 || j == 0) ? 1.0 : 0.0;
			next[(size_t)i * cols + j] = grid[(size_t)i * cols + j];
		}
}

/* How many pages of rows [lo, hi) of both grids are on nodes 0 and 1,
 * as the kernel says (move_pages in query mode). */
static void pages_on(int lo, int hi, int on[3])
{
	double *g[2] = { grid, next };

	on[0] = on[1] = on[2] = 0;
	for (int k = 0; k < 2; k++)
		for (size_t off = (size_t)lo * cols * 8; off < (size_t)hi * cols * 8; off += 4096) {
			void *pg = (void *)(((uintptr_t)g[k] + off) & ~(uintptr_t)4095);
			int st = -1;

			if (syscall(SYS_move_pages, 0, 1UL, &pg, NULL, &st, 0) == 0 && st >= 0 &&
			    st < 2)
				on[st]++;
			else
				on[2]++;
		}
}

static void report_cpu(int k)
{
	cpu_set_t set;
	int lo = 0, hi = rows, on[3];

	if (!report)
		return;
	if (k)
		band(k, &lo, &hi);
	pages_on(lo, hi, on);
	sched_getaffinity(0, sizeof(set), &set);
	fprintf(stderr, "thread %d cpu %d allowed %d pages node0 %d node1 %d other %d\n", k,
		sched_getcpu(), CPU_COUNT(&set), on[0], on[1], on[2]);
}

static void *worker(void *arg)
{
	int k = (int)(intptr_t)arg, lo, hi;
	long sweeps = 0;
	double *a = grid, *b = next;

	atomic_store(&started, k);
	band(k, &lo, &hi);
	if (parallel_init) {
		/* Edge rows 0 and rows-1 go with the first and last band. */
		init_rows(k == 1 ? 0 : lo, k == nworkers ? rows : hi);
	}
	pthread_barrier_wait(&bar);
	report_cpu(k);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int i = lo; i < hi; i++)
			for (int j = 1; j < cols - 1; j++)
				b[(size_t)i * cols + j] = 0.25 * (a[(size_t)(i - 1) * cols + j] +
								  a[(size_t)(i + 1) * cols + j] +
								  a[(size_t)i * cols + j - 1] +
								  a[(size_t)i * cols + j + 1]);
		double *t = a;
		a = b;
		b = t;
		sweeps++;
		/* Every worker finishes a sweep before any reads it; between
		 * the two waits the main thread decides whether to stop. */
		pthread_barrier_wait(&bar);
		pthread_barrier_wait(&bar);
	}
	return (void *)(intptr_t)sweeps;
}

static int usage(void)
{
	fprintf(stderr, "usage: numa_jacobi [-t WORKERS 1..%d] [-n ROWS] [-c COLS] "
		"[-s SECONDS | -N SWEEPS] [--init main|parallel] [--report]\n", MAX_WORKERS);
	return 2;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_WORKERS];
	long sweeps = 0;
	double t0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nworkers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			rows = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			cols = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "-N") && i + 1 < argc)
			max_sweeps = atol(argv[++i]);
		else if (!strcmp(argv[i], "--init") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "parallel"))
				parallel_init = 1;
			else if (strcmp(argv[i], "main"))
				return usage();
		} else if (!strcmp(argv[i], "--report"))
			report = 1;
		else
			return usage();
	}
	if (nworkers < 1 || nworkers > MAX_WORKERS || rows < nworkers + 2 || cols < 3 ||
	    seconds <= 0 || max_sweeps < 0)
		return usage();
	grid = malloc((size_t)rows * cols * sizeof(double)); /* ALLOC_GRID */
	next = malloc((size_t)rows * cols * sizeof(double)); /* ALLOC_NEXT */
	if (!grid || !next) {
		perror("numa_jacobi: malloc");
		return 1;
	}
	if (!parallel_init)
		init_rows(0, rows);
	report_cpu(0);
	pthread_barrier_init(&bar, NULL, (unsigned)nworkers + 1);
	for (int k = 1; k <= nworkers; k++) {
		if (pthread_create(&th[k - 1], NULL, worker, (void *)(intptr_t)k)) {
			perror("numa_jacobi: pthread_create");
			return 1;
		}
		while (atomic_load(&started) != k)
			sched_yield();
	}
	/* The main thread only paces the sweeps: it touches no grid. */
	pthread_barrier_wait(&bar);
	t0 = now();
	for (;;) {
		pthread_barrier_wait(&bar);
		sweeps++;
		if (max_sweeps ? sweeps >= max_sweeps : now() - t0 >= seconds)
			atomic_store(&stop, 1);
		pthread_barrier_wait(&bar);
		if (atomic_load(&stop))
			break;
	}
	sweeps = 0;
	for (int k = 0; k < nworkers; k++) {
		void *r;

		pthread_join(th[k], &r);
		sweeps += (long)(intptr_t)r;
	}
	printf("numa_jacobi: workers=%d rows=%d cols=%d init=%s sweeps=%ld\n", nworkers, rows,
	       cols, parallel_init ? "parallel" : "main", sweeps);
	free(grid);
	free(next);
	return 0;
}
