// SPDX-License-Identifier: GPL-2.0-only
/* cdt numa: local and remote memory traffic per thread, its data, its first touch. */
#include "lib/tools/numa/parts.h"
#include "lib/tools/tool.h"

const struct tool tool_numa = {
	.name = "numa",
	.summary = "local vs remote NUMA traffic per thread, by data object and first touch",
	TOOL_AGENT(.agent = &numa_agent,)
	TOOL_FRONT(.run = &numa_run, .prof = &numa_prof, .views = numa_views,
		   .report = numa_report, .tui = numa_tui,)
};
