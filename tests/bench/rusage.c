// SPDX-License-Identifier: GPL-2.0-only
/*
 * rusage: run a program and report its wall time, CPU time and peak RSS,
 * for the overhead benchmarks (GNU time is not installed everywhere).
 *
 *   rusage -o FILE PROG [ARGS...]
 *
 * Appends one line to FILE:
 *   wall_s=W user_s=U sys_s=S maxrss_kb=R status=X
 * W is CLOCK_MONOTONIC from fork to wait; U, S and R come from wait4() on
 * PROG, so they cover PROG and every descendant it waited for, and R is
 * the peak RSS of the largest single process among them (the kernel's
 * ru_maxrss is a maximum, not a sum).  X is the exit status as a shell
 * gives it (128+N for signal N).  rusage exits with X too, or 125 if it
 * could not run PROG at all.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, wall;
	int st, status;
	pid_t pid;
	FILE *f;

	if (argc < 4 || strcmp(argv[1], "-o")) {
		fprintf(stderr, "usage: rusage -o FILE PROG [ARGS...]\n");
		return 125;
	}
	f = fopen(argv[2], "a");
	if (!f) {
		perror(argv[2]);
		return 125;
	}
	t0 = mono();
	pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 125;
	}
	if (pid == 0) {
		fclose(f);
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("rusage: wait4");
			return 125;
		}
	}
	wall = mono() - t0;
	status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	fprintf(f, "wall_s=%.4f user_s=%.4f sys_s=%.4f maxrss_kb=%ld status=%d\n", wall,
		tv(ru.ru_utime), tv(ru.ru_stime), ru.ru_maxrss, status);
	if (fclose(f)) {
		perror(argv[2]);
		return 125;
	}
	return status;
}
