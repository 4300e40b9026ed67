// SPDX-License-Identifier: GPL-2.0-only
/* cdt membound: is it memory bound, at which level, bandwidth or latency, and when. */
#include "lib/tools/membound/parts.h"
#include "lib/tools/tool.h"

const struct tool tool_membound = {
	.name = "membound",
	.summary = "memory bound? at which level, bandwidth or latency, and when",
	TOOL_AGENT(.agent = &membound_agent,)
	TOOL_FRONT(.run = &membound_run, .command = membound_command, .prof = &membound_prof,
		   .views = membound_views, .report = membound_report, .tui = membound_tui,)
};
