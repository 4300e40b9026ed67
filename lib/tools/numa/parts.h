/* SPDX-License-Identifier: GPL-2.0-only */
/* The parts of `cdt numa`, which its descriptor (tool.c) puts together. */
#ifndef CDT_TOOLS_NUMA_PARTS_H
#define CDT_TOOLS_NUMA_PARTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/core/hash.h"
#include "lib/core/profile.h"
#include "lib/core/view.h"
#include "lib/core/view_tui.h"
#include "lib/tools/numa/model.h"
#include "lib/tools/numa/numa.h"

struct agent_tool;
struct run_ops;

extern const struct agent_tool numa_agent; /* agent.c */
extern const struct run_ops numa_run;      /* options.c */
extern const struct view numa_views[];     /* views.c */
extern const char *const numa_report[];    /* views.c */
int numa_tui(const struct profile *p, const struct view *views, struct tui_screen **s,
	     size_t *n, size_t max);           /* tui.c */

/* faults.c: page faults and migrations of a pid, from per-CPU rings */
struct fault_ring;
struct faults {
	struct fault_ring *r;
	size_t n;
	uint64_t faults, migrations, lost;
	size_t ring_pages; /* data pages of each ring, as far as they fit */
	/* Each fault record as it is added (pages.c asks for its pages). */
	int (*on_fault)(void *ctx, const struct rec_numa_fault *r);
	void *ctx;
};
/* 0, or a negative errno (EACCES/EPERM: perf_event_paranoid). */
int faults_open(struct faults *f, pid_t pid, int ncpus);
/* Read the rings into p; final: the program ended, write what is left.
 * 1 when a ring was an eighth full or more (drain sooner), 0, or -errno. */
int faults_poll(struct faults *f, struct profile *p, int final);
void faults_close(struct faults *f);

/* pages.c: the nodes of the pages samples and faults name (move_pages) */
struct page_key;
struct pages {
	struct page_key *known; /* every page named so far */
	size_t *want;           /* indices into known: to ask at this drain */
	size_t nknown, kcap, nwant, wcap;
	struct hash ix;         /* over known */
	size_t next_sample;     /* p->samples looked at so far */
	size_t cursor;          /* the pass asking known pages again */
	uint64_t pass_start;
	uint64_t asked, failed; /* answers; pages that could not be asked */
};
int pages_want(struct pages *g, uint32_t pid, uint64_t addr);
/* Ask for the new samples' pages and those wanted; final: too late. */
int pages_poll(struct pages *g, struct profile *p, int final);
void pages_free(struct pages *g);

/* events.c: per-thread local/remote counters of a pmu host */
enum numa_role {
	NUMA_EV_LOCAL_DRAM = 1,
	NUMA_EV_REMOTE_DRAM = 2,
	NUMA_EV_REMOTE_CACHE = 3, /* a line from another socket's cache */
};
struct numa_event_row {
	const char *pmu; /* libpfm4 PMU name */
	int validated;   /* checked against a known access pattern on that CPU */
	struct {
		const char *name;
		int role; /* enum numa_role */
	} ev[NUMA_MAX_EVENTS];
};
/* The row of a libpfm4 PMU, or NULL. */
const struct numa_event_row *numa_events_row(const char *pmu);
const struct numa_event_row *numa_events_table(void); /* ends with pmu NULL */

/* place.c: where --bind puts threads, and where --predict assumes them */
struct topo;
/* The CPUs threads take in turn under policy: 0, or -EINVAL. */
int numa_place_cpus(const struct topo *t, int policy, uint16_t *cpu, uint32_t max,
		    uint32_t *n);
/* "compact", "scatter", and with none_ok "none": enum numa_bind, or -1. */
int numa_policy(const char *s, int none_ok);

#endif
