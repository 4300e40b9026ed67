/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Choosing the sample source: pmu (precise memory sampling through
 * libpfm4) or soft (task-clock + decode), and saying why.
 */
#ifndef CDT_SOURCE_H
#define CDT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "agentcfg.h"

#define SOFT_DEFAULT_HZ 4000u
#define PMU_DEFAULT_PERIOD 500000u

struct source_req {
	int source;       /* enum sample_source; SRC_NONE = auto */
	uint64_t period;  /* pmu: events between samples; soft: ns. 0 = default */
	uint64_t freq;    /* samples/s per thread; 0 = default (soft only) */
};

/*
 * Fill cfg->source, cfg->ev[] and cfg->nevents.  `why` gets the banner
 * text, e.g. "no hardware PMU (KVM guest): using soft sampling at 4 kHz".
 * Returns 0, or a negative errno with the reason in `why` (e.g. --source
 * pmu on a machine without one).
 */
int source_select(const struct source_req *req, struct agent_cfg *cfg,
		  char *why, size_t whylen);

#endif
