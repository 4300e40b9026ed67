/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbolizer tests.  Ground truth comes from two places:
 *  - this process itself: its own mappings (/proc/self/maps and
 *    dl_iterate_phdr), build-ids read from its loaded notes, and addresses,
 *    sizes and __LINE__ values the compiler knows; also a copy of its
 *    executable without .debug_aranges, as clang would build it;
 *  - small ELF files written here with chosen layouts, symbols and
 *    build-ids, to pin down load-bias computation (non-PIE ET_EXEC, a file
 *    page shared by two segments), sizeless symbols, aliases and reuse of an
 *    address range.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/core/symbolize.h"

#define PID_SELF 1000u
#define PID_CHILD 1001u

/* ---- ground truth compiled into this file ---- */

static long tbl[100] __attribute__((used));
static int inited[4] __attribute__((used)) = { 1, 2, 3, 4 }; /* file-backed .data */
static char big[1 << 20] __attribute__((used)); /* .bss past the file-backed page */
static volatile int call_line;

/* Kept whole and under its own name, so its symbol and lines are known. */
#ifdef __clang__
#define KEEP_FN __attribute__((noinline, used))
#else
#define KEEP_FN __attribute__((noinline, noclone, used))
#endif

enum { TARGET_FIRST_LINE = __LINE__ };
static KEEP_FN uintptr_t target_callee(void)
{
	return (uintptr_t)__builtin_return_address(0);
}

static KEEP_FN uintptr_t target_fn(int x)
{
	uintptr_t ra = target_callee(); call_line = __LINE__;

	return ra + (uintptr_t)x;
}
enum { TARGET_LAST_LINE = __LINE__ };

/* ---- this process's modules ---- */

struct obj {
	uint64_t lo, hi; /* runtime extent of its PT_LOADs */
	uint8_t bid[20];
	size_t bid_len;
};

struct objs {
	struct obj v[64];
	int n;
};

static void note_build_id(struct obj *o, const uint8_t *p, size_t len)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= len) {
		const Elf64_Nhdr *nh = (const void *)(p + off);
		size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
		const uint8_t *np = p + off + sizeof(*nh);

		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    memcmp(np, "GNU", 4) == 0) {
			o->bid_len = nh->n_descsz > 20 ? 20 : nh->n_descsz;
			memcpy(o->bid, np + name, o->bid_len);
			return;
		}
		off += sizeof(*nh) + name + desc;
	}
}

static int objs_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objs *os = arg;
	struct obj *o;

	(void)size;
	if (os->n == 64)
		return 1;
	o = &os->v[os->n++];
	memset(o, 0, sizeof(*o));
	o->lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD) {
			if (a < o->lo)
				o->lo = a;
			if (a + ph->p_memsz > o->hi)
				o->hi = a + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !o->bid_len) {
			note_build_id(o, (const uint8_t *)(uintptr_t)a, ph->p_filesz);
		}
	}
	return 0;
}

static const struct obj *objs_find(const struct objs *os, uint64_t addr)
{
	for (int i = 0; i < os->n; i++)
		if (os->v[i].lo <= addr && addr < os->v[i].hi)
			return &os->v[i];
	return NULL;
}

static void exe_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	assert_true(n > 0);
	buf[n] = 0;
}

/*
 * Register every file mapping of /proc/self/maps as the agent would, with
 * the build-id of the loaded object it belongs to; the executable's is
 * corrupted when asked, and its path replaced by exe_as if given.
 * Returns the number of mappings registered.
 */
static int register_maps(struct symbolizer *s, uint32_t pid, bool bad_exe_bid,
			 const char *exe_as)
{
	char exe[PATH_MAX], line[PATH_MAX + 128];
	struct objs os = { .n = 0 };
	FILE *fp = fopen("/proc/self/maps", "r");
	int n = 0;

	assert_non_null(fp);
	exe_path(exe, sizeof(exe));
	dl_iterate_phdr(objs_cb, &os);
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long lo, hi, off;
		char perm[8], path[PATH_MAX];
		const struct obj *o;
		uint8_t bid[20];
		size_t bid_len = 0;

		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &lo, &hi,
			   perm, &off, path) < 4 || path[0] != '/')
			continue;
		o = objs_find(&os, lo);
		if (o) {
			bid_len = o->bid_len;
			memcpy(bid, o->bid, bid_len);
		}
		if (strcmp(path, exe) == 0) {
			if (bad_exe_bid) {
				assert_true(bid_len > 0);
				bid[0] ^= 0xff;
			}
			if (exe_as)
				snprintf(path, sizeof(path), "%s", exe_as);
		}
		assert_int_equal(sym_add_module(s, pid, lo, hi, off, path,
						bid_len ? bid : NULL, bid_len), 0);
		n++;
	}
	fclose(fp);
	return n;
}

struct phdr_reg {
	struct symbolizer *s;
	uint32_t pid;
	bool round; /* page-round as lib/agent/mmaps.c does */
	int n;
};

