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

#include "lib/core/hash.h"
#include "lib/core/topo.h"
#include "lib/wire/record.h"

struct prof_meta {
	char *key, *value;
};

#define PROF_MAX_EXEC 15

/* One pid; each exec starts a new image with modules of its own. */
struct prof_proc {
	uint32_t pid, ppid, flags;
	uint64_t start;
	int ended;      /* an end was recorded: exit or _exit, not a signal */
	uint64_t end;   /* when, 0 if unknown */
	uint32_t end_how; /* PROC_END_*, 0 if unknown */
	int end_status; /* exit status, if end_how */
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

#define PROF_NO_PATH UINT32_MAX

/* A heap block, mapping or thread stack (REC_ALLOC). */
struct prof_alloc {
	uint32_t pid, tid;
	uint64_t time, addr, size;
	uint32_t path;  /* index into objs.paths; PROF_NO_PATH if none */
	uint8_t kind;   /* enum alloc_kind */
	uint8_t flags;  /* ALLOC_F_* */
};

/* An allocation call path of one process image (return addresses,
 * innermost first); records that share one share the entry. */
struct prof_path {
	uint32_t image; /* profile_image() */
	uint32_t depth;
	uint64_t frames[ALLOC_MAX_DEPTH];
};

struct prof_site; /* profile_objs.c: an agent's path number, while records arrive */

/* REC_ALLOC and REC_FREE as they came (lib/profile_objs.c); lib/objmap.h
 * turns them into a lookup. */
struct prof_objs {
	struct prof_alloc *allocs;
	size_t nallocs, allocs_cap;
	struct rec_free *frees;
	size_t nfrees, frees_cap;
	struct prof_path *paths;
	size_t npaths, paths_cap;
	struct hash path_ix;     /* over paths */
	struct prof_site *sites; /* (pid, site number) -> path */
	size_t nsites, sites_cap;
	struct hash site_ix;     /* over sites */
};

/* What a tool's views derive from a profile, built once on first use. */
struct prof_cache {
	void *data;
	void (*free)(void *data);
};
struct profile;
/* The tool's state kept with p: size bytes, zeroed, made on first use
 * and given to free_data (which frees it) with the profile; NULL on
 * ENOMEM.  Views take a const profile; this is the one thing they add. */
void *profile_cache(const struct profile *p, size_t size, void (*free_data)(void *data));

struct profile;

/* profile_sym_need(): a code (SYM_CODE) or data (SYM_DATA) address a
 * record names, seen in pid at time. */
typedef int (*prof_need_fn)(void *ctx, uint32_t pid, uint64_t time, int kind, uint64_t addr);
/* A pid field of a record, to rewrite for a merged profile. */
typedef int (*prof_pid_fn)(void *ctx, uint32_t *pid);

/*
 * What a profile needs of the tool that wrote it, for the tool's own
 * records (types from REC_TOOL_BASE up); lib/tools/NAME/ fills one in.
 */
struct prof_ops {
	const struct rec_desc *types; /* the tool's record types */
	size_t ntypes;
	/* Sum a record into the tool's model as it is read, instead of keeping
	 * it (cdt report, profile.folding): 0 taken, 1 keep it, or -errno. */
	int (*fold)(struct profile *p, const struct rec_hdr *r);
	/* Call need for each code and data address r names; 0 or need's error. */
	int (*sym)(const struct rec_hdr *r, prof_need_fn need, void *ctx);
	/* Call pid on each pid field of r; 0 or pid's error. */
	int (*merge)(struct rec_hdr *r, prof_pid_fn pid, void *ctx);
	/* Meta keys whose values must agree for merged counts to add up,
	 * besides tool, source and period; NULL-terminated, or NULL. */
	const char *const *agree;
};

struct prof_index; /* profile.c: lookups by pid and tid, built on demand */
struct prof_merge; /* profile_merge.c: the files a merged profile came from */

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
	struct prof_sym *syms;   /* in the order added */
	size_t syms_cap, nsyms;
	struct hash sym_ix;      /* over syms, by (pid, kind, addr) */
	struct rec_runstats run;
	int have_run;
	size_t caps[9]; /* growth bookkeeping */
	struct prof_cache *cache; /* set by the first view that needs it */
	struct prof_objs objs;
	/* The tool that wrote the profile, once known: the run sets it, a
	 * reader finds it through ops_of when the "tool" meta arrives. */
	const struct prof_ops *ops;
	const struct prof_ops *(*ops_of)(const char *tool);
	/* Set by a reader that only reports (cdt report): tool records go
	 * into the tool's running aggregate (ops->fold) instead of being
	 * kept, so memory grows with the aggregate, not the records. */
	int folding;
	struct prof_index *ix;
	struct prof_merge *merge; /* NULL unless several files were merged */
	char why[160]; /* why profile_add refused the last record it refused */
};

