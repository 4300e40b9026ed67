/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf_event_attr of an agent_event, as the agent opens it in every
 * thread (lib/agent/events.c, counters.c) and as the front end opens it
 * to test it first (lib/core/pmu_events.c), so the two cannot drift
 * apart: user level only; a sampling event sends a synchronous SIGTRAP
 * per sample (which the kernel allows only with remove_on_exec) and,
 * from a PMU, writes PERF_ATTR_SAMPLE_TYPE to its ring.
 */
#ifndef CDT_WIRE_PERF_ATTR_H
#define CDT_WIRE_PERF_ATTR_H

#include <linux/perf_event.h>
#include <string.h>

#include "lib/wire/agentcfg.h"

#define PERF_ATTR_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | \
			       PERF_SAMPLE_DATA_SRC)

static inline void perf_attr_init(const struct agent_event *ev, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->precise_ip = ev->precise_ip;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	if (ev->period) {
		a->sample_period = ev->period;
		a->sigtrap = 1;
		a->remove_on_exec = 1;
	}
}

#endif
