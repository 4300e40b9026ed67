/* SPDX-License-Identifier: GPL-2.0-only */
/* The parts of `cdt membound`, which its descriptor (tool.c) puts together. */
#ifndef CDT_TOOLS_MEMBOUND_PARTS_H
#define CDT_TOOLS_MEMBOUND_PARTS_H

#include <stddef.h>

#include "lib/core/profile.h"
#include "lib/core/view.h"
#include "lib/core/view_tui.h"
#include "lib/tools/membound/model.h"

struct agent_tool;
struct run_ops;

extern const struct agent_tool membound_agent; /* agent.c */
extern const struct run_ops membound_run;      /* options.c */
extern const struct view membound_views[];     /* views.c */
extern const char *const membound_report[];    /* views.c */
int membound_tui(const struct profile *p, const struct view *views, struct tui_screen **s,
		 size_t *n, size_t max);       /* tui.c */
int calib_main(int argc, char **argv);         /* calib_cli.c: --calibrate */
int membound_command(int argc, char **argv);   /* options.c */

#endif
