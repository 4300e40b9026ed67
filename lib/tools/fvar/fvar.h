/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `cdt fvar`'s agent side and front end share: its parameters and
 * its record types (block 1 of the tool records, lib/wire/record.h).
 */
#ifndef CDT_TOOLS_FVAR_H
#define CDT_TOOLS_FVAR_H

#include <stddef.h>
#include <stdint.h>

#include "lib/wire/agentcfg.h"
#include "lib/wire/record.h"

#define FV_MAX_METRICS 4
#define FV_MAX_DEPTH 64     /* open instances a thread can keep */
#define FV_DEFAULT_DEPTH 16
#define FV_MAX_CALLERS 8    /* return addresses a sample keeps */
#define FV_SCAN_WORDS 128   /* stack words a sample scans for them */
#define FV_DEFAULT_STACK 4096 /* bytes of stack kept for a call path */
#define FV_MAX_STACK 65536
#define FV_MAX_PATH 64        /* return addresses a call path keeps */
#define FV_NREGS 6            /* rec_fvar_inst.regs */

/* fvar_params.metric[].src: where a metric is read. */
enum fv_src {
	FV_SRC_WALL = 1,    /* the agent's monotonic clock (vDSO), ns */
	FV_SRC_COUNTER = 2, /* counting event fvar_metric.counter (agent_cfg.counter) */
};

/* fvar_metric.flags */
#define FV_M_TIME 0x1 /* ns: the agent's own handler time is subtracted */

struct fvar_metric {
	uint32_t src;     /* enum fv_src */
	uint32_t counter; /* index into agent_cfg.counter */
	uint32_t flags;   /* FV_M_* */
	uint32_t pad;
};

struct fvar_params {
	uint32_t nmetrics;
	uint32_t depth;      /* open instances kept per thread, 1..FV_MAX_DEPTH */
	/* At a sample, the function measured is the sampled one, or with
	 * this probability (per 65536) each time, one caller further out. */
	uint32_t caller_p16;
	/* Bytes of the callers' stack an instance keeps for its call path
	 * (0: none); only some instances keep it (fv_stack_due). */
	uint32_t stack_bytes;
	struct fvar_metric metric[FV_MAX_METRICS];
};
AGENT_PARAMS_CHECK(struct fvar_params);

/* agent_event.kind of a pmu sampling event of retired calls: a sample
 * stands at the callee's entry (else samples stand for time). */
#define FV_EV_CALLS (AGENT_EV_TOOL + 1)

#define REC_FVAR_BLOCK 1
enum fvar_rec_type {
	REC_FVAR_INST = REC_TOOL_TYPE(REC_FVAR_BLOCK, 0),   /* one measured instance */
	REC_FVAR_DROP = REC_TOOL_TYPE(REC_FVAR_BLOCK, 1),   /* one not measured, and why */
	REC_FVAR_SAMPLE = REC_TOOL_TYPE(REC_FVAR_BLOCK, 2), /* a sample and its callers */
	REC_FVAR_CALIB = REC_TOOL_TYPE(REC_FVAR_BLOCK, 3),  /* what measuring adds */
	REC_FVAR_TOTAL = REC_TOOL_TYPE(REC_FVAR_BLOCK, 4),  /* a thread's metrics, all told */
};

/*
 * One instance of the function at `entry`, called from the call that
 * returns to `ret`, measured from its entry to its return.  Since call
 * paths, a tail may follow v[] (shorter records have none): the caller's
 * callee-saved registers at the return and, from the agent, `nstack`
 * words of stack from slot + 8 up, which the front end unwinds after the
 * run into `npath` return addresses (the call path beyond the call site,
 * innermost first), the form a profile file keeps.
 */
struct rec_fvar_inst {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;  /* at the entry, agent clock */
	uint64_t entry; /* the function's first instruction */
	uint64_t ret;   /* the return address: the call site is just before */
	uint64_t slot;  /* the stack slot that held it */
	uint32_t depth; /* instances of this thread open around it */
	uint32_t nmetrics;
	uint64_t v[FV_MAX_METRICS]; /* V_ret - V_call per fvar_params.metric */
	uint64_t regs[FV_NREGS]; /* rbx, rbp, r12-r15 at the return, with a stack */
	uint32_t nstack, npath;
	uint64_t tail[]; /* nstack words, or npath return addresses */
};
#define FV_INST_V1 88 /* the size before call paths */

