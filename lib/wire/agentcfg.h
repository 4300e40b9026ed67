/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the front end tells the agent, through the arena header.  Plain
 * data only: the agent links neither libpfm4 nor anything that allocates,
 * so the front end encodes events into raw perf attributes here.  The
 * running tool is named, and its parameters are its own struct in
 * `params` (lib/tools/NAME/NAME.h), opaque to everything else.
 */
#ifndef CDT_AGENTCFG_H
#define CDT_AGENTCFG_H

#include <stddef.h>
#include <stdint.h>

#define AGENT_ENV_FD "CDT_ARENA_FD"  /* arena memfd number, inherited across exec */
#define AGENT_MAX_EVENTS 4
#define AGENT_MAX_COUNTERS 8
#define AGENT_TOOL_NAME 16
#define AGENT_PARAMS_MAX 256         /* bytes of a tool's parameter struct */

/* A perf event the agent opens in each thread, encoded by the front end. */
struct agent_event {
	uint32_t type;
	uint32_t precise_ip;
	uint64_t config, config1, config2;
	uint64_t period; /* sampling events; 0 for counters */
	uint32_t kind;   /* enum mem_kind this event samples; 0 = decide by decoding;
			  * from AGENT_EV_TOOL up, what the tool's own sampling
			  * event (run_ops.pmu_sample) means to it */
	uint32_t group;  /* counters: hardware events of one group number form
			  * one perf group, read together; 0 for the rest */
};

/*
 * The soft source's sample clock and the overhead budget, which the agent
 * keeps by itself (lib/agent/clock.c).  The costs are this machine's, as
 * the front end measured them (lib/core/clockcal.c).
 */
enum clock_kind {
	CLOCK_K_AUTO = 0,  /* the governor chooses, or the period does */
	CLOCK_K_PERF = 1,  /* a task-clock perf event per thread (an hrtimer) */
	CLOCK_K_POSIX = 2, /* a POSIX CPU-time timer per thread (the tick) */
};

struct agent_clock {
	uint32_t kind;         /* enum clock_kind */
	uint32_t budget_ppm;   /* of each thread's CPU time; 0: the rate is fixed */
	uint64_t tick_ns;      /* the scheduler tick: a POSIX timer's resolution */
	uint64_t perf_sig_ns;  /* a sample's cost beyond its handler, perf clock */
	uint64_t posix_sig_ns; /* the same, POSIX clock (the tick is there anyway) */
	uint64_t switch_ns;    /* a context switch's cost while the perf clock is armed */
	uint64_t handler_ns;   /* a handler's cost until the thread's are measured */
};

struct agent_cfg {
	char tool[AGENT_TOOL_NAME]; /* the running tool, NUL-terminated */
	uint32_t source;    /* enum sample_source */
	uint32_t nevents;
	uint32_t flags;     /* AGENT_F_* */
	uint32_t ncounters;
	struct agent_event ev[AGENT_MAX_EVENTS];
	/* Counting-mode events, one group per thread that the tool reads at
	 * samples and traps (agent_counters_read) and the agent reads every
	 * counter_interval_ns (0: only when the thread ends). */
	struct agent_event counter[AGENT_MAX_COUNTERS];
	uint64_t counter_interval_ns;
	uint32_t max_steps; /* soft: single-step budget to reach a memory access */
	uint32_t ring_pages; /* pmu: data pages of each per-thread perf ring */
	uint64_t params[AGENT_PARAMS_MAX / 8]; /* the tool's parameter struct */
	struct agent_clock clock;
};

#define AGENT_EV_TOOL 0x100

#define AGENT_F_VERBOSE 0x1
#define AGENT_F_OBJECTS 0x2 /* record heap blocks, mappings and stacks (lib/agent/objects.c) */
/* The host leaves the IP at an int1 that trapped, not after it (an AMD
 * KVM guest): lib/core/dbtrap.c probes it, lib/agent/handler.c needs it. */
#define AGENT_F_INT1_AT 0x4

/* A tool's parameter struct must fit: `AGENT_PARAMS_CHECK(struct comm_params);` */
#define AGENT_PARAMS_CHECK(t) \
	_Static_assert(sizeof(t) <= AGENT_PARAMS_MAX, #t " fits agent_cfg.params")

/* Debug-register watch types (lib/agent/wpt.c). */
enum wpt_type {
	WPT_R = 1, /* x86 has no read-only watchpoints: R arms RW */
	WPT_W = 2,
	WPT_RW = 3,
	WPT_X = 4, /* execute breakpoint */
};

#define CFG_FIELD(s, f, off) _Static_assert(offsetof(struct s, f) == (off), #s "." #f " is at " #off)
_Static_assert(sizeof(struct agent_event) == 48, "agent_event is 48 bytes");
CFG_FIELD(agent_event, type, 0);
CFG_FIELD(agent_event, precise_ip, 4);
CFG_FIELD(agent_event, config, 8);
CFG_FIELD(agent_event, config1, 16);
CFG_FIELD(agent_event, config2, 24);
CFG_FIELD(agent_event, period, 32);
CFG_FIELD(agent_event, kind, 40);
_Static_assert(sizeof(struct agent_clock) == 48, "agent_clock is 48 bytes");
_Static_assert(sizeof(struct agent_cfg) == 928, "agent_cfg is 928 bytes");
CFG_FIELD(agent_cfg, tool, 0);
CFG_FIELD(agent_cfg, source, 16);
CFG_FIELD(agent_cfg, nevents, 20);
CFG_FIELD(agent_cfg, flags, 24);
CFG_FIELD(agent_cfg, ncounters, 28);
CFG_FIELD(agent_cfg, ev, 32);
CFG_FIELD(agent_cfg, counter, 224);
CFG_FIELD(agent_cfg, counter_interval_ns, 608);
CFG_FIELD(agent_cfg, max_steps, 616);
CFG_FIELD(agent_cfg, ring_pages, 620);
CFG_FIELD(agent_cfg, params, 624);
CFG_FIELD(agent_cfg, clock, 880);
#undef CFG_FIELD

#endif
