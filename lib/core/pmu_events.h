/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event encoding through libpfm4, the table of precise memory-sampling
 * events per CPU, and what the host offers (hardware PMU, hypervisor).
 *
 * The table is the only place that names a CPU's events: everything else
 * asks it.  Rows are keyed by libpfm4's PMU name (pfm_pmu_info_t.name).
 */
#ifndef CDT_EVENTS_H
#define CDT_EVENTS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/wire/agentcfg.h"

#define EVENTS_SYSFS_DIR "/sys/bus/event_source/devices"

/* How a row's memory samples are obtained. */
enum ev_route {
	EV_ROUTE_PFM = 1, /* two precise events encoded by libpfm4 */
	EV_ROUTE_IBS = 2, /* AMD IBS op: sysfs PMU "ibs_op", one event, all ops */
	EV_ROUTE_SPE = 3, /* Arm SPE: sysfs PMU "arm_spe_0", records in the AUX area */
};

struct ev_row {
	const char *pmu;   /* libpfm4 PMU name; a trailing '*' matches a prefix */
	int route;         /* enum ev_route */
	const char *load;  /* EV_ROUTE_PFM: libpfm4 event names, modifiers included */
	const char *store;
	const char *sysfs; /* EV_ROUTE_IBS/SPE: sysfs PMU name */
};

struct events_host {
	char pmu[32];        /* libpfm4 core PMU, "" if libpfm4 knows no core PMU */
	char pmu_desc[96];
	char cpu_model[96];  /* /proc/cpuinfo "model name", or "" */
	char cpu_id[96];      /* e.g. "AuthenticAMD family 26 model 2" */
	char hypervisor[32]; /* "KVM", "Hyper-V", ... or "" on bare metal */
	int hw_pmu;          /* 1: the kernel drives a hardware PMU */
	int hw_err;          /* errno of the cycles test open, 0 if it opened */
	char hw_detail[160]; /* how hw_pmu was decided, for probe and banners */
	char sysfs_dir[128]; /* where event_source devices live (tests redirect it) */
	const struct ev_row *row; /* memory-sampling row, NULL if none */
};

/* pfm_initialize(); libpfm4 makes repeated calls cheap.  0 or -EIO. */
int events_init(void);

/* libpfm4 version as "4.13". */
void events_pfm_version(char *buf, size_t len);

/* The table row for a libpfm4 PMU name, or NULL. */
const struct ev_row *events_table_lookup(const char *pmu);

/* All table rows, terminated by a row with pmu == NULL. */
const struct ev_row *events_table(void);

/*
 * Find the host's libpfm4 core PMU (LIBPFM_FORCE_PMU is honoured by
 * libpfm4), whether the kernel drives a hardware PMU, the hypervisor, and
 * the memory-sampling row.  Never fails: unknown things stay empty.
 */
int events_host_detect(struct events_host *h);

/*
 * Encode a libpfm4 event name ("MEM_INST_RETIRED:ALL_LOADS:precise=2",
 * "cycles", "hsw::BR_INST_RETIRED:NEAR_CALL") into ev, user level only.
 * period 0 means counting mode.  kind is left 0.  Returns 0, -ENOENT for
 * an event unknown to this CPU, -EINVAL for a bad modifier or unit mask;
 * err then names the event and the libpfm4 PMU.
 */
int events_encode(const char *name, uint64_t period, struct agent_event *ev,
		  char *err, size_t errlen);

/*
 * Encode the host's memory-sampling events from h->row: ev[0] loads
 * (kind MEM_LOAD) and ev[1] stores (kind MEM_STORE), or for IBS/SPE one
 * event of kind 0.  *nev gets the count.  -ENOENT when there is no row or
 * the sysfs PMU is absent, with err saying so.
 */
int events_mem_encode(const struct events_host *h, uint64_t period,
		      struct agent_event ev[2], uint32_t *nev,
		      char *err, size_t errlen);

/* Short text naming the memory events of a row, e.g. "MEM_INST_RETIRED:ALL_LOADS+ALL_STORES". */
void events_mem_name(const struct ev_row *row, char *buf, size_t len);

/* The perf_event_attr the agent opens for ev (lib/wire/perf_attr.h),
 * disabled, for test opens. */
void events_attr(const struct agent_event *ev, struct perf_event_attr *attr);

/* perf_event_open(2).  Returns the fd or a negative errno. */
int events_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags);

/* Open ev on the calling thread, disabled, and close it: 0 or -errno. */
int events_try_open(const struct agent_event *ev);

/*
 * The type of a sysfs event_source PMU (dir/name/type), or -ENOENT.
 * dir NULL means EVENTS_SYSFS_DIR.
 */
int events_sysfs_type(const char *dir, const char *pmu);

#endif
