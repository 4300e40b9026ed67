// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdclose: a program that closes every descriptor it did not open, as
 * daemons and process launchers do.
 *
 *   fdclose reuse        a thread starts; main closes every fd from 3 to
 *                        near the limit and makes each a copy of /dev/null;
 *                        the thread ends and is joined, and every one of
 *                        those must still be open: exit 0 if so, 1 (and the
 *                        numbers on stderr) if something closed one
 *   fdclose exec PROG... closes fds 3 and up, then execs PROG
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* fds[0]: read until main closes the pipe; fds[1]: say it runs. */
static void *idle(void *arg)
{
	int *fds = arg;
	char c = 1;

	if (write(fds[1], &c, 1) != 1)
		return arg;
	/* Its end closes the agent's events, whose numbers are main's now. */
	return read(fds[0], &c, 1) < 0 ? arg : NULL;
}

static int reuse(void)
{
	struct rlimit rl;
	pthread_t th;
	int go[2], up[2], fds[2], null, bad = 0, top;
	char c;

	if (getrlimit(RLIMIT_NOFILE, &rl) || pipe(go) || pipe(up))
		return 2;
	top = rl.rlim_cur > 4096 ? 4096 : (int)rl.rlim_cur;
	null = open("/dev/null", O_RDONLY);
	/* The pipes and /dev/null go to the top, out of the range below. */
	if (null < 0 || dup2(go[0], top - 5) < 0 || dup2(up[0], top - 4) < 0 ||
	    dup2(up[1], top - 3) < 0 || dup2(null, top - 2) < 0 || dup2(go[1], top - 1) < 0)
		return 2;
	fds[0] = top - 5;
	fds[1] = top - 3;
	/* The thread runs, its events open, before main takes every number. */
	if (pthread_create(&th, NULL, idle, fds) || read(top - 4, &c, 1) != 1)
		return 2;
	close_range(3, (unsigned)top - 6, 0);
	for (int fd = 3; fd < top - 5; fd++)
		if (dup2(top - 2, fd) < 0)
			return 2;
	close(top - 1);
	pthread_join(th, NULL);
	for (int fd = 3; fd < top - 5; fd++)
		if (fcntl(fd, F_GETFD) < 0) {
			fprintf(stderr, "fdclose: fd %d was closed behind the program's back\n", fd);
			bad = 1;
		}
	return bad;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "reuse"))
		return reuse();
	if (argc > 2 && !strcmp(argv[1], "exec")) {
		closefrom(3);
		execv(argv[2], argv + 2);
		perror("fdclose: execv");
		return 2;
	}
	fprintf(stderr, "usage: fdclose reuse | fdclose exec PROG [ARGS...]\n");
	return 2;
}
