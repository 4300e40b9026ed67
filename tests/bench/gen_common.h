/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gen_common.h: what the synthetic profile generators share (genprofile.c
 * writes `cdt comm` profiles, genrecord.c `cdt record` ones): the command
 * line, the random numbers, the metadata, the machine (16 CPUs in 2 NUMA
 * nodes, one process, its threads) and the end (profile_write and the
 * exit status).  Included by one generator each; everything is static.
 */
#ifndef CDT_BENCH_GEN_COMMON_H
#define CDT_BENCH_GEN_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/profile.h"

#define GEN_CPUS 16

/* The command line: -o FILE -n N -t THREADS -s SEED and one option of the
 * generator's own (xopt: -l LINES, -f FUNCTIONS) into x. */
struct gen_args {
	const char *out;
	uint64_t n, x, seed;
	uint32_t threads;
};

static uint64_t gen_rand(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

/* Parse over the defaults in *a: -EINVAL on an unknown option, an operand
 * or no -o.  The caller checks the ranges. */
static int gen_parse(int argc, char **argv, char xopt, struct gen_args *a)
{
	char opts[] = "o:n:t:?:s:";
	int c;

	opts[6] = xopt;
	while ((c = getopt(argc, argv, opts)) != -1) {
		if (c == 'o')
			a->out = optarg;
		else if (c == 'n')
			a->n = strtoull(optarg, NULL, 10);
		else if (c == 't')
			a->threads = (uint32_t)strtoul(optarg, NULL, 10);
		else if (c == 's')
			a->seed = strtoull(optarg, NULL, 10);
		else if (c == xopt)
			a->x = strtoull(optarg, NULL, 10);
		else
			return -EINVAL;
	}
	return !a->out || optind != argc ? -EINVAL : 0;
}

/* The metadata of a soft-sampled run at 250 us, then the tool's own. */
static int gen_meta(struct profile *p, const char *tool, const char *command,
		    const char *const (*extra)[2], size_t n_extra)
{
	const char *const kv[][2] = {
		{ "tool", tool }, { "command", command }, { "host", "synthetic" },
		{ "source", "soft" }, { "source_why", "synthetic profile" }, { "period", "250000" },
		{ "period_unit", "ns" },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !err; i++)
		err = profile_set_meta(p, kv[i][0], kv[i][1]);
	for (size_t i = 0; i < n_extra && !err; i++)
		err = profile_set_meta(p, extra[i][0], extra[i][1]);
	return err;
}

/* GEN_CPUS CPUs, two to a core, in 2 NUMA nodes; process pid
 * (/synthetic) and its threads pid .. pid + threads - 1, named gen-N,
 * the first the main thread. */
static int gen_topology(struct profile *p, uint32_t pid, uint32_t threads)
{
	union {
		struct rec_proc r;
		char buf[sizeof(struct rec_proc) + 16];
	} proc;
	int err = 0;

	for (int c = 0; c < GEN_CPUS && !err; c++) {
		struct rec_cpu r = { { sizeof(r), REC_CPU, 0 }, c, c / 2, 0, c / (GEN_CPUS / 2) };

		err = profile_add(p, &r.h);
	}
	memset(&proc, 0, sizeof(proc));
	proc.r.h = (struct rec_hdr){ sizeof(proc), REC_PROC, 0 };
	proc.r.pid = pid;
	proc.r.time = 1;
	strcpy(proc.r.exe, "/synthetic");
	if (!err)
		err = profile_add(p, &proc.r.h);
	for (uint32_t i = 0; i < threads && !err; i++) {
		struct rec_thread r = { { sizeof(r), REC_THREAD, 0 }, pid, pid + i,
					10 + i, i % GEN_CPUS, i ? 0 : THREAD_F_MAIN, "" };

		snprintf(r.name, sizeof(r.name), "gen-%u", i);
		err = profile_add(p, &r.h);
	}
	return err;
}

/* Unless err (a negative errno) already, number the tasks and write the
 * profile to out; free it.  The exit status: 0, or 1 with a message. */
static int gen_write(struct profile *p, int err, const char *prog, const char *out)
{
	if (!err) {
		profile_number_tasks(p);
		err = profile_write(p, out);
	}
	profile_free(p);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(-err));
		return 1;
	}
	return 0;
}

#endif