/* rec_fvar_drop.cause */
enum fv_cause {
	FV_DROP_LONGJMP = 1, /* longjmp and kin unwound its frame */
	FV_DROP_THROW,       /* a C++ exception did */
	FV_DROP_EXEC,        /* the image was replaced */
	FV_DROP_THREAD_END,  /* its thread ended with it open */
	FV_DROP_UNWOUND,     /* its frame went with no jump seen (its slot was reused) */
	FV_DROP_DEPTH,       /* the thread's stack of open instances was full */
	FV_DROP_NOT_CALLED,  /* at the entry, [rsp] followed no call: not a call */
	FV_DROP_ARM,         /* a debug register could not be set */
	FV_NOTE_FOREIGN,     /* its slot was read by other code (an unwinder):
			      * the instance goes on */
	FV_NCAUSE
};

struct rec_fvar_drop {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t entry, ret;
	uint32_t cause; /* enum fv_cause */
	uint32_t pad;
};

/* A sample: where it was, and the return addresses found above it on
 * the stack (innermost first), for each function's share of the time;
 * with the first instruction of the function each is in, as the agent's
 * table of functions has it (stripped code included). */
struct rec_fvar_sample {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t ip;
	uint32_t ncallers, flags; /* FV_SAMPLE_* */
	uint64_t caller[FV_MAX_CALLERS];
	uint64_t entry[FV_MAX_CALLERS + 1]; /* of ip, then of each caller */
};
#define FV_SAMPLE_CALL 0x1 /* a pmu call sample: ip is the callee's entry */

/* A thread's metrics over its whole life, when it ends: what shares of
 * call-sampled runs are taken of. */
struct rec_fvar_total {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t nmetrics, pad;
	uint64_t v[FV_MAX_METRICS];
};

/* A process's calibration: the median of each metric over `runs`
 * instances of an empty function, which measuring itself costs (the
 * kernel's delivery of two traps), subtracted from every instance; and
 * their spread (interquartile range / 1.35, a standard deviation for
 * normal noise): cdt's resolution. */
struct rec_fvar_calib {
	struct rec_hdr h;
	uint32_t pid, runs;
	uint64_t time;
	uint64_t bias[FV_MAX_METRICS];
	uint64_t spread[FV_MAX_METRICS];
};

REC_SIZE_IS(rec_fvar_total, 64);
REC_FIELD(rec_fvar_total, nmetrics, 24);
REC_FIELD(rec_fvar_total, v, 32);
REC_SIZE_IS(rec_fvar_calib, 88);
REC_FIELD(rec_fvar_calib, runs, 12);
REC_FIELD(rec_fvar_calib, bias, 24);
REC_FIELD(rec_fvar_calib, spread, 56);
REC_SIZE_IS(rec_fvar_inst, 144);
REC_FIELD(rec_fvar_inst, pid, 8);
REC_FIELD(rec_fvar_inst, tid, 12);
REC_FIELD(rec_fvar_inst, time, 16);
REC_FIELD(rec_fvar_inst, entry, 24);
REC_FIELD(rec_fvar_inst, ret, 32);
REC_FIELD(rec_fvar_inst, slot, 40);
REC_FIELD(rec_fvar_inst, depth, 48);
REC_FIELD(rec_fvar_inst, nmetrics, 52);
REC_FIELD(rec_fvar_inst, v, 56);
REC_FIELD(rec_fvar_inst, regs, 88);
REC_FIELD(rec_fvar_inst, nstack, 136);
REC_FIELD(rec_fvar_inst, npath, 140);
REC_FIELD(rec_fvar_inst, tail, 144);
REC_SIZE_IS(rec_fvar_drop, 48);
REC_FIELD(rec_fvar_drop, time, 16);
REC_FIELD(rec_fvar_drop, entry, 24);
REC_FIELD(rec_fvar_drop, ret, 32);
REC_FIELD(rec_fvar_drop, cause, 40);
REC_SIZE_IS(rec_fvar_sample, 176);
REC_FIELD(rec_fvar_sample, time, 16);
REC_FIELD(rec_fvar_sample, ip, 24);
REC_FIELD(rec_fvar_sample, ncallers, 32);
REC_FIELD(rec_fvar_sample, flags, 36);
REC_FIELD(rec_fvar_sample, caller, 40);
REC_FIELD(rec_fvar_sample, entry, 104);

#endif