/* The dl_iterate_phdr form: one record per PT_LOAD. */
static int phdr_reg_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_reg *r = arg;
	char exe[PATH_MAX];
	const char *path = info->dlpi_name;
	struct obj o = { 0 };

	(void)size;
	if (!path[0]) {
		exe_path(exe, sizeof(exe));
		path = exe;
	}
	if (path[0] != '/')
		return 0; /* the vdso */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE && !o.bid_len)
			note_build_id(&o, (const uint8_t *)(uintptr_t)(info->dlpi_addr + ph->p_vaddr),
				      ph->p_filesz);
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr, e = a + ph->p_memsz;
		uint64_t off = ph->p_offset, pg = (uint64_t)getpagesize();

		if (ph->p_type != PT_LOAD)
			continue;
		if (r->round) {
			a &= ~(pg - 1);
			e = (e + pg - 1) & ~(pg - 1);
			off &= ~(pg - 1);
		}
		if (sym_add_module(r->s, r->pid, a, e, off, path,
				   o.bid_len ? o.bid : NULL, o.bid_len) != 0)
			return 1;
		r->n++;
	}
	return 0;
}

/* ---- synthetic ELF files ---- */

struct syn_seg {
	uint64_t vaddr, off, filesz, memsz;
	uint32_t flags;
};

struct syn_sec {
	const char *name;
	uint32_t type;
	uint64_t flags, addr, off, size;
};

struct syn_sym {
	const char *name;
	uint64_t value, size;
	unsigned char type, bind;
	uint16_t shndx; /* 1-based index into syn_elf.sec */
};

struct syn_elf {
	uint16_t type;
	const struct syn_seg *seg;
	int nseg; /* at most 4; seg[0] must start at file offset 0 */
	const struct syn_sec *sec;
	int nsec;
	const struct syn_sym *sym; /* locals first */
	int nsym;
	uint8_t bid[20];
};

#define SYN_NOTE_OFF 0x180u
#define SYN_NOTE_SIZE (sizeof(Elf64_Nhdr) + 4 + 20)

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

static size_t add_str(char *tab, size_t *len, const char *s)
{
	size_t at = *len;

	memcpy(tab + at, s, strlen(s) + 1);
	*len += strlen(s) + 1;
	return at;
}

static void syn_write(const char *path, const struct syn_elf *e)
{
	char strtab[4096], shstr[4096];
	size_t strlen_ = 1, shlen = 1, data_end = SYN_NOTE_OFF + SYN_NOTE_SIZE;
	size_t symoff, stroff, shstroff, shoff, total;
	int nsh = 1 + e->nsec + 4, nloc = 0;
	Elf64_Shdr *sh;
	uint8_t *buf;
	int fd;

	assert_true(e->nseg <= 4 && e->seg[0].off == 0);
	strtab[0] = shstr[0] = 0;
	for (int i = 0; i < e->nseg; i++)
		if (e->seg[i].off + e->seg[i].filesz > data_end)
			data_end = e->seg[i].off + e->seg[i].filesz;
	symoff = align8(data_end);
	stroff = symoff + (size_t)(e->nsym + 1) * sizeof(Elf64_Sym);
	shstroff = stroff + 2048;
	shoff = align8(shstroff + 2048);
	total = shoff + (size_t)nsh * sizeof(Elf64_Shdr);
	buf = calloc(1, total);
	assert_non_null(buf);

	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = e->type;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = (uint16_t)(e->nseg + 1);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (uint16_t)nsh;
	eh->e_shstrndx = (uint16_t)(nsh - 1);

	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	for (int i = 0; i < e->nseg; i++)
		ph[i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = e->seg[i].flags,
				      .p_offset = e->seg[i].off, .p_vaddr = e->seg[i].vaddr,
				      .p_paddr = e->seg[i].vaddr,
				      .p_filesz = e->seg[i].filesz,
				      .p_memsz = e->seg[i].memsz, .p_align = 0x1000 };
	ph[e->nseg] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R,
				    .p_offset = SYN_NOTE_OFF,
				    .p_vaddr = e->seg[0].vaddr + SYN_NOTE_OFF,
				    .p_paddr = e->seg[0].vaddr + SYN_NOTE_OFF,
				    .p_filesz = SYN_NOTE_SIZE, .p_memsz = SYN_NOTE_SIZE,
				    .p_align = 4 };
	assert_true(sizeof(*eh) + (size_t)(e->nseg + 1) * sizeof(*ph) <= SYN_NOTE_OFF);

	Elf64_Nhdr *nh = (Elf64_Nhdr *)(buf + SYN_NOTE_OFF);
	nh->n_namesz = 4;
	nh->n_descsz = 20;
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy(buf + SYN_NOTE_OFF + sizeof(*nh), "GNU", 4);
	memcpy(buf + SYN_NOTE_OFF + sizeof(*nh) + 4, e->bid, 20);

	Elf64_Sym *st = (Elf64_Sym *)(buf + symoff);
	for (int i = 0; i < e->nsym; i++) {
		const struct syn_sym *y = &e->sym[i];

		st[i + 1] = (Elf64_Sym){ .st_name = (uint32_t)add_str(strtab, &strlen_, y->name),
					 .st_info = ELF64_ST_INFO(y->bind, y->type),
					 .st_shndx = y->shndx, .st_value = y->value,
					 .st_size = y->size };
		if (y->bind == STB_LOCAL)
			nloc = i + 1;
	}
	memcpy(buf + stroff, strtab, strlen_);

	sh = (Elf64_Shdr *)(buf + shoff);
	for (int i = 0; i < e->nsec; i++) {
		const struct syn_sec *c = &e->sec[i];

		sh[i + 1] = (Elf64_Shdr){ .sh_name = (uint32_t)add_str(shstr, &shlen, c->name),
					  .sh_type = c->type, .sh_flags = c->flags,
					  .sh_addr = c->addr, .sh_offset = c->off,
					  .sh_size = c->size, .sh_addralign = 8 };
	}
	int k = e->nsec + 1;
	sh[k++] = (Elf64_Shdr){ .sh_name = (uint32_t)add_str(shstr, &shlen, ".note.gnu.build-id"),
				.sh_type = SHT_NOTE, .sh_flags = SHF_ALLOC,
				.sh_addr = e->seg[0].vaddr + SYN_NOTE_OFF,
				.sh_offset = SYN_NOTE_OFF, .sh_size = SYN_NOTE_SIZE,
				.sh_addralign = 4 };
	sh[k++] = (Elf64_Shdr){ .sh_name = (uint32_t)add_str(shstr, &shlen, ".symtab"),
				.sh_type = SHT_SYMTAB, .sh_offset = symoff,
				.sh_size = (uint64_t)(e->nsym + 1) * sizeof(Elf64_Sym),
				.sh_link = (uint32_t)(e->nsec + 3),
				.sh_info = (uint32_t)(nloc + 1), .sh_addralign = 8,
				.sh_entsize = sizeof(Elf64_Sym) };
	sh[k++] = (Elf64_Shdr){ .sh_name = (uint32_t)add_str(shstr, &shlen, ".strtab"),
				.sh_type = SHT_STRTAB, .sh_offset = stroff,
				.sh_size = strlen_, .sh_addralign = 1 };
	sh[k] = (Elf64_Shdr){ .sh_name = (uint32_t)add_str(shstr, &shlen, ".shstrtab"),
			      .sh_type = SHT_STRTAB, .sh_offset = shstroff,
			      .sh_size = shlen, .sh_addralign = 1 };
	memcpy(buf + shstroff, shstr, shlen);

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, total), (ssize_t)total);
	close(fd);
	free(buf);
}

