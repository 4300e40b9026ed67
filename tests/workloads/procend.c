// SPDX-License-Identifier: GPL-2.0-only
/*
 * procend: child processes that end every way a process can.
 *
 *   procend
 *
 * Prints "NAME PID" on stdout for each, then waits for the first four:
 *   exit     exit(3)
 *   _exit    _exit(4)
 *   badexec  execv() of a path that does not exist fails; it works on
 *            (~0.4 s of CPU) and is killed by SIGKILL
 *   daemon   forks a grandchild and exits 0 at once; the grandchild
 *            ("daemon", reparented away from the program) sleeps 5 s
 * The main process exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cputime.h"

static volatile unsigned long sink;

static void work(double secs)
{
	double t0 = cputime_now();

	do
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * sink;
	while (cputime_now() - t0 < secs);
}

static pid_t child(const char *name, int how)
{
	pid_t pid = fork();
	char *argv[] = { "/nonexistent/procend-target", NULL };

	if (pid)
		return pid;
	switch (how) {
	case 0:
		exit(3);
	case 1:
		_exit(4);
	case 2:
		execv(argv[0], argv);
		work(0.4);
		raise(SIGKILL);
		break;
	default:
		pid = fork();
		if (pid > 0) {
			printf("%s %d\n", name, (int)pid);
			exit(0);
		}
		sleep(5);
		_exit(0);
	}
	_exit(1);
}

int main(void)
{
	static const char *const names[] = { "exit", "_exit", "badexec", "daemon" };
	pid_t pids[4];

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < 4; i++) {
		pids[i] = child(names[i], i);
		if (pids[i] < 0)
			return 2;
		if (i < 3)
			printf("%s %d\n", names[i], (int)pids[i]);
	}
	for (int i = 0; i < 4; i++)
		waitpid(pids[i], NULL, 0);
	return 0;
}
