// SPDX-License-Identifier: GPL-2.0-only
/*
 * threads: N worker threads plus the main thread, each doing memory work
 * on an array of its own.  Ground truth for per-thread attribution.
 *
 *   threads N [SECONDS]   N workers (1..1024) and the main thread all wait
 *                         at a barrier, so all N+1 are alive at once, then
 *                         each does about SECONDS (default 1) of CPU work:
 *                         a fixed number of passes, so the work is the
 *                         same with or without a profiler
 *   threads --short N     N short-lived workers, 8 alive at a time, each
 *                         doing about 2 ms of work; the main thread works too
 *   threads --reverse N   N workers (1..64), each doing about 2 ms of work,
 *                         that start running in the reverse of their creation
 *                         order: all are pinned to one CPU, and under
 *                         SCHED_FIFO the creator outranks them and each
 *                         worker outranks those created before it.  Prints
 *                         "started in reverse" if they did; exits 3 if
 *                         real-time scheduling is not permitted
 *
 * If THREADS_TIDFILE is set, the main thread writes one line "index tid"
 * per thread to it after all have been joined: index 0 is the main
 * thread, 1..N the workers in creation order.  Exit status 0, or 2 on bad
 * usage or a failed system call.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 1024
/* 2 MiB per thread (beyond L2), 256 KiB when there are many threads. */
#define ARRAY_WORDS (1u << 18)
#define ARRAY_WORDS_MANY (1u << 15)
#define MANY 16
#define STEPS_PER_SECOND 800000000.0 /* loop steps per CPU second, roughly */
#define SHORT_WAVE 8
#define REVERSE_MAX 64

/* Where the main thread's result goes, so its work is never dead code. */
static volatile uint64_t sink;
/* How many workers have started running. */
static atomic_int started;

struct worker {
	pthread_t th;
	pid_t tid;
	uint64_t steps;
	uint32_t words; /* a power of two */
	int seq;        /* 0.. in the order the workers started running */
	int prio;       /* SCHED_FIFO priority, or 0 to inherit the creator's */
	uint64_t sum;
	pthread_barrier_t *start;
};

/* Random loads and stores into the thread's own array.  The LCG index
 * keeps the compiler from vectorizing and the prefetcher from hiding it. */
static uint64_t work(uint64_t steps, uint32_t words)
{
	uint64_t *a = malloc(words * sizeof(*a));
	uint64_t x = 88172645463325252ull, sum = 0;

	if (!a)
		return 0;
	for (uint32_t i = 0; i < words; i++)
		a[i] = i;
	for (uint64_t s = 0; s < steps; s++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t i = (uint32_t)(x >> 40) & (words - 1);
		uint32_t j = (uint32_t)(x >> 20) & (words - 1);

		sum += a[i];
		a[j] = sum ^ s;
	}
	free(a);
	return sum;
}

static void *worker_main(void *p)
{
	struct worker *w = p;

	w->tid = gettid();
	w->seq = atomic_fetch_add(&started, 1);
	if (w->start)
		pthread_barrier_wait(w->start);
	w->sum = work(w->steps, w->words);
	return NULL;
}

static int write_tids(const struct worker *w, int n)
{
	const char *path = getenv("THREADS_TIDFILE");
	FILE *f;

	if (!path)
		return 0;
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "0 %d\n", (int)gettid());
	for (int i = 0; i < n; i++)
		fprintf(f, "%d %d\n", i + 1, (int)w[i].tid);
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static int start(struct worker *w)
{
	pthread_attr_t attr;
	int err;

	/* Small stacks: hundreds of threads must fit any address-space limit. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (w->prio) {
		struct sched_param sp = { .sched_priority = w->prio };

		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
	}
	err = pthread_create(&w->th, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	if (err)
		fprintf(stderr, "threads: pthread_create: %s\n", strerror(err));
	return err;
}

static int run_concurrent(struct worker *w, int n, uint64_t steps)
{
	uint32_t words = n > MANY ? ARRAY_WORDS_MANY : ARRAY_WORDS;
	pthread_barrier_t bar;

	pthread_barrier_init(&bar, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		w[i].steps = steps;
		w[i].words = words;
		w[i].start = &bar;
		if (start(&w[i]))
			return -1; /* the barrier can never open: exit without joining */
	}
	pthread_barrier_wait(&bar);
	sink = work(steps, words);
	for (int i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
	pthread_barrier_destroy(&bar);
	return 0;
}

static int run_short(struct worker *w, int n)
{
	uint64_t steps = (uint64_t)(0.002 * STEPS_PER_SECOND);

	for (int i = 0; i < n; i += SHORT_WAVE) {
		int k = n - i < SHORT_WAVE ? n - i : SHORT_WAVE;

		for (int j = i; j < i + k; j++) {
			w[j].steps = steps;
			w[j].words = ARRAY_WORDS_MANY;
			if (start(&w[j]))
				return -1;
		}
		sink = work(steps, ARRAY_WORDS_MANY);
		for (int j = i; j < i + k; j++)
			pthread_join(w[j].th, NULL);
	}
	return 0;
}

/* Returns 0, 3 if SCHED_FIFO is not permitted, or 2. */
static int run_reverse(struct worker *w, int n)
{
	struct sched_param sp = { .sched_priority = n + 1 };
	cpu_set_t one;
	int err, rev = 1;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		perror("threads: sched_setaffinity");
		return 2;
	}
	err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err) {
		fprintf(stderr, "threads: SCHED_FIFO: %s\n", strerror(err));
		return 3;
	}
	for (int i = 0; i < n; i++) {
		w[i].steps = (uint64_t)(0.002 * STEPS_PER_SECOND);
		w[i].words = ARRAY_WORDS_MANY;
		w[i].prio = i + 1;
		if (start(&w[i]))
			return 2;
	}
	/* Back to normal: the workers, all ready, run now, highest first. */
	sp.sched_priority = 0;
	err = pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	if (err) {
		fprintf(stderr, "threads: SCHED_OTHER: %s\n", strerror(err));
		return 2;
	}
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		rev &= w[i].seq == n - 1 - i;
	}
	printf("started %s\n", rev ? "in reverse" : "in another order");
	return 0;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	int reverse = argc > 1 && !strcmp(argv[1], "--reverse");
	int shortlived = reverse || (argc > 1 && !strcmp(argv[1], "--short"));
	int err;
	char *end;
	long n;
	double secs = 1.0;

	if (argc < 2 + shortlived || argc > 3) {
		fprintf(stderr, "usage: threads N [SECONDS] | threads --short N | "
			"threads --reverse N\n");
		return 2;
	}
	n = strtol(argv[1 + shortlived], &end, 10);
	if (*end || n < 1 || n > (reverse ? REVERSE_MAX : MAX_THREADS)) {
		fprintf(stderr, "threads: N must be 1..%d\n", reverse ? REVERSE_MAX : MAX_THREADS);
		return 2;
	}
	if (!shortlived && argc == 3) {
		secs = strtod(argv[2], &end);
		if (*end || secs < 0 || secs > 3600) {
			fprintf(stderr, "threads: SECONDS must be 0..3600\n");
			return 2;
		}
	}
	if (reverse)
		err = run_reverse(w, (int)n);
	else if (shortlived)
		err = run_short(w, (int)n) ? 2 : 0;
	else
		err = run_concurrent(w, (int)n, (uint64_t)(secs * STEPS_PER_SECOND)) ? 2 : 0;
	if (err)
		return err;
	return write_tids(w, (int)n) ? 2 : 0;
}