/*
 * A non-PIE executable at 0x400000 whose data segment's .bss runs past the
 * file-backed page, with sized, sizeless and aliased symbols.
 */
static const struct syn_seg exec_seg[] = {
	{ 0x400000, 0x0000, 0x1000, 0x1000, PF_R },
	{ 0x401000, 0x1000, 0x1000, 0x1000, PF_R | PF_X },
	{ 0x403e00, 0x2e00, 0x0200, 0x1200, PF_R | PF_W },
};
static const struct syn_sec exec_sec[] = {
	{ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x401000, 0x1000, 0x1000 },
	{ ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x403e00, 0x2e00, 0x200 },
	{ ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0x404000, 0x3000, 0x1000 },
};
static const struct syn_sym exec_sym[] = {
	{ "exec_tail", 0x401900, 0, STT_FUNC, STB_LOCAL, 1 },
	{ "exec_label", 0x403f00, 0, STT_OBJECT, STB_LOCAL, 2 },
	{ "exec_inner", 0x401110, 0, STT_NOTYPE, STB_LOCAL, 1 },
	{ "exec_entry", 0x401a00, 0, STT_NOTYPE, STB_LOCAL, 1 },
	{ "exec_edata", 0x403e80, 0, STT_NOTYPE, STB_LOCAL, 2 },
	{ "eobj", 0x403e10, 0x20, STT_OBJECT, STB_LOCAL, 2 },
	{ "__GI_exec_fn", 0x401100, 0x40, STT_FUNC, STB_LOCAL, 1 },
	{ "__exec_fn", 0x401100, 0x40, STT_FUNC, STB_GLOBAL, 1 },
	{ "exec_fn@@V2", 0x401100, 0x40, STT_FUNC, STB_GLOBAL, 1 },
	{ "exec_fn", 0x401100, 0x40, STT_FUNC, STB_WEAK, 1 },
	{ "exec_asm", 0x401800, 0, STT_FUNC, STB_GLOBAL, 1 },
	{ "exec_obj", 0x403e10, 0x20, STT_OBJECT, STB_GLOBAL, 2 },
	{ "exec_bss", 0x404800, 0x100, STT_OBJECT, STB_GLOBAL, 3 },
	{ "exec_tls", 0x400000, 0x100, STT_TLS, STB_GLOBAL, 2 },
};

/*
 * A shared object whose text segment ends and data segment begins inside
 * the same file page (offset 0x2000..0x2fff): the data mapping, at pgoff
 * 0x2000, also falls inside the text segment's file range.
 */
