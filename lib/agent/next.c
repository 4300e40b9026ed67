// SPDX-License-Identifier: GPL-2.0-only
/*
 * The next definition of a symbol after the agent's own, as
 * dlsym(RTLD_NEXT) finds it, read from the loaded modules' dynamic symbol
 * tables.  dlsym itself allocates from the program's heap: the error
 * state of a lookup that fails (a C program has no _Unwind_RaiseException)
 * and a dependency record when the definition is in a module the agent
 * does not depend on (an allocator the program brought).  Either moves
 * every later block of the program.
 *
 * Modules are searched in load order after the agent, which is the
 * order of the program's global scope for the modules loaded at start
 * (the program, the preloaded ones, their dependencies breadth first);
 * a module loaded later is searched too.  Only default versions are
 * taken, as an unversioned lookup does.  dl_iterate_phdr takes the
 * loader's lock: not for a signal handler.
 */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "lib/agent/agent.h"

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

struct next_find {
	const char *name;
	uint32_t hash, gnu_hash;
	int past_self; /* the agent's module was seen: search from here */
	void *addr;
};

/* The modules' dynamic sections hold addresses, but the vDSO's (which the
 * loader does not relocate) offsets. */
static uintptr_t next_ptr(const struct dl_phdr_info *info, uintptr_t p)
{
	return p < info->dlpi_addr ? p + info->dlpi_addr : p;
}

static uint32_t next_sysv_hash(const char *s)
{
	uint32_t h = 0;

	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		h ^= (h >> 24) & 0xf0;
	}
	return h & 0x0fffffff;
}

static uint32_t next_gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

struct next_tabs {
	const ElfW(Sym) *sym;
	const char *str;
	const ElfW(Half) *versym;
	const uint32_t *gnu, *sysv;
};

/* Symbol i defines f->name, in its default version. */
static int next_match(const struct next_tabs *t, uint32_t i, const struct next_find *f)
{
	const ElfW(Sym) *s = &t->sym[i];
	int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);

	if (s->st_shndx == SHN_UNDEF || !s->st_value ||
	    (bind != STB_GLOBAL && bind != STB_WEAK) ||
	    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE &&
	     type != STT_OBJECT))
		return 0;
	/* Index 0 is local; a hidden version is an old one kept for old binaries. */
	if (t->versym && (!(t->versym[i] & 0x7fff) || (t->versym[i] & 0x8000)))
		return 0;
	return !strcmp(t->str + s->st_name, f->name);
}

/* The index of f->name in the module's table, or 0. */
static uint32_t next_lookup(const struct next_tabs *t, const struct next_find *f)
{
	if (t->gnu) {
		uint32_t nbuckets = t->gnu[0], symoffset = t->gnu[1];
		uint32_t bloom_size = t->gnu[2], bloom_shift = t->gnu[3];
		const uint64_t *bloom = (const uint64_t *)(t->gnu + 4);
		const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
		const uint32_t *chain = buckets + nbuckets;
		uint64_t word;
		uint32_t h = f->gnu_hash, i;

		if (!nbuckets || !bloom_size)
			return 0;
		word = bloom[(h / 64) % bloom_size];
		if (!((word >> (h % 64)) & (word >> ((h >> bloom_shift) % 64)) & 1))
			return 0;
		i = buckets[h % nbuckets];
		if (i < symoffset)
			return 0;
		for (;; i++) {
			uint32_t ch = chain[i - symoffset];

			if ((ch | 1) == (h | 1) && next_match(t, i, f))
				return i;
			if (ch & 1)
				return 0;
		}
	}
	if (t->sysv) {
		uint32_t nbucket = t->sysv[0], nchain = t->sysv[1];
		const uint32_t *bucket = t->sysv + 2, *chain = bucket + nbucket;

		if (!nbucket)
			return 0;
		for (uint32_t i = bucket[f->hash % nbucket], n = 0; i && i < nchain && n < nchain;
		     i = chain[i], n++)
			if (next_match(t, i, f))
				return i;
	}
	return 0;
}

static int next_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct next_find *f = arg;
	const ElfW(Dyn) *dyn = NULL;
	struct next_tabs t = { 0 };
	uint32_t i;

	(void)size;
	if (!f->past_self) {
		const ElfW(Ehdr) *self = &__ehdr_start;

		f->past_self = info->dlpi_phdr ==
			       (const ElfW(Phdr) *)((const char *)self + self->e_phoff);
		return 0;
	}
	for (int k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t p = next_ptr(info, dyn->d_un.d_ptr);

		switch (dyn->d_tag) {
		case DT_SYMTAB:
			t.sym = (const ElfW(Sym) *)p;
			break;
		case DT_STRTAB:
			t.str = (const char *)p;
			break;
		case DT_VERSYM:
			t.versym = (const ElfW(Half) *)p;
			break;
		case DT_GNU_HASH:
			t.gnu = (const uint32_t *)p;
			break;
		case DT_HASH:
			t.sysv = (const uint32_t *)p;
			break;
		}
	}
	if (!t.sym || !t.str || !(i = next_lookup(&t, f)))
		return 0;
	f->addr = (void *)(info->dlpi_addr + t.sym[i].st_value);
	if (ELF64_ST_TYPE(t.sym[i].st_info) == STT_GNU_IFUNC)
		f->addr = ((void *(*)(void))f->addr)();
	return 1;
}

void *agent_next(const char *name)
{
	struct next_find f = { .name = name, .hash = next_sysv_hash(name),
			       .gnu_hash = next_gnu_hash(name) };

	dl_iterate_phdr(next_module, &f);
	return f.addr;
}
