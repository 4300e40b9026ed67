// SPDX-License-Identifier: GPL-2.0-only
/*
 * The functions of the loaded modules, for a tool that must know in a
 * handler which function an address is in (AGENT_TOOL_FUNCS): their
 * address ranges from each module's symbol table (.symtab, else .dynsym),
 * read from its file at start and after each dlopen, in normal context.
 *
 * The ELF headers are read here with <elf.h> rather than libelf, because
 * libelf would be loaded into the program, and only ranges are needed:
 * no names (the front end symbolizes with libdw).  A stripped module (most
 * of a distribution: .dynsym lists only its exports) still has unwind
 * tables: the sorted table of .eh_frame_hdr, mapped with the module, gives
 * the start of every function with an FDE, static ones included; each runs
 * to the next start.  Those fill in where no symbol covers.  A table is one sorted
 * array published by an atomic pointer; a handler may still be reading
 * the previous one, so old tables are never unmapped (one per dlopen).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/agent/agent.h"

struct fn_range {
	uint64_t start, end;
};

struct functab {
	size_t n;
	struct fn_range r[];
};

static struct functab *_Atomic functab_cur;

/* A growing array of ranges in anonymous memory (not the program's heap). */
struct fn_buf {
	struct fn_range *r;
	size_t n, cap;
	char exe[PATH_MAX];
};

static int fn_buf_add(struct fn_buf *b, uint64_t start, uint64_t end)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		void *p = mmap(NULL, cap * sizeof(*b->r), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -errno;
		if (b->r) {
			memcpy(p, b->r, b->n * sizeof(*b->r));
			munmap(b->r, b->cap * sizeof(*b->r));
		}
		b->r = p;
		b->cap = cap;
	}
	b->r[b->n].start = start;
	b->r[b->n].end = end;
	b->n++;
	return 0;
}

/* The function symbols of one ELF file mapped at img (len bytes), moved by bias. */
static int functab_elf(struct fn_buf *b, const unsigned char *img, size_t len, uint64_t bias)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh, *use = NULL;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > len || (len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return -ENOEXEC;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB)
			use = &sh[i];
		else if (sh[i].sh_type == SHT_DYNSYM && !use)
			use = &sh[i];
	}
	if (!use || use->sh_offset > len || use->sh_size > len - use->sh_offset)
		return 0;
	for (size_t k = 0; k < use->sh_size / sizeof(Elf64_Sym); k++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(img + use->sh_offset) + k;
		int type = ELF64_ST_TYPE(s->st_info);
		int err;

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
		    !s->st_size)
			continue;
		err = fn_buf_add(b, bias + s->st_value, bias + s->st_value + s->st_size);
		if (err)
			return err;
	}
	return 0;
}

/* The end of the executable segment of info that holds addr, or 0. */
static uint64_t functab_text_end(const struct dl_phdr_info *info, uint64_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= lo &&
		    addr < lo + ph->p_memsz)
			return lo + ph->p_memsz;
	}
	return 0;
}

/*
 * Function starts from the module's .eh_frame_hdr search table, as the
 * linkers write it (version 1, a 4-byte count, entries of two 4-byte
 * offsets from the header); other encodings are skipped.  Each function
 * runs to the next start, the last to the end of its segment.
 */
static int functab_eh(struct fn_buf *b, const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *h;
		const int32_t *tab;
		uint32_t count;
		uint64_t base;

		if (ph->p_type != PT_GNU_EH_FRAME || ph->p_memsz < 12)
			continue;
		h = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		base = (uint64_t)(uintptr_t)h;
		if (h[0] != 1 || h[2] != 0x03 /* udata4 */ || h[3] != 0x3b /* datarel|sdata4 */)
			return 0;
		memcpy(&count, h + 8, sizeof(count));
		if (count > (ph->p_memsz - 12) / 8)
			return 0;
		tab = (const int32_t *)(h + 12);
		for (uint32_t k = 0; k < count; k++) {
			uint64_t start = base + (uint64_t)(int64_t)tab[2 * k];
			uint64_t end = k + 1 < count ? base + (uint64_t)(int64_t)tab[2 * k + 2] :
						      functab_text_end(info, start);
			int err;

			if (end <= start)
				continue;
			err = fn_buf_add(b, start, end);
			if (err)
				return err;
		}
	}
	return 0;
}

static int functab_module(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct fn_buf *b = arg;
	const char *path = info->dlpi_name;
	struct stat st;
	void *img;
	int fd;

	(void)sz;
	if (!path || !*path)
		path = b->exe;
	if (path[0] != '/')
		return 0; /* the vDSO */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (img != MAP_FAILED) {
			functab_elf(b, img, (size_t)st.st_size, info->dlpi_addr);
			munmap(img, (size_t)st.st_size);
		}
	}
	close(fd);
	functab_eh(b, info);
	return 0;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* the widest alias first */
}

void functab_update(void)
{
	struct fn_buf b = { 0 };
	struct functab *t;
	size_t n = 0, bytes;
	ssize_t len;

	if (!(agent_g.tool->flags & AGENT_TOOL_FUNCS))
		return;
	len = readlink("/proc/self/exe", b.exe, sizeof(b.exe) - 1);
	b.exe[len < 0 ? 0 : len] = '\0';
	agent_quiet++;
	dl_iterate_phdr(functab_module, &b);
	agent_quiet--;
	if (b.n)
		qsort(b.r, b.n, sizeof(*b.r), fn_cmp);
	bytes = sizeof(*t) + b.n * sizeof(t->r[0]);
	t = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		agent_error(errno, "agent: no memory for the table of functions");
		goto out;
	}
	/* One range per start: aliases name the same code, and an unwind
	 * table's start inside a symbol's range (a cold part, a symbol's
	 * own FDE) adds nothing. */
	for (size_t i = 0; i < b.n; i++)
		if (!n || (b.r[i].start != t->r[n - 1].start && b.r[i].start >= t->r[n - 1].end))
			t->r[n++] = b.r[i];
	t->n = n;
	atomic_store(&functab_cur, t);
out:
	if (b.r)
		munmap(b.r, b.cap * sizeof(*b.r));
}

int functab_find(uint64_t addr, uint64_t *start, uint64_t *end)
{
	const struct functab *t = atomic_load(&functab_cur);
	size_t lo = 0, hi;

	if (!t)
		return 0;
	hi = t->n;
	/* The last range that starts at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= t->r[lo - 1].end)
		return 0;
	*start = t->r[lo - 1].start;
	*end = t->r[lo - 1].end;
	return 1;
}