static const struct syn_seg dyn_seg[] = {
	{ 0x0000, 0x0000, 0x0800, 0x0800, PF_R },
	{ 0x1000, 0x1000, 0x1100, 0x1100, PF_R | PF_X },
	{ 0x3100, 0x2100, 0x0100, 0x2000, PF_R | PF_W },
};
static const struct syn_sec dyn_sec[] = {
	{ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, 0x1000, 0x1100 },
	{ ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x3100, 0x2100, 0x100 },
	{ ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0x3200, 0x2200, 0x1f00 },
};
static const struct syn_sym dyn_sym[] = {
	{ "dyn_fn", 0x2080, 0x40, STT_FUNC, STB_GLOBAL, 1 },
	{ "dyn_obj", 0x3110, 0x10, STT_OBJECT, STB_GLOBAL, 2 },
	{ "dyn_bss", 0x4800, 0x100, STT_OBJECT, STB_GLOBAL, 3 },
};
/* Another library, loaded where libdyn was: text only, a smaller extent. */
static const struct syn_sym other_sym[] = {
	{ "other_fn", 0x2080, 0x40, STT_FUNC, STB_GLOBAL, 1 },
};

#define DYN_BIAS 0x7f1234560000ull

struct fixture {
	struct symbolizer *s;
	char dir[64];
	char exec_path[128], dyn_path[128], other_path[128], text_path[128];
	uint8_t exec_bid[20], dyn_bid[20];
};

static int fx_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct syn_elf e;
	FILE *fp;

	if (!fx)
		return -1;
	strcpy(fx->dir, "/tmp/cdt-symtest.XXXXXX");
	if (!mkdtemp(fx->dir) || sym_create(&fx->s) != 0) {
		free(fx);
		return -1;
	}
	snprintf(fx->exec_path, sizeof(fx->exec_path), "%s/exec", fx->dir);
	snprintf(fx->dyn_path, sizeof(fx->dyn_path), "%s/libdyn.so", fx->dir);
	snprintf(fx->other_path, sizeof(fx->other_path), "%s/libother.so", fx->dir);
	snprintf(fx->text_path, sizeof(fx->text_path), "%s/notes.txt", fx->dir);
	for (int i = 0; i < 20; i++) {
		fx->exec_bid[i] = (uint8_t)(0x10 + i);
		fx->dyn_bid[i] = (uint8_t)(0x80 + i);
	}

	e = (struct syn_elf){ ET_EXEC, exec_seg, 3, exec_sec, 3, exec_sym,
			      sizeof(exec_sym) / sizeof(exec_sym[0]), { 0 } };
	memcpy(e.bid, fx->exec_bid, 20);
	syn_write(fx->exec_path, &e);
	e = (struct syn_elf){ ET_DYN, dyn_seg, 3, dyn_sec, 3, dyn_sym, 3, { 0 } };
	memcpy(e.bid, fx->dyn_bid, 20);
	syn_write(fx->dyn_path, &e);
	e.nseg = 2;
	e.nsec = 1;
	e.sym = other_sym;
	e.nsym = 1;
	e.bid[0] ^= 0x55;
	syn_write(fx->other_path, &e);
	fp = fopen(fx->text_path, "w");
	if (!fp)
		return -1;
	fputs("not an ELF file\n", fp);
	fclose(fp);
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fixture *fx = *state;
	const char *files[] = { fx->exec_path, fx->dyn_path, fx->other_path, fx->text_path };
	char copy[128];

	sym_destroy(fx->s);
	snprintf(copy, sizeof(copy), "%s/noaranges", fx->dir);
	unlink(copy);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(files[i]);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

/* ---- tests on this process ---- */

static void check_target_in(struct symbolizer *s, uint32_t pid, const char *exe)
{
	uintptr_t ra = target_fn(0);
	struct sym_info si;

	/* ra - 1 is the last byte of the call instruction. */
	assert_int_equal(sym_code(s, pid, ra - 1, &si), 0);
	assert_string_equal(si.name, "target_fn");
	assert_int_equal(si.start, (uintptr_t)target_fn);
	assert_true(si.size > 0 && ra - 1 < si.start + si.size);
	assert_string_equal(si.module, exe);
	assert_non_null(si.file);
	assert_string_equal(base_name(si.file), "test_symbolize.c");
	/* Joined to the compilation directory: the very file compiled. */
	assert_true(strlen(si.file) >= strlen(__FILE__));
	assert_string_equal(si.file + strlen(si.file) - strlen(__FILE__), __FILE__);
	if (__FILE__[0] != '/')
		assert_int_equal(access(si.file, R_OK), 0);
	assert_int_equal(si.line, call_line);
	assert_in_range(si.line, TARGET_FIRST_LINE, TARGET_LAST_LINE);

	/* The entry point: same function, a line inside it. */
	assert_int_equal(sym_code(s, pid, (uintptr_t)target_fn, &si), 0);
	assert_string_equal(si.name, "target_fn");
	assert_int_equal(si.start, (uintptr_t)target_fn);
	assert_in_range(si.line, TARGET_FIRST_LINE, TARGET_LAST_LINE);
}

static void check_target(struct symbolizer *s, uint32_t pid)
{
	char exe[PATH_MAX];

	exe_path(exe, sizeof(exe));
	check_target_in(s, pid, exe);
}

