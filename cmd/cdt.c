// SPDX-License-Identifier: GPL-2.0-only
/* cdt: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "run.h"

struct cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "record", "sample the memory accesses of a program, every thread", cmd_record },
	{ "comm", "thread-to-thread communication: true and false sharing", cmd_comm },
	{ "report", "show a recorded profile: text, CSV or TUI", cmd_report },
	{ "probe", "what this machine offers: PMU, debug registers, sample source", cmd_probe },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: cdt <command> [options] [program [args...]]\n"
		   "       cdt help <command> | cdt --help | cdt --version\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nEach command takes --help.  See cdt(1) and cdt-<command>(1).\n");
}

static const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_CDT_FAILED;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("cdt %s\n", CDT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		char *hargv[] = { argv[2], "--help", NULL };

		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		c = cmd_find(argv[2]);
		if (!c) {
			fprintf(stderr, "cdt: no such command '%s'\n", argv[2]);
			return EXIT_CDT_FAILED;
		}
		return c->fn(2, hargv);
	}
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "cdt: no such command '%s'; 'cdt --help' lists them\n", argv[1]);
		return EXIT_CDT_FAILED;
	}
	return c->fn(argc - 1, argv + 1);
}
