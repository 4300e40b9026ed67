// SPDX-License-Identifier: GPL-2.0-only
/*
 * mpi_ring: an MPI job whose ranks exchange messages while each runs two
 * threads that share data, for tests/e2e/mpi.sh.  Built with mpicc by
 * that test, not by the workloads rule (cc).
 *
 *   mpi_ring [CPU_SECONDS]   (default 0.3)
 *
 * In each rank, two worker threads named rRwW (r0w0, r0w1 in rank 0)
 * increment their own counter of one 64-byte line (false sharing) until
 * each has used CPU_SECONDS of CPU time, so a busy machine gives the same
 * samples, only later.  Meanwhile the main thread passes a token around
 * the ring of ranks, each adding its rank, 1 ms apart, until the workers
 * are done.  Rank 0 prints "mpi_ring: ranks=N rounds=M token=T" and the
 * program checks T (the sum of the ranks, times the rounds).  Exit 0 when
 * all is right, 1 if not, 2 on bad usage.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NWORKERS 2

static _Alignas(64) volatile uint64_t counters[NWORKERS];
static atomic_int done;
static double cpu_seconds = 0.3;
static int rank;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
	unsigned w = (unsigned)(uintptr_t)arg;
	char name[16];

	snprintf(name, sizeof(name), "r%dw%u", rank, w);
	pthread_setname_np(pthread_self(), name);
	while (thread_cpu() < cpu_seconds)
		for (int i = 0; i < 100000; i++)
			counters[w]++;
	atomic_fetch_add(&done, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	pthread_t t[NWORKERS];
	int provided, size, all_done = 0, ok = 1;
	long token = 0, rounds = 0;
	char *end;

	if (argc > 2 || (argc == 2 && ((cpu_seconds = strtod(argv[1], &end)) <= 0 || *end))) {
		fprintf(stderr, "usage: mpi_ring [CPU_SECONDS]\n");
		return 2;
	}
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (unsigned w = 0; w < NWORKERS; w++)
		if (pthread_create(&t[w], NULL, worker, (void *)(uintptr_t)w)) {
			fprintf(stderr, "mpi_ring: pthread_create failed\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	/* A round: the token goes 0 -> 1 -> ... -> 0.  Every rank takes part
	 * until all ranks' workers are done (decided together). */
	while (!all_done) {
		long in = 0;
		int mine = atomic_load(&done) == NWORKERS;

		if (rank == 0) {
			token += rank;
			MPI_Send(&token, 1, MPI_LONG, 1 % size, 0, MPI_COMM_WORLD);
			MPI_Recv(&in, 1, MPI_LONG, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token = in;
		} else {
			MPI_Recv(&in, 1, MPI_LONG, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			in += rank;
			MPI_Send(&in, 1, MPI_LONG, (rank + 1) % size, 0, MPI_COMM_WORLD);
		}
		rounds++;
		MPI_Allreduce(&mine, &all_done, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
		nanosleep(&ms, NULL);
	}
	for (unsigned w = 0; w < NWORKERS; w++)
		pthread_join(t[w], NULL);
	if (rank == 0) {
		ok = token == (long)size * (size - 1) / 2 * rounds;
		printf("mpi_ring: ranks=%d rounds=%ld token=%ld%s\n", size, rounds, token,
		       ok ? "" : " (wrong)");
	}
	MPI_Finalize();
	return ok ? 0 : 1;
}
