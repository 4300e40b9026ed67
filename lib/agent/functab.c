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
 * to the next start.  Those fill in where no symbol covers, but for the
 * PLT's: a stub is not a function.
 *
 * A program may dlopen and dlclose in a loop: each module's table is read
 * and sorted once, relative to its load address, and kept by the file's
 * identity, so a load costs a stat() per module and a small index of
 * modules, not another sort of every function (which cost a program that
 * loads a library 1000 times 4x its run time, and was its first finding).
 * Tables are never unmapped (a handler may hold one) and never change;
 * the index is double-buffered under a sequence number, so a handler
 * reads a consistent one or tries again, and never waits.  Nothing here
 * uses the program's heap (glibc's qsort allocates from it).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/agent/agent.h"

struct fn_range {
	uint64_t start, end;
};

/* One module's functions, relative to its load address, sorted by start,
 * one range per start; never changed once made. */
struct functab {
	size_t n;
	uint64_t end;    /* the largest range end */
	struct fn_range r[];
};

/* A module's table, kept by the identity of its file. */
struct fn_mod {
	uint64_t dev, ino, mtime, size, name; /* name: a hash of the path */
	struct functab *t;
};

/* The loaded modules, by address: [lo, hi) holds every function of t. */
struct fn_ent {
	uint64_t lo, hi, bias;
	const struct functab *t;
};

#define FN_MAX_MODULES 2048

struct fn_index {
	size_t n;
	struct fn_ent e[FN_MAX_MODULES];
};

/* fn_idx[fn_seq & 1] is the current index; an update writes the other
 * one, then bumps fn_seq.  A reader that sees fn_seq move tries again. */
static struct fn_index fn_idx[2];
static _Atomic uint64_t fn_seq;
/* Updates are serialized (dlopen in two threads); reset in a fork child,
 * where the thread that held it is gone. */
static atomic_flag fn_lock = ATOMIC_FLAG_INIT;
static struct fn_mod *fn_cache; /* anonymous memory */
static size_t fn_ncache, fn_capcache;

/* A growing array of ranges in anonymous memory (not the program's heap). */
struct fn_buf {
	struct fn_range *r;
	size_t n, cap;
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

/*
 * PLT stubs are no function of their own: a call through one is a call
 * of the function its GOT slot names, and a caller above it must stay in
 * the chain.  ld writes an unwind entry for them, so their ranges are
 * kept to take that out.
 */
#define FN_MAX_STUBS 4

struct fn_stubs {
	size_t n;
	struct fn_range r[FN_MAX_STUBS];
};

/* The PLT sections of the ELF file at img with section headers sh, moved by bias. */
static void functab_stubs(struct fn_stubs *st, const unsigned char *img, size_t len,
			  const Elf64_Ehdr *eh, const Elf64_Shdr *sh, uint64_t bias)
{
	const Elf64_Shdr *names;

	if (eh->e_shstrndx >= eh->e_shnum)
		return;
	names = &sh[eh->e_shstrndx];
	if (names->sh_offset > len || names->sh_size > len - names->sh_offset)
		return;
	for (unsigned i = 0; i < eh->e_shnum && st->n < FN_MAX_STUBS; i++) {
		size_t room = sh[i].sh_name < names->sh_size ? names->sh_size - sh[i].sh_name : 0;
		const char *name;

		if (!room || !(sh[i].sh_flags & SHF_EXECINSTR))
			continue;
		name = (const char *)img + names->sh_offset + sh[i].sh_name;
		if (strnlen(name, room) == room)
			continue;
		if (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got"))
			st->r[st->n++] = (struct fn_range){ bias + sh[i].sh_addr,
							    bias + sh[i].sh_addr + sh[i].sh_size };
	}
}

/* The function symbols of one ELF file mapped at img (len bytes), and its
 * PLT ranges, moved by bias. */
static int functab_elf(struct fn_buf *b, struct fn_stubs *st, const unsigned char *img, size_t len,
		       uint64_t bias)
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
	functab_stubs(st, img, len, eh, sh, bias);
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

/* Sift-down of a heap of ranges ordered by start, then the widest first. */
static int fn_less(const struct fn_range *x, const struct fn_range *y)
{
	return x->start != y->start ? x->start < y->start : x->end > y->end;
}

static void fn_sift(struct fn_range *r, size_t i, size_t n)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		struct fn_range tmp;

		if (c + 1 < n && fn_less(&r[c], &r[c + 1]))
			c++;
		if (!fn_less(&r[i], &r[c]))
			return;
		tmp = r[i];
		r[i] = r[c];
		r[c] = tmp;
	}
}