static void check_data(struct symbolizer *s, uint32_t pid)
{
	struct sym_info si;

	assert_int_equal(sym_data(s, pid, (uintptr_t)&tbl[50], &si), 0);
	assert_string_equal(si.name, "tbl");
	assert_int_equal(si.start, (uintptr_t)&tbl[0]);
	assert_int_equal(si.size, sizeof(tbl));
	assert_int_equal(si.size, 800);

	assert_int_equal(sym_data(s, pid, (uintptr_t)&inited[3], &si), 0);
	assert_string_equal(si.name, "inited");
	assert_int_equal(si.start, (uintptr_t)inited);
	assert_int_equal(si.size, sizeof(inited));

	assert_int_equal(sym_data(s, pid, (uintptr_t)&big[900000], &si), 0);
	assert_string_equal(si.name, "big");
	assert_int_equal(si.start, (uintptr_t)big);
	assert_int_equal(si.size, sizeof(big));
}

static void check_libc(struct symbolizer *s, uint32_t pid)
{
	uintptr_t a = (uintptr_t)&getpid;
	struct sym_info si;

	assert_int_equal(sym_code(s, pid, a + 2, &si), 0);
	assert_non_null(strstr(base_name(si.module), "libc"));
	assert_int_equal(si.start, a);
	assert_true(si.size > 2);
	/* Whichever alias was chosen, the dynamic linker agrees it is getpid. */
	assert_ptr_equal(dlsym(RTLD_DEFAULT, si.name), (void *)&getpid);
	assert_string_equal(si.name, "getpid");
}

static void test_self_maps(void **state)
{
	struct fixture *fx = *state;

	assert_true(register_maps(fx->s, PID_SELF, false, NULL) > 0);
	check_target(fx->s, PID_SELF);
	check_data(fx->s, PID_SELF);
	check_libc(fx->s, PID_SELF);
	assert_int_equal(sym_stale(fx->s, NULL), 0);
}

static void test_self_phdrs(void **state)
{
	struct fixture *fx = *state;
	struct phdr_reg r = { fx->s, PID_SELF, false, 0 };
	struct phdr_reg rr = { fx->s, PID_CHILD, true, 0 };

	assert_int_equal(dl_iterate_phdr(phdr_reg_cb, &r), 0);
	assert_true(r.n > 0);
	check_target(fx->s, PID_SELF);
	check_data(fx->s, PID_SELF);
	check_libc(fx->s, PID_SELF);
	assert_int_equal(dl_iterate_phdr(phdr_reg_cb, &rr), 0);
	assert_int_equal(rr.n, r.n);
	check_target(fx->s, PID_CHILD);
	check_data(fx->s, PID_CHILD);
	check_libc(fx->s, PID_CHILD);
}

/*
 * A copy of this executable whose .debug_aranges is renamed away, as in
 * clang output: lines must still be found, from the compile units.
 */
static void test_no_aranges(void **state)
{
	struct fixture *fx = *state;
	char copy[128], exe[PATH_MAX];
	FILE *fp;
	long len;
	char *buf;

	exe_path(exe, sizeof(exe));
	snprintf(copy, sizeof(copy), "%s/noaranges", fx->dir);
	fp = fopen(exe, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	len = ftell(fp);
	assert_true(len > (long)sizeof(Elf64_Ehdr));
	rewind(fp);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);

	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	char *names = buf + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++)
		if (strcmp(names + sh[i].sh_name, ".debug_aranges") == 0)
			names[sh[i].sh_name + 13] = 'z';

	fp = fopen(copy, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	free(buf);

	register_maps(fx->s, PID_SELF, false, copy);
	check_target_in(fx->s, PID_SELF, copy);
	check_data(fx->s, PID_SELF);
	unlink(copy);
}

static void test_no_symbol(void **state)
{
	struct fixture *fx = *state;
	struct sym_info si;
	char exe[PATH_MAX];
	uint64_t exe_lo = UINT64_MAX;
	struct objs os = { .n = 0 };
	void *anon = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(anon != MAP_FAILED);
	register_maps(fx->s, PID_SELF, false, NULL);

	assert_int_equal(sym_code(fx->s, PID_SELF, (uintptr_t)anon, &si), -ENOENT);
	assert_null(si.name);
	assert_null(si.module);
	assert_int_equal(sym_data(fx->s, PID_SELF, (uintptr_t)anon, &si), -ENOENT);
	assert_null(si.module);
	assert_int_equal(sym_code(fx->s, 4242u, (uintptr_t)target_fn, &si), -ENOENT);
	assert_null(si.module);
	munmap(anon, 4096);

	/* Inside the executable's ELF header: the module, but no object. */
	exe_path(exe, sizeof(exe));
	dl_iterate_phdr(objs_cb, &os);
	exe_lo = objs_find(&os, (uintptr_t)target_fn)->lo;
	assert_int_equal(sym_data(fx->s, PID_SELF, exe_lo + 0x10, &si), -ENOENT);
	assert_null(si.name);
	assert_string_equal(si.module, exe);
}

