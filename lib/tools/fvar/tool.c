// SPDX-License-Identifier: GPL-2.0-only
/* cdt fvar: per-call variance of functions, whole instances (FVSampler). */
#include "lib/tools/fvar/parts.h"
#include "lib/tools/tool.h"

const struct tool tool_fvar = {
	.name = "fvar",
	.summary = "per-call variance of functions: whole instances, call to return",
	TOOL_AGENT(.agent = &fvar_agent,)
	TOOL_FRONT(.run = &fvar_run, .prof = &fvar_prof, .views = fvar_views,
		   .report = fvar_report, .tui = fvar_tui, .timeline_view = "instances",
		   .timeline = fvar_timeline,)
};
