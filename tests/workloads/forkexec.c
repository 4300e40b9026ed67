// SPDX-License-Identifier: GPL-2.0-only
/*
 * forkexec: a process tree for profiling across fork and exec.
 *
 *   forkexec PROG [ARGS...]
 *
 * The parent does about 0.3 s of memory work, forks, and works as much
 * again while the child, in its own process, does about 0.3 s of memory
 * work, names itself "fe-child" (so a profile shows whether the name at
 * exec was recorded) and then execs PROG with ARGS.
 * FORKEXEC_EXEC picks the exec function: execv (the default: PROG is a
 * path, not searched in PATH); execl; execle, with a copy of the
 * environment after clearing the process's own (so only the envp passed
 * gives PROG any); execlp, with PATH set to PROG's directory and PROG's
 * base name searched in it.  The list forms take at most 3 ARGS.
 * The parent waits for it.  If FORKEXEC_PIDFILE is set the parent then
 * writes "parent PID" and "child PID" lines to it.  Exit status: 0 if the
 * child (PROG) exited 0, 1 if it did not, 2 on a usage or system error;
 * the child exits 127 if exec fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORDS (1u << 18)
#define STEPS 240000000ull /* about 0.3 s of CPU */
#define LIST_ARGS 3          /* ARGS the execl forms pass */

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

/* Exec argv[0] with argv by `how`; returns only if that failed. */
static void exec_by(const char *how, char **argv)
{
	char *a[LIST_ARGS] = { 0 }, **env, *slash, *p = argv[0];
	size_t nenv = 0;
	int n = 0;

	/* execl and execlp: a NULL in a[] ends the list early. */
	for (; argv[n + 1] && n < LIST_ARGS; n++)
		a[n] = argv[n + 1];
	if (!strcmp(how, "execv")) {
		execv(p, argv);
	} else if (!strcmp(how, "execl")) {
		execl(p, p, a[0], a[1], a[2], (char *)NULL);
	} else if (!strcmp(how, "execle")) {
		while (environ[nenv])
			nenv++;
		env = malloc((nenv + 1) * sizeof(*env));
		if (!env)
			return;
		memcpy(env, environ, (nenv + 1) * sizeof(*env));
		clearenv();
		/* envp follows the NULL: the list is spelled out, not padded. */
		switch (n) {
		case 0: execle(p, p, (char *)NULL, env); break;
		case 1: execle(p, p, a[0], (char *)NULL, env); break;
		case 2: execle(p, p, a[0], a[1], (char *)NULL, env); break;
		default: execle(p, p, a[0], a[1], a[2], (char *)NULL, env); break;
		}
	} else if (!strcmp(how, "execlp")) {
		slash = strrchr(argv[0], '/');
		if (!slash || slash == argv[0])
			return;
		*slash = '\0';
		if (setenv("PATH", argv[0], 1))
			return;
		execlp(slash + 1, slash + 1, a[0], a[1], a[2], (char *)NULL);
		*slash = '/';
	} else {
		fprintf(stderr, "forkexec: FORKEXEC_EXEC: no exec function '%s'\n", how);
	}
}

int main(int argc, char **argv)
{
	const char *pidfile = getenv("FORKEXEC_PIDFILE");
	const char *how = getenv("FORKEXEC_EXEC");
	pid_t child;
	int st;
	FILE *f;

	if (!how)
		how = "execv";
	if (argc < 2) {
		fprintf(stderr, "usage: forkexec PROG [ARGS...]\n");
		return 2;
	}
	if (strcmp(how, "execv") && argc > LIST_ARGS + 2) {
		fprintf(stderr, "forkexec: %s passes at most %d ARGS\n", how, LIST_ARGS);
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
		prctl(PR_SET_NAME, "fe-child", 0, 0, 0);
		exec_by(how, argv + 1);
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
