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
		"  -o, --output FILE     profile to write (default cdt.data, cdt.data.RANK under MPI)\n"
		"      --source SRC      auto, pmu or soft (default auto)\n"
		"  -F, --freq HZ         soft: samples per second per thread (default %u)\n"
		"  -c, --period N        pmu: memory accesses between samples (default %u);\n"
		"                        soft: nanoseconds of CPU time between samples\n"
		"      --bb-size N       BulletinBoard slots, 1 to %u (default %u)\n"
		"      --wp D            debug registers per thread for watchpoints, 0 to 4\n"
		"                        (default %u; 0 detects on samples only)\n"
		"      --objects         attribute lines to heap blocks (by allocation call\n"
		"                        path), anonymous mappings and thread stacks (default)\n"
		"      --no-objects      static variables only: less overhead in malloc-heavy\n"
		"                        programs\n"
		"      --buffer-size N   shared record buffer, a power of two (default 8M)\n"
		"  -q, --quiet           only errors on stderr\n"
		"  -v, --verbose         more detail on stderr\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: the program's, 128+N if signal N killed it, 125 if cdt failed,\n"
		"126 if the program cannot be executed, 127 if it is not found.\n",
		COMM_SOFT_DEFAULT_HZ, PMU_DEFAULT_PERIOD, BB_MAX_SLOTS, BB_DEFAULT_SLOTS,
		COMM_DEFAULT_WP);
}

static int comm_parse(int argc, char **argv, struct run_opts *o, const char **output)
{
	const char *v;
	uint64_t n;
	int i = 1, r;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			comm_usage(stdout);
			return 0;
		}
		r = run_parse_common(argc, argv, &i, o, output);
		if (r < 0)
			return -EINVAL;
		if (r)
			continue;
		if ((r = cliopt_match(argc, argv, &i, NULL, "--bb-size", &v))) {
			if (r < 0 || cliopt_u64("--bb-size", v, 0, &n) || n < 1 || n > BB_MAX_SLOTS) {
				fprintf(stderr, "cdt comm: --bb-size takes 1 to %u\n", BB_MAX_SLOTS);
				return -EINVAL;
			}
			o->tool_param[COMM_P_BB_SLOTS] = n;
			continue;
		}
		if ((r = cliopt_match(argc, argv, &i, NULL, "--wp", &v))) {
			if (r < 0 || cliopt_u64("--wp", v, 0, &n) || n > 4) {
				fprintf(stderr, "cdt comm: --wp takes 0 to 4 (x86 has 4 debug "
					"registers)\n");
				return -EINVAL;
			}
			o->tool_param[COMM_P_WP] = n;
			continue;
		}
		fprintf(stderr, "cdt comm: unknown option '%s'\n", argv[i]);
		comm_usage(stderr);
		return -EINVAL;
	}
	if (i >= argc) {
		fprintf(stderr, "cdt comm: no program to run\n");
		comm_usage(stderr);
		return -EINVAL;
	}
	o->argv = argv + i;
	return 1;
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
	const char *output = NULL;
	struct run_result res;
	struct profile p;
	char outbuf[64], buf[32];
	int r, err;

	r = comm_parse(argc, argv, &o, &output);
	if (r <= 0)
		return r < 0 ? EXIT_CDT_FAILED : 0;
	if (!output)
		output = run_default_output(outbuf, sizeof(outbuf));
	profile_init(&p);
	err = run_program(&o, &p, &res);
	if (!err) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o.tool_param[COMM_P_WP]);
		err = profile_set_meta(&p, "wp", buf);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o.tool_param[COMM_P_BB_SLOTS]);
		if (!err)
			err = profile_set_meta(&p, "bb_size", buf);
		if (err || run_save(&o, &p, output)) {
			res.status = EXIT_CDT_FAILED;
		} else if (report_text(&p) || fflush(stdout)) {
			fprintf(stderr, "cdt comm: cannot print the report\n");
			res.status = EXIT_CDT_FAILED;
		}
	}
	profile_free(&p);
	return res.status;
}