/* Heapsort: in place, no allocation (libc's qsort may malloc). */
static void fn_sort(struct fn_range *r, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		fn_sift(r, i, n);
	for (size_t k = n; k-- > 1;) {
		struct fn_range tmp = r[0];

		r[0] = r[k];
		r[k] = tmp;
		fn_sift(r, 0, k);
	}
}

/* A module's ranges (absolute in b, from bias) as a table of its own,
 * without those that start in a PLT stub, or NULL. */
static struct functab *functab_make(struct fn_buf *b, const struct fn_stubs *st, uint64_t bias)
{
	struct functab *t;
	size_t n = 0;

	for (size_t i = 0; i < b->n;) {
		size_t k = 0;

		while (k < st->n && (b->r[i].start < st->r[k].start || b->r[i].start >= st->r[k].end))
			k++;
		if (k < st->n) {
			b->r[i] = b->r[--b->n];
			continue;
		}
		b->r[i].start -= bias;
		b->r[i++].end -= bias;
	}
	fn_sort(b->r, b->n);
	t = mmap(NULL, sizeof(*t) + (b->n ? b->n : 1) * sizeof(t->r[0]), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	/* One range per start: aliases name the same code, and an unwind
	 * table's start inside a symbol's range (a cold part, a symbol's
	 * own FDE) adds nothing. */
	t->end = 0;
	for (size_t i = 0; i < b->n; i++)
		if (!n || (b->r[i].start != t->r[n - 1].start && b->r[i].start >= t->r[n - 1].end)) {
			t->r[n++] = b->r[i];
			if (b->r[i].end > t->end)
				t->end = b->r[i].end;
		}
	t->n = n;
	return t;
}

static uint64_t fn_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The kept table of the file st at path, or NULL. */
static struct functab *functab_cached(const struct fn_mod *key)
{
	for (size_t i = 0; i < fn_ncache; i++) {
		const struct fn_mod *m = &fn_cache[i];

		if (m->name == key->name && m->ino == key->ino && m->dev == key->dev &&
		    m->mtime == key->mtime && m->size == key->size)
			return m->t;
	}
	return NULL;
}

static void functab_keep(const struct fn_mod *m)
{
	if (fn_ncache == fn_capcache) {
		size_t cap = fn_capcache ? fn_capcache * 2 : 64;
		void *p = mmap(NULL, cap * sizeof(*fn_cache), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return; /* read again at the next load */
		if (fn_cache) {
			memcpy(p, fn_cache, fn_ncache * sizeof(*fn_cache));
			munmap(fn_cache, fn_capcache * sizeof(*fn_cache));
		}
		fn_cache = p;
		fn_capcache = cap;
	}
	fn_cache[fn_ncache++] = *m;
}

static void functab_ident(struct fn_mod *m, const struct stat *st)
{
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	m->mtime = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
	m->size = (uint64_t)st->st_size;
}

/* The table of one module: kept from an earlier load, else read now. */
static const struct functab *functab_of(struct dl_phdr_info *info, const char *path)
{
	struct fn_buf b = { 0 };
	struct fn_stubs stubs = { 0 };
	struct fn_mod m = { .name = fn_hash(path) };
	struct stat st;
	void *img;
	int fd, read_ok = 0;

	/* One stat() when the table is kept: a program may load a library
	 * thousands of times.  A file replaced at its path since is another
	 * identity, so it is read again. */
	if (stat(path, &st) == 0) {
		functab_ident(&m, &st);
		m.t = functab_cached(&m);
		if (m.t)
			return m.t;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0) {
		functab_ident(&m, &st);
		read_ok = 1;
		if (st.st_size > 0) {
			img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (img != MAP_FAILED) {
				functab_elf(&b, &stubs, img, (size_t)st.st_size, info->dlpi_addr);
				munmap(img, (size_t)st.st_size);
			}
		}
	}
	if (fd >= 0)
		close(fd);
	functab_eh(&b, info);
	m.t = functab_make(&b, &stubs, info->dlpi_addr);
	if (b.r)
		munmap(b.r, b.cap * sizeof(*b.r));
	/* Only a file that could be identified is kept. */
	if (m.t && read_ok && m.ino)
		functab_keep(&m);
	return m.t;
}

struct fn_walk {
	struct fn_index *ix;
	char exe[PATH_MAX];
};

static int functab_module(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct fn_walk *w = arg;
	const char *path = info->dlpi_name;
	const struct functab *t;
	struct fn_ent e;
	size_t k;

	(void)sz;
	if (!path || !*path)
		path = w->exe;
	if (path[0] != '/')
		return 0; /* the vDSO */
	t = functab_of(info, path);
	if (!t || !t->n)
		return 0;
	if (w->ix->n == FN_MAX_MODULES)
		return 1;
	e = (struct fn_ent){ .lo = info->dlpi_addr + t->r[0].start, .hi = info->dlpi_addr + t->end,
			     .bias = info->dlpi_addr, .t = t };
	/* By address: a handful of modules, mostly loaded in that order. */
	for (k = w->ix->n; k > 0 && w->ix->e[k - 1].lo > e.lo; k--)
		w->ix->e[k] = w->ix->e[k - 1];
	w->ix->e[k] = e;
	w->ix->n++;
	return 0;
}

void functab_update(void)
{
	struct agent_thread *self;
	struct fn_walk w;
	ssize_t len;
	uint64_t seq;

	if (!(agent_g.tool->flags & AGENT_TOOL_FUNCS))
		return;
	/* All of it is the agent's work: samples now are not the program's. */
	self = agent_quiet_begin();
	while (atomic_flag_test_and_set_explicit(&fn_lock, memory_order_acquire))
		sched_yield();
	len = readlink("/proc/self/exe", w.exe, sizeof(w.exe) - 1);
	w.exe[len < 0 ? 0 : len] = '\0';
	seq = atomic_load_explicit(&fn_seq, memory_order_relaxed);
	w.ix = &fn_idx[(seq + 1) & 1];
	w.ix->n = 0;
	dl_iterate_phdr(functab_module, &w);
	atomic_store_explicit(&fn_seq, seq + 1, memory_order_release);
	atomic_flag_clear_explicit(&fn_lock, memory_order_release);
	agent_quiet_end(self);
}

void functab_fork_child(void)
{
	atomic_flag_clear(&fn_lock);
}

/* The range of t (module-relative) that holds addr, or NULL. */
static const struct fn_range *functab_search(const struct functab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	/* The last range that starts at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < t->r[lo - 1].end ? &t->r[lo - 1] : NULL;
}

int functab_find(uint64_t addr, uint64_t *start, uint64_t *end)
{
	for (int tries = 0; tries < 4; tries++) {
		uint64_t seq = atomic_load_explicit(&fn_seq, memory_order_acquire), bias = 0;
		const struct fn_index *ix = &fn_idx[seq & 1];
		const struct functab *t = NULL;
		const struct fn_range *r;
		size_t lo = 0, hi = ix->n;

		if (!seq)
			return 0; /* no table yet */
		if (hi > FN_MAX_MODULES)
			hi = FN_MAX_MODULES; /* a torn read: seq tells */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ix->e[mid].lo <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr < ix->e[lo - 1].hi) {
			t = ix->e[lo - 1].t;
			bias = ix->e[lo - 1].bias;
		}
		/* Another update wrote this index meanwhile: read again.
		 * Tables themselves never change nor go away. */
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&fn_seq, memory_order_relaxed) != seq)
			continue;
		if (!t || !(r = functab_search(t, addr - bias)))
			return 0;
		*start = r->start + bias;
		*end = r->end + bias;
		return 1;
	}
	return 0;
}
