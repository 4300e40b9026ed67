/* SPDX-License-Identifier: GPL-2.0-only */
/* Profiles the model tests start from (cmocka is included first). */
#ifndef CDT_TESTS_UNIT_FIXTURE_H
#define CDT_TESTS_UNIT_FIXTURE_H

#include <string.h>

#include "lib/core/profile.h"
#include "lib/tools/tool.h"

static inline void fixture_add(struct profile *p, const void *r)
{
	assert_int_equal(profile_add(p, r), 0);
}

/* A profile of tool's, meta tool set: process pid (/bin/x) with threads
 * pid + 0 .. pid + ntasks - 1, indices 0.., started at times 1... */
static inline void fixture_profile(struct profile *p, const char *tool, uint32_t pid,
				   uint32_t ntasks)
{
	union {
		struct rec_proc r;
		char b[sizeof(struct rec_proc) + 16];
	} proc = { 0 };

	profile_init(p);
	p->ops = tools_prof(tool);
	assert_int_equal(profile_set_meta(p, "tool", tool), 0);
	proc.r.h = (struct rec_hdr){ sizeof(proc), REC_PROC, 0 };
	proc.r.pid = pid;
	proc.r.time = 1;
	strcpy(proc.r.exe, "/bin/x");
	fixture_add(p, &proc);
	for (uint32_t t = 0; t < ntasks; t++) {
		struct rec_task k = { .h = { sizeof(k), REC_TASK, 0 }, .pid = pid,
				      .tid = pid + t, .index = t, .start = 1 + t };

		fixture_add(p, &k);
	}
}

#endif