void profile_init(struct profile *p);
void profile_free(struct profile *p);

/*
 * Take one record (from the arena or a file), framed and of a known core
 * type or of the tool's (p->ops): it is checked against its type, taken
 * as this cdt's struct when an older or newer writer made it shorter or
 * longer (rec_accept), and copied.  Returns 0, -EBADMSG with the reason
 * in p->why for a record its type refuses, or another -errno.  Tool
 * records of a tool this cdt does not know are kept as they are.
 */
int profile_add(struct profile *p, const struct rec_hdr *r);
/* Number threads 0.. in creation order (thread 0: the first process's main thread). */
void profile_number_tasks(struct profile *p);

/*
 * What sampling cost the program: the CPU time of one sample (the agent
 * times one in AGENT_COST_EVERY; the wall time of the handlers when a 1.0
 * file has no such figure), and the largest share of a thread's CPU time
 * spent in cdt's handlers: its samples times that cost over its CPU time
 * (a 1.0 file: over its life, threads alive taken to `now`, 0: the
 * latest end).
 */
struct prof_cost {
	double sample_ns, trap_ns; /* per sample (steps included), per trap */
	double all_ns;             /* per sample, with the traps it leads to */
	int cpu;                   /* from the CPU clock, not wall time */
	double share;              /* 0..1 */
	uint64_t rate;             /* that thread's samples per CPU second */
	/* The whole program, where the threads' CPU time is known: */
	double cpu_s;              /* its threads' CPU time, cdt's part in it */
	double rate_used;          /* samples per second of a thread's CPU time */
	uint64_t posix_n, perf_n;  /* samples each sample clock raised */
	/* What the samples cost it, the estimate of cdt.1 OVERHEAD: the
	 * handlers as measured, the kernel's part and the switches under
	 * the perf clock as calibrated (meta clock_costs_ns); ns.  have_est
	 * is 0 without a calibration. */
	int have_est;
	double est_handler_ns, est_kernel_ns, est_switch_ns;
};
void profile_cost(const struct profile *p, uint64_t now, struct prof_cost *c);

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
/* The process pid (its latest image), or NULL. */
struct prof_proc *profile_find_proc(const struct profile *p, uint32_t pid);
const struct prof_sym *profile_sym(const struct profile *p, uint32_t pid, uint64_t time,
				   int kind, uint64_t addr);
/* The same by image key (prof_path.image). */
const struct prof_sym *profile_sym_image(const struct profile *p, uint32_t image, int kind,
					 uint64_t addr);

/* profile_objs.c: REC_ALLOC / REC_FREE into p->objs; writing them back. */
struct df_writer;
int profile_objs_add(struct profile *p, const struct rec_hdr *r);
void profile_objs_free(struct profile *p);
int profile_objs_write(const struct profile *p, struct df_writer *w);

/* The thread (pid, tid) was at `time` (tids are reused across exec). */
const struct rec_task *profile_task_by_tid(const struct profile *p, uint32_t pid,
					   uint32_t tid, uint64_t time);

int profile_write(const struct profile *p, const char *path);
int profile_read(struct profile *p, const char *path, char *err, size_t errlen);

/*
 * profile_merge.c: the profiles of several processes or MPI ranks as one.
 * Each file is read into p in turn as rank `rank` (ascending): its
 * threads are numbered after p's, a pid an earlier file used gets a key
 * of its own, and what must agree for counts to add up (tool, source,
 * period, wp) is checked.  0, or -errno with a message in err (-EINVAL:
 * the files do not merge).
 */
int profile_merge_read(struct profile *p, const char *path, uint32_t rank, char *err,
		       size_t errlen);
void profile_merge_free(struct profile *p);
/* Thread `index` as views show it: "3", or "rank.thread" ("1.3") when merged. */
const char *profile_thread_label(const struct profile *p, uint32_t index, char *buf,
				 size_t len);
/* The pid a process had on its host (a merged profile may key it otherwise). */
uint32_t profile_os_pid(const struct profile *p, uint32_t pid);

#endif
