// SPDX-License-Identifier: GPL-2.0-only
/* cdt comm's command line: its options, the run's meta and its report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/cliopt.h"
#include "lib/core/dbtrap.h"
#include "lib/core/run.h"
#include "lib/core/view_print.h"
#include "lib/tools/comm/comm.h"
#include "lib/tools/comm/parts.h"

/* Detection needs samples of two threads to meet on a line within a
 * sample period; 2 kHz keeps comm within its 1.10x budget (source.h). */
#define COMM_SOFT_DEFAULT_HZ 2000u

static void comm_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt comm [options] [--] program [args...]\n"
		"\n"
		"Find which threads of program communicate through shared memory, how much,\n"
		"and whether it is true or false sharing, down to the cache line, data object\n"
		"and source line.  Writes a profile for cdt report and prints the report on\n"
		"stderr (the program keeps stdout).\n"
		"\n"
		"      --bb-size N       BulletinBoard slots, 1 to %u (default %u)\n"
		"      --wp D            debug registers per thread for watchpoints, 0 to 4\n"
		"                        (default %u; 0 detects on samples only)\n",
		BB_MAX_SLOTS, BB_DEFAULT_SLOTS, COMM_DEFAULT_WP);
}

static void comm_defaults(struct run_opts *o)
{
	struct comm_params *cp = (struct comm_params *)o->params;

	cp->bb_slots = BB_DEFAULT_SLOTS;
	cp->wp = COMM_DEFAULT_WP;
}

static int comm_option(struct run_opts *o, int argc, char **argv, int *i)
{
	struct comm_params *cp = (struct comm_params *)o->params;
	const char *v;
	uint64_t n;
	int r;

	if ((r = cliopt_match(argc, argv, i, NULL, "--bb-size", &v))) {
		if (r < 0)
			return -EINVAL; /* said */
		if (cliopt_parse_u64(v, 0, &n) || n < 1 || n > BB_MAX_SLOTS) {
			fprintf(stderr, "cdt comm: --bb-size takes 1 to %u, not '%s'\n", BB_MAX_SLOTS,
				v);
			return -EINVAL;
		}
		cp->bb_slots = (uint32_t)n;
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--wp", &v))) {
		if (r < 0)
			return -EINVAL; /* said */
		if (cliopt_parse_u64(v, 0, &n) || n > 4) {
			fprintf(stderr, "cdt comm: --wp takes 0 to 4 (x86 has 4 debug registers), "
				"not '%s'\n", v);
			return -EINVAL;
		}
		cp->wp = (uint32_t)n;
		return 1;
	}
	return 0;
}

/*
 * Without debug-register traps the watchpoints never fire: arming them
 * would cost ioctls for nothing, and the meta would claim D of them.
 * comm runs as with --wp 0, detecting on samples alone, and says so
 * (cdt-comm(1)): the sample half is ComDetective's own first method.
 */
static int comm_prepare(struct run_opts *o)
{
	struct comm_params *cp = (struct comm_params *)o->params;
	struct dbtrap d;

	if (cp->wp && !dbtrap_check(&d)) {
		cp->wp = 0;
		o->traps_lost = "comm detects on samples only, as with --wp 0: the "
				"watchpoint half of its detections is lost";
	}
	return 0;
}

/* The settings a report needs to scale and explain counts, and which
 * detections the allocator's recycling made (all blocks known now). */
static int comm_finish(const struct run_opts *o, struct profile *p)
{
	const struct comm_params *cp = (const struct comm_params *)o->params;
	char buf[32];
	int err = comm_mark_recycled(p);

	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%u", cp->wp);
	err = profile_set_meta(p, "wp", buf);
	snprintf(buf, sizeof(buf), "%u", cp->bb_slots);
	return err ? err : profile_set_meta(p, "bb_size", buf);
}

static int comm_print(const struct profile *p)
{
	return view_print_run_report(p, comm_views, comm_report);
}

const struct run_ops comm_run = {
	.soft_hz = COMM_SOFT_DEFAULT_HZ,
	/* "false sharing on heap@main.c:42" is the point of the report, and a
	 * block costs tens of ns (lib/agent/objects.c). */
	.objects = 1,
	.usage = comm_usage,
	.defaults = comm_defaults,
	.option = comm_option,
	.prepare = comm_prepare,
	.finish = comm_finish,
	.report = comm_print,
};
