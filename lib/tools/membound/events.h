/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cdt membound's indicator events, by libpfm4 PMU name: which counter
 * stands for each quantity of Molka et al. (ICPE'17) on each CPU.  Only
 * events.c names a CPU's events; everything else asks it by role.
 *
 * A role is one quantity: core cycles, a kind of stall cycles, or the
 * transfers into or out of one level of the memory hierarchy (Table 2).
 * A role is the sum of up to MB_TERMS events (the paper's L3 read is three
 * OFFCORE_RESPONSE events); a role without events is not mapped on that
 * CPU and every metric built on it is unavailable.
 */
#ifndef CDT_TOOLS_MEMBOUND_EVENTS_H
#define CDT_TOOLS_MEMBOUND_EVENTS_H

#include <stddef.h>

enum mb_role {
	/* Stall cycles (section 4.3, Figures 7-10). */
	MB_R_CYCLES,       /* unhalted core cycles: the denominator of every share */
	MB_R_ACTIVE,       /* cycles with at least one uop executed */
	MB_R_NO_EXECUTE,   /* cycles with no uop executed (the paper's reference) */
	MB_R_STALLS_LOAD,  /* no execution while an L1D load miss is pending */
	MB_R_STALLS_STORE, /* allocation stalled on a full store buffer */
	MB_R_BW_FB_FULL,   /* L1D miss wanted a fill buffer, none free */
	MB_R_BW_SQ_FULL,   /* the super queue (L2 -> uncore requests) full */
	/* Transfers per level (Table 2), events/s against a calibrated peak. */
	MB_R_L1_RD,
	MB_R_L1_WR,
	MB_R_L2_RD,
	MB_R_L2_WR,
	MB_R_L3_RD,
	MB_R_L3_WR,
	MB_R_DRAM_RD,
	MB_R_RDRAM_RD,
	MB_NROLES
};

#define MB_TERMS 3 /* events summed into one role at most */

struct mb_role_events {
	const char *ev[MB_TERMS]; /* libpfm4 names for the core PMU; NULL ends */
	const char *note;         /* where the mapping comes from */
};

struct mb_event_row {
	const char *pmu; /* libpfm4 core PMU name (pfm_pmu_info_t.name) */
	int validated;   /* 1: the paper checked these events against benchmarks */
	struct mb_role_events role[MB_NROLES];
};

/* The row of a libpfm4 core PMU, or NULL (pmu NULL too). */
const struct mb_event_row *mb_events_row(const char *pmu);
/* All rows; the last has pmu NULL. */
const struct mb_event_row *mb_events_table(void);
/* The role's name for messages and CSV columns: "stalls_load", "l3_rd", ... */
const char *mb_events_role_name(enum mb_role r);

/*
 * Counter groups.  Each group is opened as one perf group (read together,
 * scheduled together), so the events of a group share one time window;
 * ev[0] of every group is the row's CYCLES event, so a group's counts
 * turn into shares and rates on their own even when the kernel
 * multiplexes groups.  An event that serves two roles (on Haswell-EP the
 * L3_MISS_LOCAL response is both a term of L3_RD and DRAM_RD) is counted
 * once.  The stall events come first, so the decomposition of Figure 10
 * is read in one window when per_group allows.
 */
#define MB_GROUP_MAX 8

struct mb_group {
	unsigned n;                    /* events, CYCLES included */
	const char *ev[MB_GROUP_MAX];  /* ev[0]: CYCLES */
};

/*
 * Split row r into groups of at most per_group events, CYCLES included
 * (on Intel the kernel puts the cycles event on a fixed counter, so
 * per_group is the programmable counters + 1; with SMT on, 4 + 1).  Two
 * limits of the hardware are kept: at most two OFFCORE_RESPONSE/OCR
 * events per group (two response MSRs) and, on Haswell/Broadwell, one
 * event that only counter 2 can take (CYCLE_ACTIVITY:*_L1D_PENDING).
 * Returns the number of groups written to g[0..maxg), -EINVAL for no row,
 * no CYCLES event or per_group outside [2, MB_GROUP_MAX], -ENOSPC when
 * maxg groups are not enough.
 */
int mb_events_groups(const struct mb_event_row *r, unsigned per_group,
		     struct mb_group *g, unsigned maxg);

/*
 * The uncore indicators of Table 3: per socket, summed over the boxes of
 * one kind (libpfm4 PMU box0, box1, ...; the caller opens the boxes the
 * kernel exposes).  Uncore PMUs need system-wide events (CAP_PERFMON or
 * perf_event_paranoid <= 0), so they are separate from the core rows and
 * optional.
 */
enum mb_urole {
	MB_U_L3_RD,  /* L3 lookups for reads, all slices */
	MB_U_L3_WR,
	MB_U_MEM_RD, /* cache lines read from this socket's memory */
	MB_U_MEM_WR,
	MB_U_LINK_RX, /* inter-socket link data flits in, out */
	MB_U_LINK_TX,
	MB_NUROLES
};

struct mb_uncore_events {
	const char *box;          /* libpfm4 PMU name without the box number */
	const char *ev[MB_TERMS]; /* event names within that PMU */
	const char *note;
};

struct mb_uncore_row {
	const char *pmu; /* the core PMU of the CPUs that have this uncore */
	int validated;
	struct mb_uncore_events role[MB_NUROLES];
};

/* The uncore row for a core PMU name, or NULL. */
const struct mb_uncore_row *mb_events_uncore(const char *pmu);
const struct mb_uncore_row *mb_events_uncore_table(void); /* ends with pmu NULL */

/*
 * The paper's maximal event rates on its Haswell-EP (2x Xeon E5-2680 v3,
 * 2.5 GHz): per core (Table 2) by role, 0 where the paper has none, and
 * per socket (Table 3) by uncore role.  A reference for tests and for a
 * sanity check of a calibration, never a substitute for one: peaks are
 * measured on the machine at hand.
 */
extern const double mb_hswep_core_peak[MB_NROLES];
extern const double mb_hswep_uncore_peak[MB_NUROLES];

#endif
