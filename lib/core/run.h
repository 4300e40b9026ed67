/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running a program under the agent: resolve and vet the program, set up
 * the arena and the injected agent, fork/exec, drain records while it
 * runs, forward signals, and turn how it ended into cdt's exit status.
 */
#ifndef CDT_RUN_H
#define CDT_RUN_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/wire/agentcfg.h"
#include "lib/core/profile.h"
#include "lib/core/source.h"

/* Exit statuses, as env(1) and timeout(1) use them. */
#define EXIT_CDT_FAILED 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

#define RUN_DEFAULT_BUFFER (8u << 20)
/*
 * The overhead budget by default, in ppm of each thread's CPU time.  5%:
 * the soft source's samples then cost the program at most about 1.05x
 * (make bench-real measured 1.02x to 1.07x), at rates the ground-truth
 * tests pass at (cdt.1, SAMPLE CLOCKS AND THE OVERHEAD BUDGET).
 */
#define RUN_DEFAULT_BUDGET_PPM 50000u
/* A handler's CPU time until a thread has measured its own (soft source,
 * decode and a walk; comm's watchpoint arming is more, fvar's less). */
#define RUN_HANDLER_PRIOR_NS 10000u

struct run_ops;

struct run_opts {
	const char *tool_name;  /* for messages, the meta and agent_cfg.tool */
	const struct run_ops *ops; /* the tool's, for its hooks during the run */
	const struct prof_ops *prof; /* the tool's records */
	uint64_t params[AGENT_PARAMS_MAX / 8]; /* the tool's parameter struct */
	struct agent_event counter[AGENT_MAX_COUNTERS]; /* agent_cfg.counter */
	uint32_t ncounters;
	uint64_t counter_interval_ns;
	struct source_req src;
	uint32_t budget_ppm;    /* --max-overhead; 0: none */
	int budget_given;       /* --max-overhead was given */
	int clock;              /* --clock: enum clock_kind */
	size_t buffer_size;     /* arena ring bytes */
	int quiet, verbose;
	int objects;            /* AGENT_F_OBJECTS: heap blocks, mappings, stacks */
	int count_only;         /* no sampling event at all: counters (and the
				 * tool's outside watching) only */
	char **argv;            /* program and its arguments */
	/* What the run loses on this machine, set by the tool's prepare when
	 * dbtrap_check() (lib/core/dbtrap.h) said debug-register traps are not
	 * delivered: said after the banner with the reason, and kept in the
	 * meta "debug_traps" for cdt report.  NULL: nothing lost. */
	const char *traps_lost;
};

struct run_result {
	int status;      /* cdt's exit status for this run */
	int term_signal; /* signal that killed the program, or 0 */
	int interrupted; /* the last signal cdt forwarded (SIGINT, SIGTERM, ...), or 0 */
	int no_agent;    /* the program ran but no agent attached */
	/* CLOCK_MONOTONIC ns: the program was started, it ended (the arena
	 * drained); what cdt -v says of its own cost. */
	uint64_t t_spawn, t_end;
};

/*
 * Run and collect into p (profile_init'ed by the caller).  Returns 0 when a
 * profile was collected (res->status then carries the program's status),
 * or a negative errno when nothing could be collected; res->status is
 * always set, messages have gone to stderr.
 */
int run_program(const struct run_opts *o, struct profile *p, struct run_result *res);

/* Find a program as execvp would: 0, -ENOENT or -EACCES. */
int run_find(const char *name, char *out, size_t len);

/* Default output name: cdt.data, or cdt.data.<rank> under mpirun/srun. */
const char *run_default_output(char *buf, size_t len);

/* Write p to path, reporting on stderr; returns 0 or a negative errno. */
int run_save(const struct run_opts *o, struct profile *p, const char *path);

/* What a profiling tool adds to the common driver, run_tool(). */
struct run_ops {
	uint64_t soft_hz; /* the soft source's default rate; 0: SOFT_DEFAULT_HZ */
	/* The pmu source's sampling events and the default period --help
	 * gives, if not memory sampling (struct source_req). */
	int (*pmu_sample)(const struct events_host *h, uint64_t period, struct agent_event *ev,
			  uint32_t *nev, char *names, size_t nlen, char *err, size_t errlen);
	uint64_t pmu_period;
	int objects;      /* name heap blocks, mappings and stacks by default */
	/* Its synopsis, what it does, and its own options; the driver adds
	 * the common ones. */
	void (*usage)(FILE *f);
	/* Its default parameters into o->params; NULL: all zero. */
	void (*defaults)(struct run_opts *o);
	/* 1 if argv[*i] is the tool's option (advance *i past its argument),
	 * 0 if not, or a negative errno after saying why.  May be NULL. */
	int (*option)(struct run_opts *o, int argc, char **argv, int *i);
	/* Before the run, with o->argv set; 0 or a negative errno (said).
	 * May be NULL. */
	int (*prepare)(struct run_opts *o);
	/*
	 * What the front end watches of the program from outside, beside
	 * the agent (perf events on its pid, its pages): attach runs after
	 * the fork and before the exec, while the child waits, so nothing of
	 * the program escapes; 0, or a negative errno (said) and the program
	 * never runs.  poll runs after each drain of the arena while the
	 * program runs (its records are in p), and once with final set after
	 * it ended, when its memory is gone: 0, 1 when it had much to do
	 * (the next drain comes sooner), or a negative errno.  May be NULL.
	 */
	int (*attach)(const struct run_opts *o, pid_t child);
	int (*poll)(const struct run_opts *o, struct profile *p, int final);
	/* After the run, before the profile is written (tool meta); may be NULL. */
	int (*finish)(const struct run_opts *o, struct profile *p);
	/* After the profile is written, unless -q: the tool's report, on stderr
	 * (stdout is the program's); may be NULL. */
	int (*report)(const struct profile *p);
};

/*
 * `cdt NAME [options] [--] program [args...]` for a tool: parse the
 * common and the tool's options, run, write the profile, report.  argv[0]
 * is the tool's name.  Returns cdt's exit status (the program's, or
 * 125-127).
 */
int run_tool(const char *name, const struct run_ops *ops, const struct prof_ops *prof,
	     int argc, char **argv);

#endif
