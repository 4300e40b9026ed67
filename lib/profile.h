/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A profile in memory: what a run collected (drained from the arena) or
 * what a cdt.data file holds.  Both paths feed records through
 * profile_add(), so a report of a live run and of a file are the same.
 */
#ifndef CDT_PROFILE_H
#define CDT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "topo.h"

struct prof_meta {
	char *key, *value;
};

#define PROF_MAX_EXEC 15

/* One pid; each exec starts a new image with modules of its own. */
struct prof_proc {
	uint32_t pid, ppid, flags;
	uint64_t start;
	int ended;
	char *exe; /* of the latest image */
	unsigned nexec;
	uint64_t exec_time[PROF_MAX_EXEC];
};

struct prof_sym {
	uint32_t pid; /* image key: profile_image() */
	uint16_t kind; /* enum sym_kind */
	uint64_t addr, start, size;
	uint32_t line;
	char *name, *file, *module; /* NULL when unknown */
};

struct prof_error {
	uint32_t pid, tid;
	int err;
	char *msg;
	unsigned count; /* identical messages are folded */
};

/* What a tool's views derive from a profile, built once on first use. */
struct prof_cache {
	void *data;
	void (*free)(void *data);
};

struct profile {
	struct prof_meta *meta;
	size_t nmeta;
	struct topo topo;
	struct prof_proc *procs;
	size_t nprocs;
	struct rec_task *tasks; /* by index once numbered */
	size_t ntasks;
	struct rec_mmap **mmaps;
	size_t nmmaps;
	struct rec_sample *samples;
	size_t nsamples;
	struct rec_trap *traps;
	size_t ntraps;
	struct prof_error *errors;
	size_t nerrors;
	struct rec_hdr **tool_recs; /* types >= REC_TOOL_BASE, for the tool */
	size_t ntool_recs;
	struct prof_sym *syms;   /* hash table, open addressing */
	size_t syms_cap, nsyms;
	struct rec_runstats run;
	int have_run;
	size_t caps[8]; /* growth bookkeeping */
	struct prof_cache *cache; /* set by the first view that needs it */
};

void profile_init(struct profile *p);
void profile_free(struct profile *p);

/* Take one record (from the arena or a file).  Returns 0 or -errno. */
int profile_add(struct profile *p, const struct rec_hdr *r);
/* Number threads 0.. in creation order (thread 0: the first process's main thread). */
void profile_number_tasks(struct profile *p);

int profile_set_meta(struct profile *p, const char *key, const char *value);
const char *profile_meta(const struct profile *p, const char *key);

/* Resolve every sampled/trapped code and data address (libdw). */
int profile_symbolize(struct profile *p, char *warn, size_t warnlen);
/*
 * The image a pid ran at a time: the pid itself until its first exec,
 * then pid | generation << 22 (pids stay below 2^22).  Symbols are keyed
 * by image, since exec reuses the pid with other modules.
 */
uint32_t profile_image(const struct profile *p, uint32_t pid, uint64_t time);
const struct prof_sym *profile_sym(const struct profile *p, uint32_t pid, uint64_t time,
				   int kind, uint64_t addr);

/* The thread (pid, tid) was at `time` (tids are reused across exec). */
const struct rec_task *profile_task_by_tid(const struct profile *p, uint32_t pid,
					   uint32_t tid, uint64_t time);

int profile_write(const struct profile *p, const char *path);
int profile_read(struct profile *p, const char *path, char *err, size_t errlen);

#endif
