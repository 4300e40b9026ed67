/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `cdt record`'s agent side and front end share: its parameters.
 * Its records are the agent's own samples and traps (lib/wire/record.h).
 */
#ifndef CDT_TOOLS_RECORD_H
#define CDT_TOOLS_RECORD_H

#include <stdint.h>

#include "lib/wire/agentcfg.h"

#define WATCH_F_EXE_RELATIVE 0x1 /* the address is an offset into the main program */

/* --watch: debug register 0 of every thread on one address. */
struct record_params {
	uint64_t watch_addr;
	uint32_t watch_len;   /* 1, 2, 4 or 8 */
	uint32_t watch_type;  /* enum wpt_type; 0 = no watch */
	uint32_t watch_flags; /* WATCH_F_* */
	uint32_t pad;
};
AGENT_PARAMS_CHECK(struct record_params);

#endif
