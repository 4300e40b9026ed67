/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Call paths from saved stack words, unwound in the front end after the
 * run (the handler only copies): libdw's unwinder, fed with the modules a
 * process had mapped (its REC_MMAP records), the registers the agent
 * saved and the copy of the stack.  It follows the modules' CFI
 * (.eh_frame, or .debug_frame from debug info), and frame pointers where
 * there is none; a frame whose return address lies outside the copy ends
 * the path.  The binaries must still be there, as for symbolization.
 */
#ifndef CDT_CORE_UNWIND_H
#define CDT_CORE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/profile.h"

/* Where the thread stood: ip and sp, and the callee-saved registers,
 * which the unwinder needs for frames whose CFA they give (rbp mostly). */
struct unwind_regs {
	uint64_t ip, sp;
	uint64_t rbx, rbp, r12, r13, r14, r15;
};

struct unwinder;

/* For p's processes; p must outlive it.  0 or -ENOMEM. */
int unwind_create(struct unwinder **u, const struct profile *p);
void unwind_free(struct unwinder *u);

/*
 * The return addresses of the frames outside the one at r->ip (which is
 * not among them), innermost first, in process pid at time; words[] is
 * the stack copied from r->sp up.  Returns how many (at most max): 0 if
 * the process's code is not known or the first frame cannot be unwound.
 */
size_t unwind_stack(struct unwinder *u, uint32_t pid, uint64_t time, const struct unwind_regs *r,
		    const uint64_t *words, size_t nwords, uint64_t *pcs, size_t max);

#endif
