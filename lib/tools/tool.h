/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tool: everything of one `cdt NAME` in one folder, lib/tools/NAME/,
 * put together by one descriptor, and the one table of them (tools.c).
 *
 * Each layer defines the part it consumes, and the descriptor points to
 * the tool's implementation of each:
 *  - struct agent_tool (lib/agent/agent.h): per-thread state size and the
 *    hooks that run in the target: init, thread start and stop, sample,
 *    trap, counters;
 *  - struct run_ops (lib/core/run.h): options, parameters, default soft
 *    rate, what to do before and after the run;
 *  - struct prof_ops (lib/core/profile.h): the record types with their
 *    minimum sizes, fold, symbolization needs, merge;
 *  - views (lib/core/view.h), the default report, and TUI screens.
 *
 * The descriptor (lib/tools/NAME/tool.c) is compiled into both images:
 * the agent's gets the agent part, the front end's the rest.  So a new
 * tool is a folder here, one line in tools.c, a man page and tests, and
 * no edit in lib/wire, lib/agent, lib/core or output/.
 */
#ifndef CDT_TOOLS_TOOL_H
#define CDT_TOOLS_TOOL_H

#include <stddef.h>

#include "lib/core/view_tui.h"

struct agent_tool;
struct prof_ops;
struct run_ops;

struct tool {
	const char *name;    /* `cdt NAME`, profile meta "tool", agent_cfg.tool */
	const char *summary; /* one line for `cdt --help` */
	/* The agent's image only (NULL in the front end's). */
	const struct agent_tool *agent;
	/* The front end's image only (NULL in the agent's). */
	const struct run_ops *run;
	/* A command of the tool's own that runs no program (`cdt membound
	 * --calibrate`), tried first: cdt's exit status, or -1 when argv is
	 * a run (then run_tool parses it).  May be NULL. */
	int (*command)(int argc, char **argv);
	const struct prof_ops *prof;
	const struct view *views;   /* NULL-terminated by name */
	const char *const *report;  /* views of the default text report, in order */
	view_tui_fn tui;            /* NULL: a table screen per view */
	/* Chrome trace-event JSON (cdt report --format chrome): the items of
	 * the view called timeline_view as a table of name, pid, tid, ts_us
	 * and dur_us, other columns their args (output/trace.h).  NULL: the
	 * tool has no timeline. */
	const char *timeline_view;
	int (*timeline)(const struct profile *p, const struct view_opts *o, struct table *t);
};

/* The half of a descriptor each image keeps (tool.c of every tool). */
#ifdef CDT_AGENT
#define TOOL_AGENT(...) __VA_ARGS__
#define TOOL_FRONT(...)
#else
#define TOOL_AGENT(...)
#define TOOL_FRONT(...) __VA_ARGS__
#endif

/* The tool table. */
extern const struct tool *const tools[]; /* NULL-terminated */
const struct tool *tools_find(const char *name);
/* The profile side of the tool called name (profile.ops_of), or NULL. */
const struct prof_ops *tools_prof(const char *name);

#endif
