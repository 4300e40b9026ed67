/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cdt numa's model of a profile: each memory sample placed as a thread's
 * node (the CPU it ran on) against its page's node (asked with
 * move_pages, else inferred from the CPU of its first touch), summed per
 * thread, per node, per data object and per interval; first touch per
 * object from the page faults; and, with --predict, the same on a
 * machine of N nodes that this one is not.
 *
 * The model takes its topology from the profile (or, in the unit tests,
 * from whatever topology and page nodes they inject), so the same code
 * answers on one node and on many.
 */
#ifndef CDT_TOOLS_NUMA_MODEL_H
#define CDT_TOOLS_NUMA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/profile.h"
#include "lib/tools/numa/numa.h"

#define NUMA_NODE_UNKNOWN (-1)

struct numa_predict {
	int on;
	int nodes, policy, per_node; /* per_node 0: threads / nodes, rounded up */
	int per_node_used;
};

/* Where a pmu sample was served from (PERF_SAMPLE_DATA_SRC). */
enum numa_served {
	NUMA_SERVED_NONE = 0, /* not given (soft source, or the PMU said N/A) */
	NUMA_SERVED_L1,       /* L1 or a line fill buffer */
	NUMA_SERVED_L2,
	NUMA_SERVED_L3,
	NUMA_SERVED_LOCAL_DRAM,
	NUMA_SERVED_REMOTE_DRAM,
	NUMA_SERVED_REMOTE_CACHE,
	NUMA_SERVED_OTHER,    /* I/O, uncached, persistent memory, CXL */
	NUMA_SERVED_N,
};

struct numa_thr {
	uint32_t index, pid, tid;
	int node;                /* where most of its samples ran; -1 if none */
	uint64_t samples;        /* memory samples with an address */
	uint64_t local, remote, unknown;
	uint64_t *by_node;       /* accesses by memory node, nnodes */
	uint64_t node_moves;     /* migrations to a CPU of another node */
	uint64_t cpu_moves;      /* migrations, all */
	uint64_t counts[4];      /* pmu: by enum numa_role (scaled), 0 unused */
	int have_counts, scaled;
	uint64_t pred_local, pred_remote; /* --predict */
	uint64_t faults;         /* pages it touched first */
	uint64_t served[NUMA_SERVED_N]; /* pmu samples by where they were served */
};

struct numa_obj {
	uint32_t group;          /* objmap group; OBJMAP_NO_GROUP: none */
	char *name;
	uint64_t samples, local, remote, unknown;
	uint64_t *by_thread_node; /* accesses by the accessing thread's node */
	uint64_t pred_local, pred_remote;
	/* first touch of its pages (faults) */
	uint64_t pages;          /* pages faulted */
	uint32_t ft_thread;      /* thread index that faulted most of them; UINT32_MAX */
	uint64_t ft_thread_pages;
	uint32_t ft_threads;     /* threads that touched some of its pages first */
	uint32_t ft_pid;
	uint64_t ft_ip;          /* its commonest faulting instruction */
	uint64_t ft_time;
	uint64_t *landed;        /* pages by the node they are on, nnodes */
};

struct numa_interval {
	uint32_t thread;   /* index into model threads */
	uint32_t k;        /* interval number */
	uint64_t local, remote, unknown;
};

struct numa_model {
	int nnodes;              /* memory nodes (the topology's, at least 1) */
	uint64_t interval_ns;
	uint64_t t0;             /* the first sample's time */
	struct numa_thr *thr;    /* by profile thread index */
	size_t nthr;
	struct numa_obj *obj;    /* by accesses, most first */
	size_t nobj;
	struct numa_interval *iv; /* by thread, then interval */
	size_t niv;
	uint64_t samples, local, remote, unknown;
	uint64_t inferred;       /* samples whose page node came from its first touch */
	uint64_t faults, fault_pages, lost_faults;
	uint64_t agent_faults;    /* pages cdt's agent faulted (its buffers): left out */
	uint64_t *node_out, *node_in; /* remote accesses from threads of / to memory of */
	uint64_t *node_local;
	struct numa_predict pred;
	uint64_t pred_local, pred_remote, pred_unknown;
};

extern const struct prof_ops numa_prof; /* its records */

/* The model of p, built once (profile_cache); NULL on ENOMEM. */
const struct numa_model *numa_of(const struct profile *p);
/* enum numa_served of a union perf_mem_data_src value. */
int numa_served_of(uint64_t data_src);
/* Its name, for columns: "l1", ..., "remote_cache". */
const char *numa_served_name(int served);
/* The node of a CPU in p's topology; -1 if unknown. */
int numa_cpu_node(const struct profile *p, uint32_t cpu);
/* place.c: the node of the index-th thread (creation order) on a machine
 * of nodes nodes of per_node CPUs each, under policy (enum numa_bind), the
 * rule --bind follows too. */
int numa_place_node(uint32_t index, int nodes, int per_node, int policy);
/* N[:policy[:cpus]] (place.c): 0, or -EINVAL (and one line on stderr if say). */
int numa_predict_parse(const char *spec, int *nodes, int *policy, int *per_node, int say);

#endif
