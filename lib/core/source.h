/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Choosing the sample source: pmu (precise memory sampling through
 * libpfm4) or soft (task-clock + decode), and saying why.
 */
#ifndef CDT_SOURCE_H
#define CDT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/wire/agentcfg.h"

struct events_host;

/*
 * Soft default rate.  In a KVM guest one timer sample costs about 20 us of
 * CPU all told (the in-handler part is 2-5 us; the rest is the hrtimer
 * and signal delivery, which exit to the hypervisor), so 1 kHz per thread
 * costs about 2% and keeps plain memory sampling within 1.03x (tests/bench).
 * A tool whose algorithm needs more samples sets its own (run_ops.soft_hz).
 */
#define SOFT_DEFAULT_HZ 1000u
#define PMU_DEFAULT_PERIOD 500000u

struct source_req {
	int source;       /* enum sample_source; SRC_NONE = auto */
	uint64_t period;  /* pmu: events between samples; soft: ns. 0 = default */
	uint64_t freq;    /* samples/s per thread; 0 = default (soft only) */
	uint64_t default_hz; /* the tool's soft default; 0 = SOFT_DEFAULT_HZ */
	/* The tool's own pmu sampling events, instead of memory sampling
	 * (NULL): into ev[] (*nev of them, with their periods: `period`, or
	 * the tool's default when it is 0) and their names for the banner;
	 * 0, or a negative errno with the reason in err. */
	int (*pmu_sample)(const struct events_host *h, uint64_t period, struct agent_event *ev,
			  uint32_t *nev, char *names, size_t nlen, char *err, size_t errlen);
	uint64_t pmu_period; /* its default period, for --help; 0 = PMU_DEFAULT_PERIOD */
};

/*
 * Fill cfg->source, cfg->ev[] and cfg->nevents.  `why` gets the banner
 * text, e.g. "no hardware PMU (KVM guest): using soft sampling at 1 kHz".
 * Returns 0, or a negative errno with the reason in `why` (e.g. --source
 * pmu on a machine without one).
 */
int source_select(const struct source_req *req, struct agent_cfg *cfg,
		  char *why, size_t whylen);

#endif