static void test_stale(void **state)
{
	struct fixture *fx = *state;
	struct sym_info si;
	char exe[PATH_MAX];
	const char *first = NULL;

	exe_path(exe, sizeof(exe));
	assert_true(register_maps(fx->s, PID_SELF, true, NULL) > 1);
	assert_int_equal(sym_code(fx->s, PID_SELF, (uintptr_t)target_fn, &si), -ENOENT);
	assert_null(si.name);
	assert_null(si.file);
	assert_string_equal(si.module, exe);
	assert_int_equal(sym_data(fx->s, PID_SELF, (uintptr_t)&inited[1], &si), -ENOENT);
	assert_null(si.name);
	assert_string_equal(si.module, exe);
	/* Several mappings of one stale file count once. */
	assert_int_equal(sym_stale(fx->s, &first), 1);
	assert_string_equal(first, exe);
	check_libc(fx->s, PID_SELF);

	/* A missing file counts; pseudo paths and non-ELF files do not. */
	assert_int_equal(sym_add_module(fx->s, 7, 0x10000, 0x20000, 0,
					"/nonexistent/cdt/libgone.so", NULL, 0), 0);
	assert_int_equal(sym_add_module(fx->s, 7, 0x30000, 0x31000, 0, "[vdso]", NULL, 0), 0);
	assert_int_equal(sym_add_module(fx->s, 7, 0x40000, 0x41000, 0, fx->text_path,
					NULL, 0), 0);
	assert_int_equal(sym_stale(fx->s, &first), 2);
	assert_string_equal(first, exe);
	assert_int_equal(sym_code(fx->s, 7, 0x10100, &si), -ENOENT);
	assert_string_equal(si.module, "/nonexistent/cdt/libgone.so");
	assert_int_equal(sym_code(fx->s, 7, 0x30100, &si), -ENOENT);
	assert_string_equal(si.module, "[vdso]");
	assert_int_equal(sym_data(fx->s, 7, 0x40100, &si), -ENOENT);
	assert_string_equal(si.module, fx->text_path);
}

static void test_fork_forget(void **state)
{
	struct fixture *fx = *state;
	struct sym_info a, b;
	const char *saved;

	register_maps(fx->s, PID_SELF, false, NULL);
	assert_int_equal(sym_fork(fx->s, PID_SELF, PID_CHILD), 0);
	check_target(fx->s, PID_CHILD);
	check_data(fx->s, PID_CHILD);

	/* Memoized and interned: the same strings, as pointers. */
	assert_int_equal(sym_code(fx->s, PID_SELF, (uintptr_t)target_fn, &a), 0);
	assert_int_equal(sym_code(fx->s, PID_CHILD, (uintptr_t)target_fn, &b), 0);
	assert_ptr_equal(a.name, b.name);
	assert_ptr_equal(a.file, b.file);
	assert_ptr_equal(a.module, b.module);
	saved = a.name;

	/* exec in the parent does not touch the child's copy. */
	assert_int_equal(sym_forget(fx->s, PID_SELF), 0);
	assert_int_equal(sym_code(fx->s, PID_SELF, (uintptr_t)target_fn, &a), -ENOENT);
	assert_null(a.module);
	check_target(fx->s, PID_CHILD);
	assert_int_equal(sym_forget(fx->s, PID_CHILD), 0);
	assert_int_equal(sym_code(fx->s, PID_CHILD, (uintptr_t)target_fn, &b), -ENOENT);
	assert_null(b.module);
	/* Strings handed out earlier stay valid after forget. */
	assert_string_equal(saved, "target_fn");

	/* An unknown parent has no modules to copy. */
	assert_int_equal(sym_fork(fx->s, 31337, 31338), 0);
	assert_int_equal(sym_code(fx->s, 31338, (uintptr_t)target_fn, &b), -ENOENT);
	assert_int_equal(sym_forget(fx->s, 55555), 0);
}

/* ---- tests on synthetic files ---- */

