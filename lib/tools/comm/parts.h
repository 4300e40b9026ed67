/* SPDX-License-Identifier: GPL-2.0-only */
/* The parts of `cdt comm`, which its descriptor (tool.c) puts together. */
#ifndef CDT_TOOLS_COMM_PARTS_H
#define CDT_TOOLS_COMM_PARTS_H

#include "lib/core/view.h"
#include "lib/tools/comm/model.h"

struct agent_tool;
struct run_ops;
struct tui_screen;

extern const struct agent_tool comm_agent;  /* agent.c */
extern const struct run_ops comm_run;       /* options.c */
extern const struct view comm_views[];      /* views.c */
extern const char *const comm_report[];     /* views.c */
int comm_tui(const struct profile *p, const struct view *views, struct tui_screen **s,
	     size_t *n, size_t max);        /* tui.c */

#endif
