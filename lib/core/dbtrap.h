/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Are debug-register traps delivered on this machine?  Some hypervisors
 * (a bhyve guest on AMD EPYC family 26, for one) let PERF_TYPE_BREAKPOINT
 * events open but never fire them: the tools that time or watch with
 * breakpoints must know before the program starts, and say so.
 */
#ifndef CDT_DBTRAP_H
#define CDT_DBTRAP_H

#include <stddef.h>

enum dbtrap_state {
	DBTRAP_OK,       /* one SIGTRAP with TRAP_PERF, the address and sig_data */
	DBTRAP_NO_OPEN,  /* the sigtrap watchpoint does not open */
	DBTRAP_NONE,     /* it opens, but the write brings no SIGTRAP */
	DBTRAP_WRONG,    /* a SIGTRAP arrives, but not one, or not as it should */
};

struct dbtrap {
	enum dbtrap_state state;
	char detail[256]; /* what was seen, for cdt probe */
	char why[256];    /* why not, for a run's banner: "bhyve guest: breakpoints
			   * open but never fire"; "" when delivered */
};

/*
 * Arm a sigtrap write watchpoint on a variable of this thread, write it,
 * and check the signal; SIGTRAP's disposition is restored.  Done once per
 * process and kept: later calls return the first answer.  Returns 1 when
 * traps are delivered, 0 when not (d says why).
 */
int dbtrap_check(struct dbtrap *d);

/* The banner line: "debug-register traps are not delivered on this
 * machine (WHY): LOST", into buf. */
void dbtrap_say(const struct dbtrap *d, const char *lost, char *buf, size_t len);

/*
 * Where an int1 (0xf1) that traps leaves the IP: after it on most hosts,
 * at it on some (an AMD KVM guest), where a handler that returns runs it
 * again forever.  The agent must know to tell a program's int1 from a
 * trap of its own whose cause the hypervisor lost.  One int1 in this
 * process, whose handler steps over it if need be; once per process.
 */
enum dbtrap_int1 {
	DBTRAP_INT1_AFTER, /* the IP after the int1 */
	DBTRAP_INT1_AT,    /* the IP at the int1 */
	DBTRAP_INT1_NONE,  /* no SIGTRAP, or not where either would put it, or
			    * SIGILL (an emulator that knows no int1: qemu's TCG) */
};
enum dbtrap_int1 dbtrap_int1(void);
const char *dbtrap_int1_name(enum dbtrap_int1 v);

#endif
