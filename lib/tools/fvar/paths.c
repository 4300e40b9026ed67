// SPDX-License-Identifier: GPL-2.0-only
/*
 * Call paths of fvar instances, after the run: each instance that kept
 * its callers' stack (fvar.h) is unwound (lib/core/unwind.h) and keeps
 * the return addresses instead, so a profile holds paths, not stacks.
 */
#include "lib/tools/fvar/parts.h"

#include <errno.h>

#include "lib/core/unwind.h"
#include "lib/tools/fvar/fvar.h"

int fvar_paths(struct profile *p)
{
	struct unwinder *u;
	int err = unwind_create(&u, p);

	for (size_t i = 0; !err && i < p->ntool_recs; i++) {
		struct rec_fvar_inst *r = (struct rec_fvar_inst *)p->tool_recs[i];
		uint64_t pcs[FV_MAX_PATH];
		struct unwind_regs regs;
		size_t n;

		if (r->h.type != REC_FVAR_INST || r->h.size < sizeof(*r) || !r->nstack)
			continue;
		regs = (struct unwind_regs){ .ip = r->ret, .sp = r->slot + 8,
					     .rbx = r->regs[0], .rbp = r->regs[1],
					     .r12 = r->regs[2], .r13 = r->regs[3],
					     .r14 = r->regs[4], .r15 = r->regs[5] };
		n = unwind_stack(u, r->pid, r->time, &regs, r->tail, r->nstack, pcs, FV_MAX_PATH);
		for (size_t k = 0; k < n; k++)
			r->tail[k] = pcs[k];
		r->nstack = 0;
		r->npath = (uint32_t)n;
		r->h.size = (uint32_t)(sizeof(*r) + n * sizeof(pcs[0]));
	}
	unwind_free(u);
	return err;
}
