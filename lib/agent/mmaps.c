// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process's modules, for symbolization after the run: one REC_MMAP per
 * loadable segment, with the module's build-id so the front end can tell
 * when the file on disk is no longer the one that ran.  Taken at start,
 * after each dlopen and at exit; the front end removes repeats.
 */
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "lib/agent/agent.h"

struct mmaps_walk {
	char exe[PATH_MAX];
};

static size_t mmaps_build_id(const struct dl_phdr_info *info, uint8_t id[20])
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const unsigned char *name = p + sizeof(*n);
			const unsigned char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4)) {
				size_t len = n->n_descsz > 20 ? 20 : n->n_descsz;

				memcpy(id, desc, len);
				return len;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static void mmaps_segment(const char *path, uint64_t start, uint64_t end,
			  uint64_t pgoff, const uint8_t *id, size_t idlen)
{
	size_t plen = strlen(path) + 1;
	uint32_t size = REC_SIZE(sizeof(struct rec_mmap) + plen);
	struct rec_mmap *r = arena_reserve(&agent_g.arena, size, REC_MMAP);

	if (!r)
		return;
	r->pid = (uint32_t)agent_g.pid;
	r->build_id_len = (uint32_t)idlen;
	r->time = agent_now();
	r->start = start;
	r->end = end;
	r->pgoff = pgoff;
	memset(r->build_id, 0, sizeof(r->build_id));
	memcpy(r->build_id, id, idlen);
	r->pad = 0;
	memset(r->path, 0, size - sizeof(*r));
	memcpy(r->path, path, plen);
	arena_commit(&agent_g.arena, r);
}

static int mmaps_module(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct mmaps_walk *w = arg;
	uint64_t page = (uint64_t)getpagesize();
	const char *path = info->dlpi_name;
	uint8_t id[20];
	size_t idlen;

	(void)sz;
	if (!path || !*path)
		path = w->exe; /* the main program */
	if (path[0] != '/')
		return 0; /* the vDSO: no file to read symbols from */
	idlen = mmaps_build_id(info, id);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t start, end;

		if (ph->p_type != PT_LOAD)
			continue;
		start = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1);
		mmaps_segment(path, start, end, ph->p_offset & ~(page - 1), id, idlen);
	}
	return 0;
}

void mmaps_record(void)
{
	struct mmaps_walk w;
	ssize_t n = readlink("/proc/self/exe", w.exe, sizeof(w.exe) - 1);
	struct agent_thread *self;

	w.exe[n < 0 ? 0 : n] = '\0';
	self = agent_quiet_begin();
	dl_iterate_phdr(mmaps_module, &w);
	agent_quiet_end(self);
}

AGENT_API void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	void *h;

	if (!real)
		real = (void *(*)(const char *, int))agent_next("dlopen");
	if (!real)
		return NULL;
	h = real(file, mode);
	if (h && agent_g.active) {
		mmaps_record();
		functab_update();
		soft_forget();
	}
	return h;
}