static void test_exec_nonpie(void **state)
{
	struct fixture *fx = *state;
	struct symbolizer *s = fx->s;
	struct sym_info si;

	assert_int_equal(sym_add_module(s, 1, 0x400000, 0x401000, 0, fx->exec_path,
					fx->exec_bid, 20), 0);
	assert_int_equal(sym_add_module(s, 1, 0x401000, 0x402000, 0x1000, fx->exec_path,
					fx->exec_bid, 20), 0);
	assert_int_equal(sym_add_module(s, 1, 0x403000, 0x404000, 0x2000, fx->exec_path,
					fx->exec_bid, 20), 0);

	/*
	 * The weak alias without underscores or version wins over __exec_fn,
	 * exec_fn@@V2 and the local __GI_exec_fn; the untyped label inside the
	 * function does not cut it short.
	 */
	assert_int_equal(sym_code(s, 1, 0x401120, &si), 0);
	assert_string_equal(si.name, "exec_fn");
	assert_int_equal(si.start, 0x401100);
	assert_int_equal(si.size, 0x40);
	assert_null(si.file);
	assert_string_equal(si.module, fx->exec_path);
	assert_int_equal(sym_code(s, 1, 0x401140, &si), -ENOENT);
	assert_null(si.name);
	assert_string_equal(si.module, fx->exec_path);

	/* Sizeless code: up to the next symbol, then up to the section end. */
	assert_int_equal(sym_code(s, 1, 0x4018ff, &si), 0);
	assert_string_equal(si.name, "exec_asm");
	assert_int_equal(si.start, 0x401800);
	assert_int_equal(si.size, 0x100);
	assert_int_equal(sym_code(s, 1, 0x4019ff, &si), 0);
	assert_string_equal(si.name, "exec_tail");
	assert_int_equal(si.size, 0x100);
	/* An untyped label in code is an entry point (assembly). */
	assert_int_equal(sym_code(s, 1, 0x401fff, &si), 0);
	assert_string_equal(si.name, "exec_entry");
	assert_int_equal(si.start, 0x401a00);
	assert_int_equal(si.size, 0x600);
	assert_int_equal(sym_code(s, 1, 0x402010, &si), -ENOENT);
	/* ... but not in data, where labels mark places like _edata. */
	assert_int_equal(sym_code(s, 1, 0x403e80, &si), -ENOENT);
	assert_int_equal(sym_data(s, 1, 0x403e80, &si), -ENOENT);

	/* Objects: sized (the global name, not the local alias "eobj"),
	 * sizeless (exact address only), .bss past the file. */
	assert_int_equal(sym_data(s, 1, 0x403e2f, &si), 0);
	assert_string_equal(si.name, "exec_obj");
	assert_int_equal(si.start, 0x403e10);
	assert_int_equal(si.size, 0x20);
	assert_int_equal(sym_data(s, 1, 0x403e30, &si), -ENOENT);
	assert_int_equal(sym_data(s, 1, 0x403f00, &si), 0);
	assert_string_equal(si.name, "exec_label");
	assert_int_equal(si.size, 0);
	assert_int_equal(sym_data(s, 1, 0x403f01, &si), -ENOENT);
	assert_int_equal(sym_data(s, 1, 0x4048ff, &si), 0);
	assert_string_equal(si.name, "exec_bss");
	assert_int_equal(si.start, 0x404800);
	assert_int_equal(si.size, 0x100);
	/* Functions are not data, and TLS offsets are not addresses. */
	assert_int_equal(sym_data(s, 1, 0x401120, &si), -ENOENT);
	assert_int_equal(sym_data(s, 1, 0x400010, &si), -ENOENT);
	assert_string_equal(si.module, fx->exec_path);
	assert_int_equal(sym_data(s, 1, 0x405000, &si), -ENOENT);
	assert_null(si.module);
	assert_int_equal(sym_stale(s, NULL), 0);
}

static void check_dyn(struct symbolizer *s, uint32_t pid, uint64_t bias)
{
	struct sym_info si;

	assert_int_equal(sym_code(s, pid, bias + 0x20a0, &si), 0);
	assert_string_equal(si.name, "dyn_fn");
	assert_int_equal(si.start, bias + 0x2080);
	assert_int_equal(sym_data(s, pid, bias + 0x311f, &si), 0);
	assert_string_equal(si.name, "dyn_obj");
	assert_int_equal(si.start, bias + 0x3110);
	assert_int_equal(sym_data(s, pid, bias + 0x4810, &si), 0);
	assert_string_equal(si.name, "dyn_bss");
	assert_int_equal(si.start, bias + 0x4800);
	assert_int_equal(sym_data(s, pid, bias + 0x3100, &si), -ENOENT);
	assert_int_equal(sym_code(s, pid, bias + 0x20c0, &si), -ENOENT);
}

static void test_dyn_bias(void **state)
{
	struct fixture *fx = *state;
	struct symbolizer *s = fx->s;
	const uint64_t b2 = 0x555555000000ull;
	struct sym_info a, b;

	/* The data mapping first: its file page also lies in the text segment. */
	assert_int_equal(sym_add_module(s, 1, DYN_BIAS + 0x3000, DYN_BIAS + 0x4000, 0x2000,
					fx->dyn_path, fx->dyn_bid, 20), 0);
	assert_int_equal(sym_add_module(s, 1, DYN_BIAS + 0x1000, DYN_BIAS + 0x3000, 0x1000,
					fx->dyn_path, fx->dyn_bid, 20), 0);
	assert_int_equal(sym_add_module(s, 1, DYN_BIAS, DYN_BIAS + 0x1000, 0,
					fx->dyn_path, fx->dyn_bid, 20), 0);
	check_dyn(s, 1, DYN_BIAS);
	/* A leftover of the loader's first whole-file mapping, inside the load,
	 * at an offset no segment has: it must not displace the load. */
	assert_int_equal(sym_add_module(s, 1, DYN_BIAS + 0x3000, DYN_BIAS + 0x4000, 0x3000,
					fx->dyn_path, fx->dyn_bid, 20), 0);
	check_dyn(s, 1, DYN_BIAS);

	/* Same file, another process, another bias, per-segment records. */
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(sym_add_module(s, 2, b2 + dyn_seg[i].vaddr,
						b2 + dyn_seg[i].vaddr + dyn_seg[i].memsz,
						dyn_seg[i].off, fx->dyn_path, fx->dyn_bid, 20),
				 0);
	check_dyn(s, 2, b2);
	assert_int_equal(sym_code(s, 1, DYN_BIAS + 0x2080, &a), 0);
	assert_int_equal(sym_code(s, 2, b2 + 0x2080, &b), 0);
	assert_ptr_equal(a.name, b.name);
	assert_int_equal(b.start - a.start, b2 - DYN_BIAS);

	/* The agent's form: page-rounded per-segment records, data first. */
	for (size_t i = 3; i-- > 0;)
		assert_int_equal(sym_add_module(s, 4, (DYN_BIAS + dyn_seg[i].vaddr) & ~0xfffull,
						(DYN_BIAS + dyn_seg[i].vaddr + dyn_seg[i].memsz +
						 0xfff) & ~0xfffull,
						dyn_seg[i].off & ~0xfffull, fx->dyn_path,
						fx->dyn_bid, 20),
				 0);
	check_dyn(s, 4, DYN_BIAS);

	/* No build-id recorded: nothing to check against, so trusted. */
	assert_int_equal(sym_add_module(s, 3, DYN_BIAS, DYN_BIAS + 0x1000, 0,
					fx->dyn_path, NULL, 0), 0);
	check_dyn(s, 3, DYN_BIAS);
	assert_int_equal(sym_stale(s, NULL), 0);
}

