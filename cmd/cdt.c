// SPDX-License-Identifier: GPL-2.0-only
/* cdt: dispatch to a tool of the tool table, or to report or probe. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "lib/core/run.h"
#include "lib/tools/tool.h"

struct cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "report", "show a recorded profile: text, CSV, JSON or TUI", cmd_report },
	{ "probe", "what this machine offers: PMU, debug registers, sample source", cmd_probe },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: cdt <command> [options] [program [args...]]\n"
		   "       cdt help <command> | cdt --help | cdt --version\n\ncommands:\n");
	for (size_t i = 0; tools[i]; i++)
		fprintf(f, "  %-8s %s\n", tools[i]->name, tools[i]->summary);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nEach command takes --help.  See cdt(1) and cdt-<command>(1).\n");
}

/* Run command name with argv[0] its name; -1 if there is no such command. */
static int dispatch(const char *name, int argc, char **argv)
{
	const struct tool *t = tools_find(name);
	int r;

	if (t && t->command && (r = t->command(argc, argv)) >= 0)
		return r;
	if (t)
		return run_tool(t->name, t->run, t->prof, argc, argv);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return cmds[i].fn(argc, argv);
	return -1;
}

int main(int argc, char **argv)
{
	int r;

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
		r = dispatch(argv[2], 2, hargv);
		if (r < 0)
			fprintf(stderr, "cdt: no such command '%s'\n", argv[2]);
		return r < 0 ? EXIT_CDT_FAILED : r;
	}
	r = dispatch(argv[1], argc - 1, argv + 1);
	if (r < 0)
		fprintf(stderr, "cdt: no such command '%s'; 'cdt --help' lists them\n", argv[1]);
	return r < 0 ? EXIT_CDT_FAILED : r;
}
