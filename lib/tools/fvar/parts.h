/* SPDX-License-Identifier: GPL-2.0-only */
/* The parts of `cdt fvar`, which its descriptor (tool.c) puts together. */
#ifndef CDT_TOOLS_FVAR_PARTS_H
#define CDT_TOOLS_FVAR_PARTS_H

#include "lib/core/view.h"
#include "lib/core/view_tui.h"

struct fv_func;
struct fv_model;

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
int fvar_tui(const struct profile *p, const struct view *views, struct tui_screen **s,
	     size_t *n, size_t max);                /* tui.c */

/* options.c: the pmu source's sampling event (struct source_req) */
struct agent_event;
struct events_host;
int fvar_pmu_sample(const struct events_host *h, uint64_t period, struct agent_event *ev,
		    uint32_t *nev, char *names, size_t nlen, char *err, size_t errlen);

/* paths.c: unwind the instances' saved stacks into call paths (after
 * the run, before symbolization); 0 or -ENOMEM */
struct profile;
int fvar_paths(struct profile *p);

/* views.c, for tui.c */
void fvar_func_name(const struct profile *p, const struct fv_func *f, char *buf, size_t len);
void fvar_value_text(const struct fv_model *m, uint32_t k, double v, char *buf, size_t len);
const char *fvar_verdict(const struct fv_model *m, const struct fv_func *f);
double *fvar_instances(const struct fv_model *m, size_t f, double **times, size_t *n);
void fvar_func_text(const struct profile *p, const struct fv_model *m, size_t f, char *name,
		    size_t namelen, char *buf, size_t len);

#endif
