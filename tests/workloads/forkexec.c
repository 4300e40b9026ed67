// SPDX-License-Identifier: GPL-2.0-only
/*
 * forkexec: a process tree for profiling across fork and exec.
 *
 *   forkexec PROG [ARGS...]
 *
 * The parent does about 0.3 s of memory work, forks, and works as much
 * again while the child, in its own process, does about 0.3 s of memory
 * work and then execs PROG with ARGS (a path, not searched in PATH).
 * The parent waits for it.  If FORKEXEC_PIDFILE is set the parent then
 * writes "parent PID" and "child PID" lines to it.  Exit status: 0 if the
 * child (PROG) exited 0, 1 if it did not, 2 on a usage or system error;
 * the child exits 127 if exec fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORDS (1u << 18)
#define STEPS 240000000ull /* about 0.3 s of CPU */

static volatile uint64_t sink;

static void work(uint64_t seed)
{
	uint64_t *a = calloc(WORDS, sizeof(*a)), x = seed, sum = 0;

	if (!a)
		return;
	for (uint64_t s = 0; s < STEPS; s++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		sum += a[(x >> 40) & (WORDS - 1)];
		a[(x >> 20) & (WORDS - 1)] = sum + s;
	}
	sink = sum;
	free(a);
}

int main(int argc, char **argv)
{
	const char *pidfile = getenv("FORKEXEC_PIDFILE");
	pid_t child;
	int st;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: forkexec PROG [ARGS...]\n");
		return 2;
	}
	work(1);
	fflush(NULL);
	child = fork();
	if (child < 0) {
		perror("forkexec: fork");
		return 2;
	}
	if (child == 0) {
		work(2);
		execv(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	work(3);
	if (waitpid(child, &st, 0) != child) {
		perror("forkexec: waitpid");
		return 2;
	}
	if (pidfile) {
		f = fopen(pidfile, "w");
		if (!f || fprintf(f, "parent %d\nchild %d\n", (int)getpid(), (int)child) < 0 ||
		    fclose(f)) {
			perror(pidfile);
			return 2;
		}
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "forkexec: %s did not exit 0 (wait status 0x%x)\n", argv[1], st);
		return 1;
	}
	return 0;
}
