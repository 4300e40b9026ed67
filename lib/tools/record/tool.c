// SPDX-License-Identifier: GPL-2.0-only
/* cdt record: sample the memory accesses of every thread of a program. */
#include "lib/tools/record/parts.h"
#include "lib/tools/tool.h"

const struct tool tool_record = {
	.name = "record",
	.summary = "sample the memory accesses of a program, every thread",
	TOOL_AGENT(.agent = &record_agent,)
	TOOL_FRONT(.run = &record_run, .views = record_views, .report = record_report,)
};
