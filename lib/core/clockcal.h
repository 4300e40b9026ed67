/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a sample costs on this machine beyond the agent's handler, which
 * the agent measures itself: the kernel's and the hypervisor's part, per
 * sample clock, and what a context switch costs while the perf clock is
 * armed.  The overhead budget (agent_cfg.clock) is kept with these.
 * Measured once, in about half a second, and kept in the cache
 * ($XDG_CACHE_HOME/cdt/clock-KEY.txt, KEY naming the kernel and CPU).
 */
#ifndef CDT_CLOCKCAL_H
#define CDT_CLOCKCAL_H

#include <stdint.h>
#include <stdio.h>

#include "lib/wire/agentcfg.h"

struct clockcal {
	uint64_t tick_ns;      /* the scheduler tick */
	uint64_t perf_sig_ns;  /* a task-clock perf sample, beyond its handler */
	uint64_t posix_sig_ns; /* a signal queued and delivered, beyond its handler */
	uint64_t switch_ns;    /* a thread's switch out and back in, perf clock armed */
};

/* A calibration older than this is measured again (s). */
#define CLOCKCAL_MAX_AGE (7 * 24 * 3600)

/*
 * This machine's figures: from the cache, or measured now and kept
 * (*measured 1; a line on `say`, if not NULL, says so first).  0, or a
 * negative errno when they could not be measured (a failed save is no
 * error: the figures are still good for this run).
 */
int clockcal_get(struct clockcal *c, FILE *say, int *measured);
/* Measure now, without the cache. */
int clockcal_measure(struct clockcal *c);
/* The cache file of this machine. */
int clockcal_path(char *buf, size_t len);
/* Parse the text of a cache file; 0, or -EINVAL if anything is off. */
int clockcal_parse(const char *text, int64_t now, struct clockcal *c);

/* Fill the costs of cfg->clock from c. */
void clockcal_to_cfg(const struct clockcal *c, struct agent_clock *k);

#endif
