// SPDX-License-Identifier: GPL-2.0-only
/* cdt comm: which threads communicate through shared memory (ComDetective). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "cmds.h"
#include "run.h"

#define COMM_DEFAULT_WP 4

static void comm_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt comm [options] [--] program [args...]\n"
		"\n"
		"Find which threads of program communicate through shared memory, how much,\n"
		"and whether it is true or false sharing, down to the cache line, data object\n"
		"and source line.  Prints the report and writes a profile for cdt report.\n"
		"\n"
		"      --bb-size N       BulletinBoard slots, 1 to %u (default %u)\n"
		"      --wp D            debug registers per thread for watchpoints, 0 to 4\n"
		"                        (default %u; 0 detects on samples only)\n",
		BB_MAX_SLOTS, BB_DEFAULT_SLOTS, COMM_DEFAULT_WP);
	run_usage_common(f, COMM_SOFT_DEFAULT_HZ);
}

static int comm_option(void *ctx, int argc, char **argv, int *i, struct run_opts *o)
{
	const char *v;
	uint64_t n;
	int r;

	(void)ctx;
	if ((r = cliopt_match(argc, argv, i, NULL, "--bb-size", &v))) {
		if (r < 0 || cliopt_u64("--bb-size", v, 0, &n) || n < 1 || n > BB_MAX_SLOTS) {
			fprintf(stderr, "cdt comm: --bb-size takes 1 to %u\n", BB_MAX_SLOTS);
			return -EINVAL;
		}
		o->tool_param[COMM_P_BB_SLOTS] = n;
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--wp", &v))) {
		if (r < 0 || cliopt_u64("--wp", v, 0, &n) || n > 4) {
			fprintf(stderr, "cdt comm: --wp takes 0 to 4 (x86 has 4 debug registers)\n");
			return -EINVAL;
		}
		o->tool_param[COMM_P_WP] = n;
		return 1;
	}
	return 0;
}

/* The settings a report needs to scale and explain counts. */
static int comm_finish(void *ctx, const struct run_opts *o, struct profile *p)
{
	char buf[32];
	int err;

	(void)ctx;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->tool_param[COMM_P_WP]);
	err = profile_set_meta(p, "wp", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->tool_param[COMM_P_BB_SLOTS]);
	return err ? err : profile_set_meta(p, "bb_size", buf);
}

static int comm_report(void *ctx, struct profile *p)
{
	(void)ctx;
	return report_text(p);
}

int cmd_comm(int argc, char **argv)
{
	struct run_opts o = {
		/* Objects on: "false sharing on heap@main.c:42" is the point of the
		 * report, and a block costs tens of ns (lib/agent/objects.c). */
		.tool_name = "comm", .tool = TOOL_COMM, .objects = 1,
		.src = { .default_hz = COMM_SOFT_DEFAULT_HZ },
		.tool_param = { [COMM_P_BB_SLOTS] = BB_DEFAULT_SLOTS, [COMM_P_WP] = COMM_DEFAULT_WP },
	};
	const struct run_tool t = { .usage = comm_usage, .option = comm_option,
				    .finish = comm_finish, .report = comm_report };

	return run_tool(argc, argv, &o, &t);
}
