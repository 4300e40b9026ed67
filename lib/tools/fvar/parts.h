/* SPDX-License-Identifier: GPL-2.0-only */
/* The parts of `cdt fvar`, which its descriptor (tool.c) puts together. */
#ifndef CDT_TOOLS_FVAR_PARTS_H
#define CDT_TOOLS_FVAR_PARTS_H

#include "lib/core/view.h"

struct agent_tool;
struct prof_ops;
struct run_ops;

extern const struct agent_tool fvar_agent; /* agent.c */
extern const struct run_ops fvar_run;      /* options.c */
extern const struct prof_ops fvar_prof;    /* model.c */
extern const struct view fvar_views[];     /* views.c */
extern const char *const fvar_report[];    /* views.c */
int fvar_timeline(const struct profile *p, const struct view_opts *o,
		  struct table *t);                 /* views.c */

#endif
