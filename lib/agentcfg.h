/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the front end tells the agent, through the arena header.  Plain
 * data only: the agent links neither libpfm4 nor anything that allocates,
 * so the front end encodes events into raw perf attributes here.
 */
#ifndef CDT_AGENTCFG_H
#define CDT_AGENTCFG_H

#include <stdint.h>

#define AGENT_ENV_FD "CDT_ARENA_FD"  /* arena memfd number, inherited across exec */
#define AGENT_MAX_EVENTS 4

enum tool_id {
	TOOL_RECORD = 1, /* plain memory sampling: every sample becomes a record */
	TOOL_COMM = 2,   /* ComDetective: communication between threads */
	/* later tools: fvar, numa, membound */
};

/* A perf event the agent opens in each thread, encoded by the front end. */
struct agent_event {
	uint32_t type;
	uint32_t precise_ip;
	uint64_t config, config1, config2;
	uint64_t period;
	uint32_t kind;  /* enum mem_kind this event samples; 0 = decide by decoding */
	uint32_t pad;
};

struct agent_cfg {
	uint32_t tool;      /* enum tool_id */
	uint32_t source;    /* enum sample_source */
	uint32_t nevents;
	uint32_t flags;     /* AGENT_F_* */
	struct agent_event ev[AGENT_MAX_EVENTS];
	uint32_t max_steps; /* soft: single-step budget to reach a memory access */
	uint32_t ring_pages; /* pmu: data pages of each per-thread perf ring */
	uint64_t tool_param[8]; /* tool-specific knobs */
};

#define AGENT_F_VERBOSE 0x1
#define AGENT_F_OBJECTS 0x2 /* record heap blocks, mappings and stacks (lib/agent/objects.c) */

/* Debug-register watch types (lib/agent/wpt.c). */
enum wpt_type {
	WPT_R = 1, /* x86 has no read-only watchpoints: R arms RW */
	WPT_W = 2,
	WPT_RW = 3,
	WPT_X = 4, /* execute breakpoint */
};

/* TOOL_RECORD: tool_param[] slots for --watch. */
enum record_param {
	RECORD_P_WATCH_ADDR,
	RECORD_P_WATCH_LEN,
	RECORD_P_WATCH_TYPE, /* enum wpt_type; 0 = no watch */
	RECORD_P_WATCH_FLAGS,
};
#define WATCH_F_EXE_RELATIVE 0x1 /* the address is an offset into the main program */

#define BB_DEFAULT_SLOTS 127u /* ComDetective's default, a prime */
#define BB_MAX_SLOTS 65521u   /* largest prime below 64 Ki */

/* TOOL_COMM: tool_param[] slots. */
enum comm_param {
	COMM_P_BB_SLOTS, /* BulletinBoard slots */
	COMM_P_WP,       /* debug registers per thread, 0..4 */
};

#endif
