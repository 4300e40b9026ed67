// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unwinding saved stacks with libdw (see unwind.h).  One Dwfl per process
 * image, with every file the image mapped reported where it was loaded
 * (perf's choice: the mapping's start less its file offset), and a thread
 * state whose registers and memory are the saved ones.
 */
#include "lib/core/unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/debugfind.h"

/* DWARF register numbers of x86-64. */
enum { DW_RBX = 3, DW_RBP = 6, DW_RSP = 7, DW_R12 = 12, DW_NREGS = 17 };

struct uw_image {
	uint32_t image;
	Dwfl *dwfl; /* NULL: no module could be reported */
	int attached;
};

struct unwinder {
	const struct profile *p;
	struct uw_image *img;
	size_t nimg, img_cap;
	/* The stack being unwound, for the callbacks. */
	const struct unwind_regs *regs;
	const uint64_t *words;
	size_t nwords;
	uint64_t *pcs;
	size_t n, max, frames;
};

static const Dwfl_Callbacks uw_dwfl_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = debugfind_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl;
	if (*thread_arg)
		return 0;
	*thread_arg = arg;
	return 1;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct unwinder *u = arg;
	uint64_t lo = u->regs->sp, hi = lo + u->nwords * sizeof(uint64_t);

	(void)dwfl;
	if (addr < lo || addr > hi - sizeof(*result) || hi < lo)
		return false;
	memcpy(result, (const char *)u->words + (addr - lo), sizeof(*result));
	return true;
}

static bool uw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct unwinder *u = arg;
	const struct unwind_regs *r = u->regs;
	const Dwarf_Word bx = r->rbx, bp_sp[2] = { r->rbp, r->sp };
	const Dwarf_Word hi[4] = { r->r12, r->r13, r->r14, r->r15 };

	dwfl_thread_state_register_pc(thread, r->ip);
	return dwfl_thread_state_registers(thread, DW_RBX, 1, &bx) &&
	       dwfl_thread_state_registers(thread, DW_RBP, 2, bp_sp) &&
	       dwfl_thread_state_registers(thread, DW_R12, 4, hi);
}

static const Dwfl_Thread_Callbacks uw_thread_cb = {
	.next_thread = uw_next_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

int unwind_create(struct unwinder **u, const struct profile *p)
{
	*u = calloc(1, sizeof(**u));
	if (!*u)
		return -ENOMEM;
	(*u)->p = p;
	return 0;
}

void unwind_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nimg; i++)
		if (u->img[i].dwfl)
			dwfl_end(u->img[i].dwfl);
	free(u->img);
	free(u);
}

/* Whether the file of mapping i was mapped earlier in image: a file is
 * reported once, by its first mapping (its headers, file offset 0), as
 * the start of a later segment less its offset need not be its base. */
static int uw_reported(const struct profile *p, size_t i, uint32_t image)
{
	const struct rec_mmap *m = p->mmaps[i];

	for (size_t j = 0; j < i; j++)
		if (p->mmaps[j]->pid == m->pid && !strcmp(p->mmaps[j]->path, m->path) &&
		    profile_image(p, m->pid, p->mmaps[j]->time) == image)
			return 1;
	return 0;
}

/* Report the files pid mapped in image; 1 if any was. */
static int uw_report(const struct profile *p, Dwfl *dwfl, uint32_t pid, uint32_t image)
{
	int any = 0;

	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < p->nmmaps; i++) {
		const struct rec_mmap *m = p->mmaps[i];
		const char *base;

		if (m->pid != pid || m->path[0] != '/' || m->start < m->pgoff ||
		    profile_image(p, pid, m->time) != image)
			continue;
		if (uw_reported(p, i, image))
			continue;
		base = strrchr(m->path, '/') + 1;
		if (dwfl_report_elf(dwfl, base, m->path, -1, m->start - m->pgoff, false))
			any = 1;
	}
	return dwfl_report_end(dwfl, NULL, NULL) == 0 && any;
}

static Dwfl *uw_dwfl(struct unwinder *u, uint32_t pid, uint64_t time)
{
	uint32_t image = profile_image(u->p, pid, time);
	const struct prof_proc *pr;
	struct uw_image *im;

	for (size_t i = 0; i < u->nimg; i++)
		if (u->img[i].image == image)
			return u->img[i].dwfl;
	if (array_grow(&u->img, &u->img_cap, u->nimg, sizeof(*u->img)))
		return NULL;
	im = &u->img[u->nimg++];
	*im = (struct uw_image){ .image = image };
	im->dwfl = dwfl_begin(&uw_dwfl_cb);
	if (!im->dwfl)
		return NULL;
	/* A fork child that mapped nothing of its own runs its parent's code. */
	if (!uw_report(u->p, im->dwfl, pid, image)) {
		pr = profile_find_proc(u->p, pid);
		if (!pr || !pr->ppid ||
		    !uw_report(u->p, im->dwfl, pr->ppid, profile_image(u->p, pr->ppid, time))) {
			dwfl_end(im->dwfl);
			im->dwfl = NULL;
			return NULL;
		}
	}
	/* The state's memory and registers are those of u, set per stack. */
	if (!dwfl_attach_state(im->dwfl, NULL, 1, &uw_thread_cb, u)) {
		dwfl_end(im->dwfl);
		im->dwfl = NULL;
	}
	return im->dwfl;
}

static int uw_frame(Dwfl_Frame *frame, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (u->frames++ == 0)
		return DWARF_CB_OK; /* the frame at ip itself */
	if (!pc)
		return DWARF_CB_ABORT; /* the outermost frame */
	u->pcs[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t unwind_stack(struct unwinder *u, uint32_t pid, uint64_t time, const struct unwind_regs *r,
		    const uint64_t *words, size_t nwords, uint64_t *pcs, size_t max)
{
	Dwfl *dwfl;

	if (!max || !nwords)
		return 0;
	dwfl = uw_dwfl(u, pid, time);
	if (!dwfl)
		return 0;
	u->regs = r;
	u->words = words;
	u->nwords = nwords;
	u->pcs = pcs;
	u->n = 0;
	u->max = max;
	u->frames = 0;
	/* It ends in an error where the copy or the CFI ends: the frames
	 * found until then are the path. */
	(void)dwfl_getthread_frames(dwfl, 1, uw_frame, u);
	return u->n;
}
