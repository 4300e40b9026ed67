// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-thread local and remote memory counters, by libpfm4 PMU name:
 * the only place that names them.  Intel counts retired loads that
 * missed L3 by where they were served (local DRAM, remote DRAM, a remote
 * cache: HITM modified, FWD forwarded); AMD counts demand fills of the
 * data cache by source.  These count loads, not stores, and not
 * prefetches: the man page says so.
 *
 * None of these rows has been checked here against a designed access
 * pattern (this project's machines have no PMU): `validated` says so
 * in the output, and the encodings are tested with LIBPFM_FORCE_PMU.
 */
#include <string.h>

#include "lib/tools/numa/parts.h"

#define INTEL_OLD(pfx)                                                          \
	{ { pfx ":LOCAL_DRAM", NUMA_EV_LOCAL_DRAM }, { pfx ":REMOTE_DRAM", NUMA_EV_REMOTE_DRAM }, \
	  { pfx ":REMOTE_HITM", NUMA_EV_REMOTE_CACHE }, { pfx ":REMOTE_FWD", NUMA_EV_REMOTE_CACHE } }

static const struct numa_event_row numa_rows[] = {
	/* Haswell-EP and Broadwell-EP: the uops form of the name. */
	{ "hsw_ep", 0, INTEL_OLD("MEM_LOAD_UOPS_L3_MISS_RETIRED") },
	{ "bdw_ep", 0, INTEL_OLD("MEM_LOAD_UOPS_L3_MISS_RETIRED") },
	/* Skylake-SP to Sapphire Rapids. */
	{ "skx", 0, INTEL_OLD("MEM_LOAD_L3_MISS_RETIRED") },
	{ "clx", 0, INTEL_OLD("MEM_LOAD_L3_MISS_RETIRED") },
	{ "icx", 0, INTEL_OLD("MEM_LOAD_L3_MISS_RETIRED") },
	{ "spr", 0, INTEL_OLD("MEM_LOAD_L3_MISS_RETIRED") },
	{ "amd64_fam17h_zen2", 0,
	  { { "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM", NUMA_EV_LOCAL_DRAM },
	    { "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_DRAM", NUMA_EV_REMOTE_DRAM },
	    { "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_CACHE", NUMA_EV_REMOTE_CACHE } } },
	{ "amd64_fam19h_zen3", 0,
	  { { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL", NUMA_EV_LOCAL_DRAM },
	    { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_RMT", NUMA_EV_REMOTE_DRAM },
	    { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_RMT", NUMA_EV_REMOTE_CACHE } } },
	{ "amd64_fam19h_zen4", 0,
	  { { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR", NUMA_EV_LOCAL_DRAM },
	    { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_FAR", NUMA_EV_REMOTE_DRAM },
	    { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:FAR_CACHE_NEAR_FAR", NUMA_EV_REMOTE_CACHE } } },
	{ NULL, 0, { { NULL, 0 } } },
};

const struct numa_event_row *numa_events_table(void)
{
	return numa_rows;
}

const struct numa_event_row *numa_events_row(const char *pmu)
{
	for (const struct numa_event_row *r = numa_rows; pmu && r->pmu; r++)
		if (!strcmp(r->pmu, pmu))
			return r;
	return NULL;
}