static void test_reuse_range(void **state)
{
	struct fixture *fx = *state;
	struct symbolizer *s = fx->s;
	uint8_t other_bid[20];
	struct sym_info si;

	memcpy(other_bid, fx->dyn_bid, 20);
	other_bid[0] ^= 0x55;
	assert_int_equal(sym_add_module(s, 1, DYN_BIAS, DYN_BIAS + 0x1000, 0,
					fx->dyn_path, fx->dyn_bid, 20), 0);
	assert_int_equal(sym_add_module(s, 1, DYN_BIAS + 0x1000, DYN_BIAS + 0x3000, 0x1000,
					fx->dyn_path, fx->dyn_bid, 20), 0);
	check_dyn(s, 1, DYN_BIAS);
	/* dlclose, then another library mapped at the same place. */
	assert_int_equal(sym_add_module(s, 1, DYN_BIAS, DYN_BIAS + 0x1000, 0,
					fx->other_path, other_bid, 20), 0);
	assert_int_equal(sym_add_module(s, 1, DYN_BIAS + 0x1000, DYN_BIAS + 0x3000, 0x1000,
					fx->other_path, other_bid, 20), 0);
	assert_int_equal(sym_code(s, 1, DYN_BIAS + 0x2090, &si), 0);
	assert_string_equal(si.name, "other_fn");
	assert_string_equal(si.module, fx->other_path);
	assert_int_equal(sym_code(s, 1, DYN_BIAS + 0x10, &si), -ENOENT);
	assert_string_equal(si.module, fx->other_path);
	/* libdyn's data and .bss went with it. */
	assert_int_equal(sym_data(s, 1, DYN_BIAS + 0x4810, &si), -ENOENT);
	assert_null(si.module);

	/* A child whose own records arrived before its fork: they win over
	 * the parent's modules in the same range. */
	assert_int_equal(sym_add_module(s, 8, DYN_BIAS, DYN_BIAS + 0x1000, 0,
					fx->dyn_path, fx->dyn_bid, 20), 0);
	assert_int_equal(sym_add_module(s, 5, DYN_BIAS + 0x1000, DYN_BIAS + 0x3000, 0x1000,
					fx->other_path, other_bid, 20), 0);
	assert_int_equal(sym_fork(s, 8, 5), 0);
	assert_int_equal(sym_code(s, 5, DYN_BIAS + 0x2090, &si), 0);
	assert_string_equal(si.name, "other_fn");
	assert_int_equal(sym_data(s, 5, DYN_BIAS + 0x4810, &si), -ENOENT);
	check_dyn(s, 8, DYN_BIAS);

	/* A wrong build-id on the synthetic library: stale, never resolved. */
	assert_int_equal(sym_add_module(s, 9, DYN_BIAS, DYN_BIAS + 0x1000, 0,
					fx->dyn_path, other_bid, 20), 0);
	assert_int_equal(sym_code(s, 9, DYN_BIAS + 0x100, &si), -ENOENT);
	assert_string_equal(si.module, fx->dyn_path);
	assert_int_equal(sym_data(s, 9, DYN_BIAS + 0x4810, &si), -ENOENT);
	assert_int_equal(sym_stale(s, NULL), 1);
}

static void test_bad_args(void **state)
{
	struct fixture *fx = *state;
	uint8_t bid[21] = { 0 };

	assert_int_equal(sym_add_module(fx->s, 1, 0x2000, 0x1000, 0, "/x", NULL, 0), -EINVAL);
	assert_int_equal(sym_add_module(fx->s, 1, 0x1000, 0x2000, 0, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sym_add_module(fx->s, 1, 0x1000, 0x2000, 0, "/x", bid, 21), -EINVAL);
	assert_int_equal(sym_add_module(fx->s, 1, 0x1000, 0x2000, 0, "/x", NULL, 4), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_self_maps, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_self_phdrs, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_no_aranges, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_no_symbol, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stale, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fork_forget, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_exec_nonpie, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_dyn_bias, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_reuse_range, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_args, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
