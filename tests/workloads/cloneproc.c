// SPDX-License-Identifier: GPL-2.0-only
/*
 * cloneproc: processes made without fork, for the processes view.
 *
 *   cloneproc clone      6 children made with glibc's clone() and no
 *                        CLONE_THREAD (SIGCHLD only: a copy of the memory,
 *                        as fork, but no pthread_atfork handler runs); child
 *                        i works a little, then returns 10+i from its
 *                        function (glibc then makes the raw exit system
 *                        call); prints "child I PID" for each and checks
 *                        each status: exit 0 if all are 10..15
 *   cloneproc closexec PROG...   a fork child closes every fd from 3 up and
 *                        execs PROG; exit with its status
 *   cloneproc clonevm PROG...    a child of clone(CLONE_VM | CLONE_VFORK),
 *                        sharing the memory as posix_spawn's does, execs
 *                        PROG; exit with its status
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define NCHILD 6
#define STACK (256 * 1024)

static volatile unsigned long sink;

static int child(void *arg)
{
	int i = (int)(long)arg;

	for (unsigned long k = 0; k < 20000000ul; k++)
		sink += k;
	return 10 + i;
}

static int clones(void)
{
	pid_t pid[NCHILD];
	int bad = 0;

	for (int i = 0; i < NCHILD; i++) {
		char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		if (stack == MAP_FAILED)
			return 2;
		pid[i] = clone(child, stack + STACK, SIGCHLD, (void *)(long)i);
		if (pid[i] < 0) {
			perror("cloneproc: clone");
			return 2;
		}
		printf("child %d %d\n", i, (int)pid[i]);
	}
	fflush(stdout);
	for (int i = 0; i < NCHILD; i++) {
		int st;

		if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 10 + i) {
			fprintf(stderr, "cloneproc: child %d: status 0x%x\n", i, st);
			bad = 1;
		}
	}
	return bad;
}

static int closexec(char **argv)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return 2;
	if (!pid) {
		closefrom(3);
		execv(argv[0], argv);
		_exit(127);
	}
	printf("child 0 %d\n", (int)pid);
	fflush(stdout);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 2;
	return WEXITSTATUS(st);
}

static int spawned(void *arg)
{
	char **argv = arg;

	execv(argv[0], argv);
	return 127;
}

static int clonevm(char **argv)
{
	char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t pid;
	int st;

	if (stack == MAP_FAILED)
		return 2;
	pid = clone(spawned, stack + STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, argv);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 2;
	printf("child 0 %d\n", (int)pid);
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "clone"))
		return clones();
	if (argc > 2 && !strcmp(argv[1], "closexec"))
		return closexec(argv + 2);
	if (argc > 2 && !strcmp(argv[1], "clonevm"))
		return clonevm(argv + 2);
	fprintf(stderr, "usage: cloneproc clone | cloneproc closexec|clonevm PROG [ARGS...]\n");
	return 2;
}
