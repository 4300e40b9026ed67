/* SPDX-License-Identifier: GPL-2.0-only */
/* The parts of `cdt record`, which its descriptor (tool.c) puts together. */
#ifndef CDT_TOOLS_RECORD_PARTS_H
#define CDT_TOOLS_RECORD_PARTS_H

#include "lib/core/view.h"

struct agent_tool;
struct run_ops;

extern const struct agent_tool record_agent; /* agent.c */
extern const struct run_ops record_run;      /* options.c */
extern const struct view record_views[];     /* views.c */
extern const char *const record_report[];    /* views.c */

#endif
