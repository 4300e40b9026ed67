// SPDX-License-Identifier: GPL-2.0-only
/* cdt comm: which threads communicate through shared memory (ComDetective). */
#include "lib/tools/comm/parts.h"
#include "lib/tools/tool.h"

const struct tool tool_comm = {
	.name = "comm",
	.summary = "thread-to-thread communication: true and false sharing",
	TOOL_AGENT(.agent = &comm_agent,)
	TOOL_FRONT(.run = &comm_run, .prof = &comm_prof, .views = comm_views,
		   .report = comm_report, .tui = comm_tui,)
};
