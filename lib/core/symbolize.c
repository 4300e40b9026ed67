/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbolization after the run, in the front end.
 *
 * Each distinct ELF file (path + the build-id the agent recorded) is opened
 * once, as the only module of its own Dwfl, reported at its link-time
 * addresses (load bias 0).  A process is then just a list of module loads:
 * (file, runtime bias, address range).  Resolving a runtime address means
 * finding the load, subtracting its bias and looking the file-relative
 * address up; so processes that share a library (fork, many ranks, many
 * execs of one program) share its tables, its DWARF and the cache of
 * resolved addresses.
 *
 * Names come from per-file tables of function and object symbols sorted by
 * address (binary search), built once on the first lookup: libdwfl's own
 * address-to-symbol search scans the whole symbol table per call, far too
 * slow for 10^5..10^6 addresses.  Source lines come from
 * dwfl_module_getsrc, which also finds separate debuginfo
 * (/usr/lib/debug/.build-id) through the standard callbacks, or from the
 * compile units' own ranges when the file has no .debug_aranges (clang).
 * Code lookups are memoized per (file, address).  A file with a build ID
 * keeps its tables, lines and call sites for the next run (symcache.h):
 * loaded on its first lookup instead of its symbol table, written by
 * sym_save.
 *
 * Semantics callers may rely on:
 *  - Returned strings are interned: equal strings are equal pointers, valid
 *    until sym_destroy.
 *  - sym_code: out->file is joined to the compilation directory when the
 *    DWARF names it relative to an absolute one; otherwise as recorded.
 *  - sym_code: size-0 function symbols (assembly) extend to the next symbol
 *    or the end of their section; out->size is that extent.
 *  - sym_data: STT_OBJECT symbols only; a size-0 object matches its exact
 *    address only (out->size 0).  STT_TLS symbols are not used: their values
 *    are offsets into each thread's TLS block, which lives outside the
 *    module's mappings, so no address in the module can belong to them.
 *  - A load covers its reported mappings plus the whole extent of the
 *    file's PT_LOAD segments, so .bss beyond the file-backed pages (an
 *    anonymous mapping the agent does not report) resolves too.
 *  - Modules whose recorded build-id differs from the file on disk, or
 *    whose file cannot be opened, are counted by sym_stale and never
 *    resolved (out->module is still set).  Pseudo paths ("[vdso]", memfds,
 *    "/proc/self/..." which would name the front end's own files) and
 *    non-ELF files are not counted: there is no file that could have
 *    changed.
 *  - Among aliases at one address, one name is chosen (see sym_rank).
 *  - A new mapping over a range held by another load replaces it (the old
 *    one was unmapped); at a fork the child's own earlier records win.
 *  - sym_fork of an unknown parent copies an empty set and returns 0;
 *    sym_forget of an unknown pid returns 0.
 *  - Errors other than -ENOENT: -EINVAL for bad arguments, -ENOMEM.
 */
#include "lib/core/symbolize.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/array.h"
#include "lib/core/debugfind.h"
#include "lib/core/hash.h"
#include "lib/core/names.h"
#include "lib/core/symcache.h"

#define BUILD_ID_MAX 20 /* rec_mmap.build_id */

/* ---- string interning ---- */

#define STR_BLOCK 65536

struct str_block {
	struct str_block *next;
	size_t used, cap;
	char data[];
};

struct strtab {
	struct str_block *blocks;
	const char **s; /* every string, in the order interned */
	size_t n, cap;
	struct hash ix; /* over s */
};

/* ---- per-file symbol tables ---- */

struct sym_ent {
	uint64_t start, end; /* [start, end) matches; file-relative */
	uint64_t size;       /* what sym_info.size reports */
	const char *name;    /* interned */
};

struct sym_table {
	struct sym_ent *e;
	uint64_t *maxend; /* maxend[i] = max(e[0..i].end): bounds the walk left */
	size_t n;
};

enum file_state {
	FS_OK,      /* opened, build-id matches (or none was recorded) */
	FS_STALE,   /* build-id differs from the recorded one */
	FS_MISSING, /* cannot be opened */
	FS_NOFILE,  /* pseudo path: nothing on disk to read */
	FS_NOTELF,  /* a file, but no loadable ELF */
};

struct seg {
	uint64_t vaddr, offset, filesz, memsz;
};

/* A compile unit's address range, module-relative. */
struct cu_range {
	uint64_t lo, hi, maxhi; /* maxhi: as sym_table.maxend */
	Dwarf_Off off;          /* of the CU DIE */
};

struct sym_file {
	struct sym_file *next; /* in creation order, for sym_stale's "first" */
	const char *path;      /* interned */
	uint8_t bid[BUILD_ID_MAX];
	uint32_t bid_len;
	enum file_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod; /* reported at link-time addresses */
	bool exec;        /* ET_EXEC: loaded at its link-time addresses */
	struct seg *seg;  /* PT_LOAD segments */
	size_t nseg;
	uint64_t ext_lo, ext_hi; /* page-rounded extent of all PT_LOADs */
	bool tables;             /* code/data built */
	struct sym_table code, data;
	/* Kept between runs (symcache.h), for files with a build ID. */
	bool cache_read;     /* symcache_load tried */
	bool cache_tables;   /* code/data came from it */
	bool cache_dirty;    /* records to save */
	struct symcache cache;
	struct hash lines_ix; /* over cache.v's lines and sites, by (address, kind) */
	bool cus; /* cu/dw built */
	struct cu_range *cu;
	size_t ncu;
	Dwarf *dw;
	Dwarf_Addr dwbias;
};

/* ---- processes ---- */

/* One load of a file in a process. */
struct sym_inst {
	uint64_t lo, hi; /* runtime range [lo, hi) */
	uint64_t maxhi;  /* max hi of this and all earlier (sorted) loads */
	uint64_t bias;   /* runtime - file-relative address */
	struct sym_file *f;
	bool nobias; /* no segment matched the mapping: name the module only */
};

struct sym_proc {
	uint32_t pid;
	bool dirty; /* v needs sorting before the next lookup */
	struct sym_inst *v;
	size_t n, cap;
};

/* ---- memo of resolved code addresses ---- */

struct memo_ent {
	const struct sym_file *f;
	uint64_t v;               /* file-relative address */
	uint64_t start, size;     /* file-relative */
	const char *name, *src;
	uint32_t line;
	/* Code inlined from a library header into the program's (code_own):
	 * the program's function there (NULL: the symbol's), the calls. */
	const char *own, *inl;
};

struct symbolizer {
	struct strtab str;
	struct sym_file *files, **files_tail;
	struct sym_proc **proc; /* each allocated once, so pointers stay valid */
	size_t proc_n, proc_cap;
	struct hash proc_ix;    /* over proc, by pid */
	struct memo_ent *memo;
	size_t memo_n, memo_cap;
	struct hash memo_ix;    /* over memo, by (file, address) */
	uint64_t pagesz;
};

static const Dwfl_Callbacks sym_dwfl_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = debugfind_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static char *str_alloc(struct strtab *t, size_t len)
{
	struct str_block *b = t->blocks;

	if (!b || b->cap - b->used < len) {
		size_t cap = len > STR_BLOCK ? len : STR_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		/* A string bigger than a block gets its own, behind the current one. */
		if (cap > STR_BLOCK && t->blocks) {
			b->next = t->blocks->next;
			t->blocks->next = b;
		} else {
			b->next = t->blocks;
			t->blocks = b;
		}
	}
	char *p = b->data + b->used;
	b->used += len;
	return p;
}

/* The interned copy of s; NULL only when s is NULL or memory ran out. */
static const char *str_intern(struct strtab *t, const char *s)
{
	size_t len;
	uint64_t hv;
	char *p;

	if (!s)
		return NULL;
	len = strlen(s);
	hv = hash_bytes(s, len);
	for (size_t c = 0, i; (i = hash_walk(&t->ix, hv, &c)) != HASH_NONE;)
		if (strcmp(t->s[i], s) == 0)
			return t->s[i];
	p = str_alloc(t, len + 1);
	if (!p || array_grow(&t->s, &t->cap, t->n, sizeof(*t->s)) || hash_add(&t->ix, hv, t->n))
		return NULL;
	memcpy(p, s, len + 1);
	t->s[t->n++] = p;
	return p;
}

static void str_free(struct strtab *t)
{
	while (t->blocks) {
		struct str_block *b = t->blocks;

		t->blocks = b->next;
		free(b);
	}
	free(t->s);
	hash_free(&t->ix);
}

/* ---- symbol tables ---- */

struct sym_cand {
	uint64_t start, size, sec_end;
	const char *name;
	unsigned rank; /* lower is the better alias */
};

/*
 * Among aliases at one address show the one a programmer wrote: sized
 * before sizeless; visible (global or weak) before local, so a hidden
 * internal alias (glibc's __GI_*) loses; unversioned before "name@VER";
 * fewer underscores ("getpid" before "__getpid", "puts" before
 * "_IO_puts"); global before weak; a function or object
 * before an IFUNC resolver before an untyped label.
 */
static unsigned sym_rank(const char *name, const GElf_Sym *sym)
{
	unsigned under = 0, bind = GELF_ST_BIND(sym->st_info), type;

	for (const char *p = name; *p && under < 15; p++)
		under += *p == '_';
	switch (GELF_ST_TYPE(sym->st_info)) {
	case STT_GNU_IFUNC:
		type = 1;
		break;
	case STT_NOTYPE:
		type = 2;
		break;
	default:
		type = 0;
		break;
	}
	return (unsigned)!sym->st_size << 16 |
	       (unsigned)(bind != STB_GLOBAL && bind != STB_WEAK) << 15 |
	       (unsigned)(strchr(name, '@') != NULL) << 14 | under << 4 |
	       (unsigned)(bind != STB_GLOBAL) << 2 | type;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct sym_cand *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct cand_vec {
	struct sym_cand *v;
	size_t n, cap;
};

static int cand_push(struct cand_vec *cv, const struct sym_cand *c)
{
	if (array_grow(&cv->v, &cv->cap, cv->n, sizeof(*cv->v)))
		return -ENOMEM;
	cv->v[cv->n++] = *c;
	return 0;
}

/*
 * libstdc++'s demangler, the one g++'s names are made for, loaded at the
 * first mangled name: linked, libstdc++ cost every start of cdt 3 ms
 * here, and most runs take their names from kept symbols (symcache.h).
 * Without it names stay mangled.
 */
static char *sym_demangle(const char *name, int *status)
{
	static char *(*demangle)(const char *, char *, size_t *, int *);
	static bool tried;

	if (!tried) {
		void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = true;
		if (lib)
			*(void **)&demangle = dlsym(lib, "__cxa_demangle");
	}
	return demangle ? demangle(name, NULL, NULL, status) : NULL;
}

/* Rust's legacy escapes in a path component, "$LT$" for '<'. */
static const struct {
	const char *esc, *is;
} rust_esc[] = { { "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		 { "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," } };

/* Component src[0..n) of a Rust legacy path, unescaped, onto buf at *o. */
static bool rust_component(const char *src, size_t n, char *buf, size_t len, size_t *o)
{
	size_t i = src[0] == '_' && n > 1 && src[1] == '$' ? 1 : 0;

	while (i < n && *o + 4 < len) {
		size_t k, e;
		unsigned ch;

		if (src[i] == '.') {
			bool two = i + 1 < n && src[i + 1] == '.';

			*o += (size_t)snprintf(buf + *o, len - *o, "%s", two ? "::" : ".");
			i += two ? 2 : 1;
			continue;
		}
		if (src[i] != '$') {
			buf[(*o)++] = src[i++];
			continue;
		}
		for (e = i + 1; e < n && src[e] != '$'; e++)
			;
		if (e == n)
			return false;
		for (k = 0; k < sizeof(rust_esc) / sizeof(rust_esc[0]); k++)
			if (e + 1 - i == strlen(rust_esc[k].esc) &&
			    !strncmp(src + i, rust_esc[k].esc, e + 1 - i))
				break;
		if (k < sizeof(rust_esc) / sizeof(rust_esc[0]))
			buf[(*o)++] = rust_esc[k].is[0];
		else if (src[i + 1] == 'u' && sscanf(src + i + 2, "%2x", &ch) == 1 && e - i <= 4 &&
			 ch >= 0x20 && ch < 0x7f)
			buf[(*o)++] = (char)ch;
		else
			return false;
		i = e + 1;
	}
	buf[*o] = '\0';
	return i == n;
}

/*
 * A Rust symbol of the legacy mangling, _ZN 4main 4main 17h<16 hex> E, as
 * rustc-demangle and perf show it: "main::main", the hash dropped and the
 * escapes undone.  false if name is not one (a C++ name).
 */
static bool rust_demangle(const char *name, char *buf, size_t len)
{
	const char *p = name + 3, *hash = NULL;
	size_t o = 0;

	if (strncmp(name, "_ZN", 3))
		return false;
	buf[0] = '\0';
	while (*p >= '1' && *p <= '9') {
		char *end;
		unsigned long n = strtoul(p, &end, 10);

		if (n > strlen(end))
			return false;
		if (n == 17 && end[0] == 'h' && strspn(end + 1, "0123456789abcdef") >= 16 &&
		    end[17] == 'E')
			hash = end;
		else if (o && o + 2 < len)
			o += (size_t)snprintf(buf + o, len - o, "::");
		if (hash != end && !rust_component(end, n, buf, len, &o))
			return false;
		p = end + n;
	}
	/* the hash last, then E and at most a suffix of LLVM's (".llvm.123") */
	return hash && p == hash + 17 && *p == 'E' && (p[1] == '\0' || p[1] == '.');
}

/* A C++ or Rust name as people write it, interned; other names as they are. */
static const char *sym_name_intern(struct symbolizer *s, const char *name)
{
	const char *r;
	char *d, rust[1024];
	int status = -1;

	if (strncmp(name, "_Z", 2))
		return str_intern(&s->str, name);
	if (rust_demangle(name, rust, sizeof(rust)))
		return str_intern(&s->str, rust);
	d = sym_demangle(name, &status);
	r = str_intern(&s->str, status == 0 && d ? d : name);
	free(d);
	return r;
}

/*
 * Sort, keep the best alias per address, fix each entry's extent.  A
 * sizeless code label inside a sized function is dropped: the function is
 * the better answer for the addresses after the label.
 */
static int table_build(struct symbolizer *s, struct cand_vec *cv, bool code,
		       struct sym_table *t)
{
	uint64_t sized_end = 0; /* end of the sized code seen so far */
	size_t n = 0;

	if (!cv->n)
		return 0;
	qsort(cv->v, cv->n, sizeof(*cv->v), cand_cmp);
	t->e = malloc(cv->n * sizeof(*t->e));
	t->maxend = malloc(cv->n * sizeof(*t->maxend));
	if (!t->e || !t->maxend)
		return -ENOMEM;
	for (size_t i = 0; i < cv->n; i++) {
		const struct sym_cand *c = &cv->v[i];
		struct sym_ent *e = &t->e[n];

		if (n && t->e[n - 1].start == c->start)
			continue;
		if (code && !c->size && (c->start < sized_end || c->start >= c->sec_end))
			continue;
		e->name = code ? sym_name_intern(s, c->name) : str_intern(&s->str, c->name);
		if (!e->name)
			return -ENOMEM;
		e->start = c->start;
		e->size = c->size;
		e->end = c->start + (c->size ? c->size : 1);
		if (code && !c->size) {
			/* Sizeless code runs to the next symbol, within its section. */
			uint64_t end = c->sec_end;

			for (size_t j = i + 1; j < cv->n; j++) {
				if (cv->v[j].start > c->start) {
					if (cv->v[j].start < end)
						end = cv->v[j].start;
					break;
				}
			}
			e->end = end;
			e->size = end - c->start;
		} else if (code && e->end > sized_end) {
			sized_end = e->end;
		}
		t->maxend[n] = n && t->maxend[n - 1] > e->end ? t->maxend[n - 1] : e->end;
		n++;
	}
	t->n = n;
	return 0;
}

static const struct sym_ent *table_find(const struct sym_table *t, uint64_t v)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) { /* first entry starting after v */
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[mid].start <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The innermost (latest-starting) symbol that contains v. */
	for (size_t i = lo; i-- > 0 && t->maxend[i] > v;)
		if (v < t->e[i].end)
			return &t->e[i];
	return NULL;
}

static void table_free(struct sym_table *t)
{
	free(t->e);
	free(t->maxend);
	memset(t, 0, sizeof(*t));
}

/* The module address where the symbol's section ends, and whether it
 * holds code; 0 and false when unknown. */
static uint64_t section_end(Elf *elf, GElf_Word shndx, Dwarf_Addr bias,
			    bool *exec)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn;

	*exec = false;
	if (!elf || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return 0;
	scn = elf_getscn(elf, shndx);
	sh = scn ? gelf_getshdr(scn, &mem) : NULL;
	if (!sh)
		return 0;
	*exec = (sh->sh_flags & SHF_EXECINSTR) != 0;
	return sh->sh_addr + sh->sh_size + bias;
}

/* ---- results kept between runs (symcache.h) ---- */

static int rec_cmp(const void *a, const void *b)
{
	const struct symcache_rec *x = *(const struct symcache_rec *const *)a;
	const struct symcache_rec *y = *(const struct symcache_rec *const *)b;

	return (x->a > y->a) - (x->a < y->a);
}

/* Table t from the kept symbols of one kind, as table_build left them. */
static int table_load(struct symbolizer *s, const struct symcache *c, char kind,
		      struct sym_table *t)
{
	const struct symcache_rec **r;
	size_t n = 0;
	int err = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->v[i].kind == kind;
	if (!n)
		return 0;
	r = malloc(n * sizeof(*r));
	t->e = malloc(n * sizeof(*t->e));
	t->maxend = malloc(n * sizeof(*t->maxend));
	if (!r || !t->e || !t->maxend) {
		err = -ENOMEM;
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].kind == kind)
			r[n++] = &c->v[i];
	qsort(r, n, sizeof(*r), rec_cmp);
	for (size_t i = 0; i < n; i++) {
		struct sym_ent *e = &t->e[i];

		e->name = str_intern(&s->str, r[i]->text);
		if (!e->name) {
			err = -ENOMEM;
			goto out;
		}
		e->start = r[i]->a;
		e->size = r[i]->b;
		e->end = e->start + (e->size ? e->size : 1);
		if (e->end < e->start) {
			err = -EINVAL; /* a damaged record */
			goto out;
		}
		t->maxend[i] = i && t->maxend[i - 1] > e->end ? t->maxend[i - 1] : e->end;
	}
	t->n = n;
out:
	free(r);
	return err;
}

/*
 * The file's kept records, if they were made from the debug file that
 * would be used now (or, made without one, none could be found now):
 * its tables from them, and its lines and sites indexed.  What is not
 * kept, or not valid, leaves f as it was; only ENOMEM is an error.
 */
static int file_cache_load(struct symbolizer *s, struct sym_file *f)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(f->mod, &bits, &vaddr), err = 0;

	if (f->cache_read || n <= 0)
		return 0;
	f->cache_read = true;
	err = symcache_load(&f->cache, bits, (size_t)n);
	if (err)
		return err == -ENOMEM ? err : 0;
	if (!symcache_debug_same(&f->cache) ||
	    (!f->cache.debug && debugfind_possible(f->mod, f->path)))
		goto drop;
	for (size_t i = 0; i < f->cache.n; i++) {
		const struct symcache_rec *r = &f->cache.v[i];

		if ((r->kind == SYMCACHE_LINE || r->kind == SYMCACHE_SITE ||
		     r->kind == SYMCACHE_NAME || r->kind == SYMCACHE_INLINE) &&
		    (err = hash_add(&f->lines_ix, hash_mix(r->a, (uint64_t)r->kind), i)))
			goto drop;
	}
	err = table_load(s, &f->cache, SYMCACHE_CODE, &f->code);
	if (!err)
		err = table_load(s, &f->cache, SYMCACHE_DATA, &f->data);
	if (err)
		goto drop;
	f->tables = f->cache_tables = true;
	return 0;
drop:
	table_free(&f->code);
	table_free(&f->data);
	hash_free(&f->lines_ix);
	symcache_free(&f->cache);
	return err == -ENOMEM ? err : 0;
}

/* The kept line or site (kind) of module address v; false if none. */
static bool file_cache_line(struct symbolizer *s, struct sym_file *f, char kind, uint64_t v,
			    const char **src, uint32_t *line, int *err)
{
	uint64_t hv = hash_mix(v, (uint64_t)kind);

	*err = 0;
	for (size_t c = 0, i; (i = hash_walk(&f->lines_ix, hv, &c)) != HASH_NONE;) {
		const struct symcache_rec *r = &f->cache.v[i];

		if (r->kind != kind || r->a != v)
			continue;
		*src = r->text ? str_intern(&s->str, r->text) : NULL;
		if (r->text && !*src)
			*err = -ENOMEM;
		*line = *src ? (uint32_t)r->b : 0;
		return true;
	}
	return false;
}

/* Keep a line or site just resolved (src interned, or NULL). */
static int file_cache_add(struct sym_file *f, char kind, uint64_t v, const char *src, uint32_t line)
{
	size_t i = f->cache.n;
	int err;

	if (!f->cache_read)
		return 0; /* no build ID */
	err = symcache_add(&f->cache, kind, v, src ? line : 0, src);
	if (err || f->cache.n == i)
		return err; /* or enough kept already */
	f->cache_dirty = true;
	return hash_add(&f->lines_ix, hash_mix(v, (uint64_t)kind), i);
}

static int file_tables(struct symbolizer *s, struct sym_file *f)
{
	struct cand_vec code = { 0 }, data = { 0 };
	int n, err = 0;

	if (f->tables)
		return 0;
	err = file_cache_load(s, f);
	if (err || f->tables)
		return err;
	/* No symbol table at all is not an error: nothing will resolve. */
	n = dwfl_module_getsymtab(f->mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(f->mod, i, &sym, &addr,
							   &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info);
		struct sym_cand c;
		bool exec = false;

		if (!name || !*name || shndx == SHN_UNDEF || shndx == SHN_ABS)
			continue;
		c.start = addr;
		c.size = sym.st_size;
		c.name = name;
		c.rank = sym_rank(name, &sym);
		c.sec_end = 0;
		if (type == STT_FUNC || type == STT_GNU_IFUNC ||
		    (type == STT_NOTYPE && !c.size)) {
			/* Untyped labels count as code only in code sections
			 * (assembly entry points such as ld.so's _dl_start_user);
			 * elsewhere they are markers like _edata. */
			if (!c.size)
				c.sec_end = section_end(elf, shndx, bias, &exec);
			if (type != STT_NOTYPE || exec)
				err = cand_push(&code, &c);
		} else if (type == STT_OBJECT) {
			err = cand_push(&data, &c);
		}
		if (err)
			goto out;
	}
	err = table_build(s, &code, true, &f->code);
	if (!err)
		err = table_build(s, &data, false, &f->data);
	if (!err)
		f->tables = f->cache_dirty = true;
out:
	if (err) {
		table_free(&f->code);
		table_free(&f->data);
	}
	free(code.v);
	free(data.v);
	return err;
}

/* ---- files ---- */

/* Paths naming nothing the front end can open as the target saw it. */
static bool path_is_file(const char *p)
{
	return p[0] == '/' && strncmp(p, "/memfd:", 7) != 0 &&
	       strncmp(p, "/proc/self/", 11) != 0 &&
	       strncmp(p, "/proc/thread-self/", 18) != 0;
}

static void file_close(struct sym_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	f->dwfl = NULL;
	f->mod = NULL;
	free(f->seg);
	f->seg = NULL;
	f->nseg = 0;
	table_free(&f->code);
	table_free(&f->data);
	f->tables = false;
	symcache_free(&f->cache);
	hash_free(&f->lines_ix);
	f->cache_read = f->cache_tables = f->cache_dirty = false;
	free(f->cu);
	f->cu = NULL;
	f->ncu = 0;
	f->dw = NULL;
	f->cus = false;
}

/* The file's own build-id against the recorded one (a prefix if truncated). */
static bool file_bid_matches(struct sym_file *f)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	if (!f->bid_len)
		return true;
	n = dwfl_module_build_id(f->mod, &bits, &vaddr);
	if (n <= 0)
		return false;
	if ((uint32_t)n != f->bid_len && !(f->bid_len == BUILD_ID_MAX && n > BUILD_ID_MAX))
		return false;
	return memcmp(bits, f->bid, f->bid_len) == 0;
}

static int file_segments(struct symbolizer *s, struct sym_file *f)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	GElf_Ehdr ehdr;
	size_t phnum;

	if (!elf || !gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &phnum) != 0)
		return -ENOENT;
	f->exec = ehdr.e_type == ET_EXEC;
	f->seg = calloc(phnum ? phnum : 1, sizeof(*f->seg));
	if (!f->seg)
		return -ENOMEM;
	f->ext_lo = UINT64_MAX;
	f->ext_hi = 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (!ph || ph->p_type != PT_LOAD)
			continue;
		f->seg[f->nseg++] = (struct seg){ ph->p_vaddr, ph->p_offset,
						  ph->p_filesz, ph->p_memsz };
		uint64_t lo = ph->p_vaddr & ~(s->pagesz - 1);
		uint64_t hi = (ph->p_vaddr + ph->p_memsz + s->pagesz - 1) & ~(s->pagesz - 1);
		if (lo < f->ext_lo)
			f->ext_lo = lo;
		if (hi > f->ext_hi)
			f->ext_hi = hi;
	}
	return f->nseg ? 0 : -ENOENT;
}

/* Open f and decide its state; only allocation failure is an error. */
static int file_open(struct symbolizer *s, struct sym_file *f)
{
	const char *base;
	struct stat st;
	int fd = -1, err = 0;

	f->state = FS_NOTELF; /* until proven otherwise */
	if (!path_is_file(f->path)) {
		f->state = FS_NOFILE;
		return 0;
	}
	/* The path comes from the profile, which the program could write: a
	 * FIFO or a device there must not block the front end or be read. */
	fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		f->state = FS_MISSING;
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		f->state = FS_NOFILE;
		goto out;
	}
	f->dwfl = dwfl_begin(&sym_dwfl_cb);
	if (!f->dwfl) {
		err = -ENOMEM;
		goto out;
	}
	base = strrchr(f->path, '/') + 1;
	dwfl_report_begin(f->dwfl);
	/* Link-time addresses: base 0 plus p_vaddr, for ET_DYN and ET_EXEC alike. */
	f->mod = dwfl_report_elf(f->dwfl, base, f->path, fd, 0, true);
	if (f->mod)
		fd = -1; /* consumed by libdwfl */
	if (dwfl_report_end(f->dwfl, NULL, NULL) != 0 || !f->mod)
		goto out;
	if (!file_bid_matches(f)) {
		f->state = FS_STALE;
		goto out;
	}
	err = file_segments(s, f);
	if (err == -ENOENT)
		err = 0; /* nothing loadable: stays FS_NOTELF */
	else if (!err)
		f->state = FS_OK;
out:
	if (fd >= 0)
		close(fd);
	if (err || f->state != FS_OK)
		file_close(f);
	return err;
}

static struct sym_file *file_get(struct symbolizer *s, const char *path,
				 const uint8_t *bid, size_t bid_len, int *err)
{
	const char *ipath = str_intern(&s->str, path);
	struct sym_file *f;

	*err = 0;
	if (!ipath) {
		*err = -ENOMEM;
		return NULL;
	}
	for (f = s->files; f; f = f->next)
		if (f->path == ipath && f->bid_len == bid_len &&
		    memcmp(f->bid, bid, bid_len) == 0)
			return f;
	f = calloc(1, sizeof(*f));
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	f->path = ipath;
	f->bid_len = (uint32_t)bid_len;
	if (bid_len)
		memcpy(f->bid, bid, bid_len);
	*err = file_open(s, f);
	if (*err) {
		file_close(f);
		free(f);
		return NULL;
	}
	*s->files_tail = f;
	s->files_tail = &f->next;
	return f;
}

/* ---- processes ---- */

/* pid's module set; created empty when create is set.  Entries are never
 * removed (sym_forget empties them), so pointers stay valid. */
static struct sym_proc *proc_get(struct symbolizer *s, uint32_t pid,
				 bool create, int *err)
{
	struct sym_proc *p;

	*err = 0;
	for (size_t c = 0, i; (i = hash_walk(&s->proc_ix, hash_u64(pid), &c)) != HASH_NONE;)
		if (s->proc[i]->pid == pid)
			return s->proc[i];
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	p->pid = pid;
	*err = array_grow(&s->proc, &s->proc_cap, s->proc_n, sizeof(*s->proc));
	if (!*err)
		*err = hash_add(&s->proc_ix, hash_u64(pid), s->proc_n);
	if (*err) {
		free(p);
		return NULL;
	}
	s->proc[s->proc_n++] = p;
	return p;
}

static int proc_push(struct sym_proc *p, const struct sym_inst *in)
{
	if (array_grow(&p->v, &p->cap, p->n, sizeof(*p->v)))
		return -ENOMEM;
	p->v[p->n++] = *in;
	p->dirty = true;
	return 0;
}

static bool inst_same(const struct sym_inst *a, const struct sym_inst *b)
{
	if (a->f != b->f)
		return false;
	if (a->f->state != FS_OK || a->nobias || b->nobias)
		return a->nobias == b->nobias;
	return a->bias == b->bias;
}

/* Address space reused: a load overlapping [lo, hi) that is not `keep`
 * was unmapped before the new mapping appeared. */
static void proc_evict(struct sym_proc *p, uint64_t lo, uint64_t hi,
		       const struct sym_inst *keep)
{
	for (size_t i = 0; i < p->n;) {
		const struct sym_inst *v = &p->v[i];

		if (v->lo < hi && lo < v->hi && !inst_same(v, keep)) {
			p->v[i] = p->v[--p->n];
			p->dirty = true;
		} else {
			i++;
		}
	}
}

static int inst_cmp(const void *a, const void *b)
{
	const struct sym_inst *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

static const struct sym_inst *proc_find(struct sym_proc *p, uint64_t addr)
{
	size_t lo = 0, hi;

	if (p->dirty) {
		qsort(p->v, p->n, sizeof(*p->v), inst_cmp);
		for (size_t i = 0; i < p->n; i++)
			p->v[i].maxhi = i && p->v[i - 1].maxhi > p->v[i].hi ?
						p->v[i - 1].maxhi : p->v[i].hi;
		p->dirty = false;
	}
	hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && p->v[i].maxhi > addr;)
		if (addr < p->v[i].hi)
			return &p->v[i];
	return NULL;
}

/*
 * The load bias that maps [start, ...) at file offset pgoff onto one of
 * f's PT_LOAD segments: runtime = vaddr + bias, and file offset pgoff sits
 * at vaddr p_vaddr + (pgoff - p_offset).  Works for page-rounded mappings
 * (/proc/pid/maps), RELRO splits, and unrounded per-segment records
 * (dl_iterate_phdr).  One file page may hold the end of one segment and the
 * start of the next, so two segments can match; the right one is the
 * segment whose first page the mapping starts at (later pieces of a split
 * segment fall inside a load already known and never get here).  If both
 * qualify the earlier segment wins, which is right when records come in
 * address order, as both the agent and /proc/pid/maps give them.
 */
static int file_bias(const struct sym_file *f, uint64_t start, uint64_t pgoff,
		     uint64_t pagesz, uint64_t *bias)
{
	int best = -1;

	if (f->exec) {
		*bias = 0;
		return 0;
	}
	for (size_t i = 0; i < f->nseg; i++) {
		const struct seg *g = &f->seg[i];
		uint64_t b;
		int score;

		if (!g->filesz || pgoff < (g->offset & ~(pagesz - 1)) ||
		    pgoff >= g->offset + g->filesz)
			continue;
		b = start - (g->vaddr - g->offset + pgoff);
		score = ((start - b) & ~(pagesz - 1)) == (g->vaddr & ~(pagesz - 1));
		if (score > best) {
			best = score;
			*bias = b;
		}
	}
	return best < 0 ? -ENOENT : 0;
}

/* ---- memo ---- */

static uint64_t memo_hash(const struct sym_file *f, uint64_t v)
{
	return hash_mix((uintptr_t)f, v);
}

/*
 * The line's source file, absolute when the compilation directory is
 * known: DWARF often names files relative to it, and a viewer showing the
 * source needs a path it can open.  NULL only when memory ran out.
 */
static const char *src_intern(struct symbolizer *s, const char *dir,
			      const char *src)
{
	const char *r;
	size_t dl, sl;
	char *buf;

	if (src[0] == '/' || !dir || dir[0] != '/')
		return str_intern(&s->str, src);
	if (src[0] == '.' && src[1] == '/')
		src += 2;
	dl = strlen(dir);
	sl = strlen(src);
	buf = malloc(dl + sl + 2);
	if (!buf)
		return NULL;
	memcpy(buf, dir, dl);
	buf[dl] = '/';
	memcpy(buf + dl + 1, src, sl + 1);
	r = str_intern(&s->str, buf);
	free(buf);
	return r;
}

static int cu_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/*
 * Address ranges of the compile units, read from the units themselves.
 * dwfl_module_getsrc finds units through .debug_aranges only (libdw
 * 0.188), which clang does not emit, so without this programs built with
 * clang would get no lines.
 */
static int file_cus(struct sym_file *f)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t cap = 0;

	if (f->cus)
		return 0;
	f->dw = dwfl_module_getdwarf(f->mod, &f->dwbias);
	while (f->dw && (cu = dwfl_module_nextcu(f->mod, cu, &bias)) != NULL) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t o = 0;

		while ((o = dwarf_ranges(cu, o, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (array_grow(&f->cu, &cap, f->ncu, sizeof(*f->cu)))
				return -ENOMEM;
			f->cu[f->ncu++] = (struct cu_range){ lo + bias, hi + bias, 0,
							     dwarf_dieoffset(cu) };
		}
	}
	if (f->ncu)
		qsort(f->cu, f->ncu, sizeof(*f->cu), cu_cmp);
	for (size_t i = 0; i < f->ncu; i++)
		f->cu[i].maxhi = i && f->cu[i - 1].maxhi > f->cu[i].hi ?
					 f->cu[i - 1].maxhi : f->cu[i].hi;
	f->cus = true;
	return 0;
}

/* The module's DWARF has .debug_aranges, which dwfl_module_getsrc uses. */
static bool file_has_aranges(struct sym_file *f)
{
	Dwarf_Aranges *ar;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(f->mod, &bias);
	size_t n = 0;

	return dw && dwarf_getaranges(dw, &ar, &n) == 0 && n > 0;
}

/* The line at module address v found through file_cus; NULL if none. */
static Dwarf_Line *cu_getsrc(struct sym_file *f, uint64_t v, Dwarf_Die *cudie)
{
	size_t lo = 0, hi = f->ncu;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->cu[mid].lo <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && f->cu[i].maxhi > v;) {
		Dwarf_Line *l;

		if (v >= f->cu[i].hi || !dwarf_offdie(f->dw, f->cu[i].off, cudie))
			continue;
		l = dwarf_getsrc_die(cudie, v - f->dwbias);
		if (l)
			return l;
	}
	return NULL;
}

/* Source file and line of module address v into m. */
static int code_line(struct symbolizer *s, struct sym_file *f, uint64_t v,
		     struct memo_ent *m)
{
	const char *src = NULL, *dir = NULL;
	int line = 0, err;
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, v);

	if (l) {
		src = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
		dir = dwfl_line_comp_dir(l);
	} else {
		Dwarf_Attribute attr;
		Dwarf_Die cudie;
		Dwarf_Line *dl;

		/* A module with aranges has answered: walking all its units
		 * (libc's debug file: 0.1 s) would find no more. */
		if (file_has_aranges(f))
			return 0;
		err = file_cus(f);
		if (err)
			return err;
		dl = cu_getsrc(f, v, &cudie);
		if (dl && dwarf_lineno(dl, &line) == 0) {
			src = dwarf_linesrc(dl, NULL, NULL);
			dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &attr));
		}
	}
	if (!src)
		return 0;
	m->src = src_intern(s, dir, src);
	if (!m->src)
		return -ENOMEM;
	m->line = line > 0 ? (uint32_t)line : 0;
	return 0;
}

#define CALL_LEN 5 /* x86-64's direct call */

/* The inlined calls around a code address, innermost first (code_chain). */
#define CHAIN_MAX 24
struct chain {
	struct chain_lvl {
		const char *name; /* the function, demangled; NULL if unknown */
		const char *src;  /* level 0: not set (the line table's); then the
				   * line of the call into the level before */
		uint32_t line;
	} lv[CHAIN_MAX];
	int n;               /* 0: not in inlined code */
	const char *site;    /* the outermost call's line, in the function */
	uint32_t site_line;
};

/* A function without a linkage name (a lambda's operator(), a C
 * function) qualified by the scopes it is declared in, as "main::<lambda()>::operator()". */
static const char *scope_qualified(Dwarf_Die *d, const char *name, char *buf, size_t len)
{
	Dwarf_Attribute attr;
	Dwarf_Die decl = *d, *sc = NULL;
	size_t o = 0;
	int n;

	/* the concrete call, its abstract function, that one's declaration */
	for (int k = 0; k < 2; k++) {
		Dwarf_Die next;

		if (dwarf_formref_die(dwarf_attr(&decl, DW_AT_abstract_origin, &attr), &next) ||
		    dwarf_formref_die(dwarf_attr(&decl, DW_AT_specification, &attr), &next))
			decl = next;
	}
	n = dwarf_getscopes_die(&decl, &sc);
	for (int i = n - 1; i > 0; i--) {
		int tag = dwarf_tag(&sc[i]);
		const char *p = dwarf_diename(&sc[i]);

		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
		    tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_subprogram)
			continue;
		/* C++ closures are classes without a name */
		if (!p && tag != DW_TAG_subprogram)
			p = strcmp(name, "operator()") ? "{anonymous}" : "{lambda}";
		if (p && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s::", p);
	}
	free(sc);
	if (!o)
		return name;
	snprintf(buf + (o < len ? o : len - 1), len - (o < len ? o : len - 1), "%s", name);
	return buf;
}

/* A scope's function: its linkage name demangled, else its name. */
static int scope_name(struct symbolizer *s, Dwarf_Die *d, const char **out)
{
	Dwarf_Attribute attr;
	const char *n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &attr));
	char buf[512];

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &attr));
	*out = NULL;
	if (n)
		*out = sym_name_intern(s, n);
	else if ((n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &attr))))
		*out = str_intern(&s->str, scope_qualified(d, n, buf, sizeof(buf)));
	return n && !*out ? -ENOMEM : 0;
}

/* The line an inlined subroutine was called from; *src NULL if unknown. */
static int scope_call(struct symbolizer *s, Dwarf_Die *cu, Dwarf_Die *d, const char **src,
		      uint32_t *line)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word fileno, lineno;
	const char *name;
	size_t nfiles;

	*src = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &attr), &fileno) != 0 ||
	    dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &attr), &lineno) != 0 ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || fileno >= nfiles ||
	    !(name = dwarf_filesrc(files, fileno, NULL, NULL)))
		return 0;
	*src = src_intern(s, dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)), name);
	*line = (uint32_t)lineno;
	return *src ? 0 : -ENOMEM;
}

/*
 * The scopes around pc, from the function (path[0]) in to the innermost
 * inlined call or block: namespaces and classes are entered to find the
 * function (Rust's are in their modules' namespaces, where libdw's
 * dwarf_getscopes of Debian 12 finds nothing).  Returns the depth.
 */
static int scope_path(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int depth)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return depth;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (!depth) {
				int d = scope_path(&child, pc, path, 0);

				if (d)
					return d;
			}
			break;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
			if (dwarf_haspc(&child, pc) == 1) {
				if (depth == CHAIN_MAX)
					return depth;
				path[depth] = child;
				return scope_path(&child, pc, path, depth + 1);
			}
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return depth;
}

/*
 * The inlined calls around module address v: the innermost inlined
 * function, the one it was inlined into at the call's line, and so on
 * out to the function of the symbol, whose level ends the chain.  names:
 * the functions' names too (the site needs only the lines).  0 or -ENOMEM.
 */
static int code_chain(struct symbolizer *s, struct sym_file *f, uint64_t v, bool names,
		      struct chain *c)
{
	Dwarf_Die cubuf, *cu, path[CHAIN_MAX];
	Dwarf_Addr bias = 0;
	const char *src = NULL;
	uint32_t line = 0;
	int n, err = 0;

	memset(c, 0, sizeof(*c));
	cu = dwfl_module_addrdie(f->mod, v, &bias);
	if (!cu) {
		err = file_cus(f);
		if (err)
			return err;
		if (!cu_getsrc(f, v, &cubuf))
			return 0;
		cu = &cubuf;
		bias = f->dwbias;
	}
	n = scope_path(cu, v - bias, path, 0);
	for (int i = n - 1; i >= 0 && !err; i--) {
		int tag = dwarf_tag(&path[i]);

		if (tag == DW_TAG_lexical_block)
			continue;
		if (tag == DW_TAG_subprogram && !c->n)
			return 0; /* in no inlined code */
		c->lv[c->n].src = src;
		c->lv[c->n].line = line;
		err = names ? scope_name(s, &path[i], &c->lv[c->n].name) : 0;
		c->n++;
		if (!err && tag == DW_TAG_inlined_subroutine)
			err = scope_call(s, cu, &path[i], &src, &line);
		if (src) {
			c->site = src;
			c->site_line = line;
		}
	}
	return err;
}

/*
 * Where in its function the code at module address v is, past inlined
 * calls: the line of the outermost inlined call around v.  *src stays
 * NULL when v is in no inlined code; 0 or -ENOMEM.
 */
static int code_site(struct symbolizer *s, struct sym_file *f, uint64_t v, const char **src,
		     uint32_t *line)
{
	struct chain c;
	int err = code_chain(s, f, v, false, &c);

	/* v is a return address less 1, the call's last byte, which GCC's
	 * ranges of inlined code sometimes leave out; the first byte of a
	 * direct call (5 bytes on x86-64) is in them. */
	if (!err && !c.n && v >= CALL_LEN - 1)
		err = code_chain(s, f, v - (CALL_LEN - 1), false, &c);
	if (!err && c.site) {
		*src = c.site;
		*line = c.site_line;
	}
	return err;
}

/* A function of a standard library instantiated in the program, whose
 * code is mostly the program's inlined into it (std::thread's _M_run). */
static bool std_function(const char *name)
{
	static const char *const ns[] = { "std::", "__gnu_cxx::", "core::", "alloc::", NULL };

	for (int i = 0; name && ns[i]; i++)
		if (!strncmp(name, ns[i], strlen(ns[i])))
			return true;
	return false;
}

/*
 * Code of a library header inlined into the program's (std::atomic's
 * fetch_add, Rust's core): its line is the program's line that used it,
 * the innermost level of the calls whose line is not the toolchain's
 * (names_toolchain_file), and its function that level's function when
 * it is not the symbol's; m->inl keeps the calls, "f (a.h:3) < g (b.c:9)".
 * The same in a standard library's function (std_function).  Nothing
 * changes where no level is the program's.  0 or -ENOMEM.
 */
static int code_own(struct symbolizer *s, struct sym_file *f, struct memo_ent *m)
{
	struct chain c;
	char buf[2048];
	size_t o = 0;
	int err, own = -1;

	if (!m->src || (!names_toolchain_file(m->src) && !std_function(m->name)))
		return 0;
	err = code_chain(s, f, m->v, true, &c);
	if (err || !c.n)
		return err;
	c.lv[0].src = m->src;
	c.lv[0].line = m->line;
	for (int i = 0; i < c.n; i++) {
		const char *b = c.lv[i].src ? strrchr(c.lv[i].src, '/') : NULL;

		if (own < 0 && c.lv[i].src && !names_toolchain_file(c.lv[i].src))
			own = i;
		if (o < sizeof(buf))
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s (%s:%u)", i ? " < " : "",
					      c.lv[i].name ? c.lv[i].name : "?",
					      b ? b + 1 : c.lv[i].src ? c.lv[i].src : "?", c.lv[i].line);
	}
	if (own < 0)
		return 0;
	m->src = c.lv[own].src;
	m->line = c.lv[own].line;
	/* The last level is the symbol's function, named already. */
	m->own = own < c.n - 1 ? c.lv[own].name : NULL;
	m->inl = str_intern(&s->str, buf);
	return m->inl ? 0 : -ENOMEM;
}

/* The kept name and calls of code_own, if the line was kept. */
static int code_own_kept(struct symbolizer *s, struct sym_file *f, struct memo_ent *m)
{
	uint32_t dummy;
	int err;

	if (file_cache_line(s, f, SYMCACHE_NAME, m->v, &m->own, &dummy, &err) && err)
		return err;
	if (file_cache_line(s, f, SYMCACHE_INLINE, m->v, &m->inl, &dummy, &err) && err)
		return err;
	return 0;
}

static int code_resolve(struct symbolizer *s, struct sym_file *f, uint64_t v,
			struct memo_ent *m)
{
	const struct sym_ent *e;
	int err = file_tables(s, f);

	if (err)
		return err;
	memset(m, 0, sizeof(*m));
	m->f = f;
	m->v = v;
	e = table_find(&f->code, v);
	if (e) {
		m->name = e->name;
		m->start = e->start;
		m->size = e->size;
	}
	/* The module sits at its link-time addresses, so v is a module address. */
	if (file_cache_line(s, f, SYMCACHE_LINE, v, &m->src, &m->line, &err))
		return err ? err : code_own_kept(s, f, m);
	err = code_line(s, f, v, m);
	if (!err)
		err = code_own(s, f, m);
	if (!err)
		err = file_cache_add(f, SYMCACHE_LINE, v, m->src, m->line);
	if (!err && m->own)
		err = file_cache_add(f, SYMCACHE_NAME, v, m->own, 0);
	if (!err && m->inl)
		err = file_cache_add(f, SYMCACHE_INLINE, v, m->inl, 0);
	return err;
}

/* code_site, through the records kept between runs. */
static int code_site_kept(struct symbolizer *s, struct sym_file *f, uint64_t v, const char **src,
			  uint32_t *line)
{
	int err;

	if (file_cache_line(s, f, SYMCACHE_SITE, v, src, line, &err))
		return err;
	err = code_site(s, f, v, src, line);
	if (!err)
		err = file_cache_add(f, SYMCACHE_SITE, v, *src, *line);
	return err;
}

static int memo_get(struct symbolizer *s, struct sym_file *f, uint64_t v,
		    struct memo_ent *out)
{
	uint64_t hv = memo_hash(f, v);
	int err;

	for (size_t c = 0, i; (i = hash_walk(&s->memo_ix, hv, &c)) != HASH_NONE;) {
		if (s->memo[i].f == f && s->memo[i].v == v) {
			*out = s->memo[i];
			return 0;
		}
	}
	err = code_resolve(s, f, v, out);
	if (!err)
		err = array_grow(&s->memo, &s->memo_cap, s->memo_n, sizeof(*s->memo));
	if (!err)
		err = hash_add(&s->memo_ix, hv, s->memo_n);
	if (!err)
		s->memo[s->memo_n++] = *out;
	return err;
}

/* ---- API ---- */

int sym_create(struct symbolizer **out)
{
	struct symbolizer *s;
	long pg = sysconf(_SC_PAGESIZE);

	if (!out)
		return -EINVAL;
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->files_tail = &s->files;
	s->pagesz = pg > 0 ? (uint64_t)pg : 4096;
	*out = s;
	return 0;
}

void sym_destroy(struct symbolizer *s)
{
	if (!s)
		return;
	while (s->files) {
		struct sym_file *f = s->files;

		s->files = f->next;
		file_close(f);
		free(f);
	}
	for (size_t i = 0; i < s->proc_n; i++) {
		free(s->proc[i]->v);
		free(s->proc[i]);
	}
	free(s->proc);
	hash_free(&s->proc_ix);
	free(s->memo);
	hash_free(&s->memo_ix);
	str_free(&s->str);
	free(s);
}

int sym_add_module(struct symbolizer *s, uint32_t pid, uint64_t start,
		   uint64_t end, uint64_t pgoff, const char *path,
		   const uint8_t *build_id, size_t build_id_len)
{
	struct sym_inst in = { .lo = start, .hi = end };
	struct sym_proc *p;
	int err;

	if (!s || !path || start >= end || build_id_len > BUILD_ID_MAX ||
	    (build_id_len && !build_id))
		return -EINVAL;
	in.f = file_get(s, path, build_id, build_id_len, &err);
	if (!in.f)
		return err;
	p = proc_get(s, pid, true, &err);
	if (!p)
		return err;
	/* Gaps and repeats of a load already known (its extent covers them). */
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].f == in.f && p->v[i].lo <= start && end <= p->v[i].hi)
			return 0;
	if (in.f->state == FS_OK &&
	    file_bias(in.f, start, pgoff, s->pagesz, &in.bias) == 0) {
		uint64_t lo = in.bias + in.f->ext_lo, hi = in.bias + in.f->ext_hi;

		if (lo < in.lo)
			in.lo = lo;
		if (hi > in.hi)
			in.hi = hi;
	} else {
		in.nobias = true;
	}
	proc_evict(p, start, end, &in);
	for (size_t i = 0; i < p->n; i++) {
		struct sym_inst *v = &p->v[i];

		/* Extend the same load; unresolved ones only when they touch. */
		if (inst_same(v, &in) &&
		    (!in.nobias || (v->lo <= in.hi && in.lo <= v->hi))) {
			if (in.lo < v->lo)
				v->lo = in.lo;
			if (in.hi > v->hi)
				v->hi = in.hi;
			p->dirty = true;
			return 0;
		}
	}
	return proc_push(p, &in);
}

int sym_fork(struct symbolizer *s, uint32_t parent, uint32_t child)
{
	struct sym_proc *pp, *cp, tmp = { 0 };
	int err;

	if (!s)
		return -EINVAL;
	pp = proc_get(s, parent, false, &err);
	if (!pp || parent == child)
		return 0;
	cp = proc_get(s, child, true, &err);
	if (!cp)
		return err;
	tmp.pid = child;
	for (size_t i = 0; i < pp->n; i++) {
		err = proc_push(&tmp, &pp->v[i]);
		if (err)
			goto out;
	}
	/* Whatever the child already reported is newer than the fork. */
	for (size_t i = 0; i < cp->n; i++) {
		proc_evict(&tmp, cp->v[i].lo, cp->v[i].hi, &cp->v[i]);
		err = proc_push(&tmp, &cp->v[i]);
		if (err)
			goto out;
	}
	free(cp->v);
	*cp = tmp;
	tmp.v = NULL;
out:
	free(tmp.v);
	return err;
}

int sym_forget(struct symbolizer *s, uint32_t pid)
{
	struct sym_proc *p;
	int err;

	if (!s)
		return -EINVAL;
	p = proc_get(s, pid, false, &err);
	if (p) {
		p->n = 0;
		p->dirty = true;
	}
	return 0;
}

/* The load holding addr, with out->module set; NULL if none resolves. */
static const struct sym_inst *sym_lookup(struct symbolizer *s, uint32_t pid,
					 uint64_t addr, struct sym_info *out)
{
	const struct sym_inst *in;
	struct sym_proc *p;
	int err;

	memset(out, 0, sizeof(*out));
	p = proc_get(s, pid, false, &err);
	in = p ? proc_find(p, addr) : NULL;
	if (!in)
		return NULL;
	out->module = in->f->path;
	if (in->f->state != FS_OK || in->nobias)
		return NULL;
	return in;
}

/* sym_code; own: named after the program's function in inlined code. */
static int sym_code_own(struct symbolizer *s, uint32_t pid, uint64_t addr, bool own,
			struct sym_info *out)
{
	const struct sym_inst *in;
	struct memo_ent m;
	int err;

	if (!s || !out)
		return -EINVAL;
	in = sym_lookup(s, pid, addr, out);
	if (!in)
		return -ENOENT;
	err = memo_get(s, in->f, addr - in->bias, &m);
	if (err)
		return err;
	out->file = m.src;
	out->line = m.line;
	out->inl = m.inl;
	if (!m.name)
		return -ENOENT;
	out->name = own && m.own ? m.own : m.name;
	out->start = m.start + in->bias;
	out->size = m.size;
	return 0;
}

int sym_code(struct symbolizer *s, uint32_t pid, uint64_t addr, struct sym_info *out)
{
	return sym_code_own(s, pid, addr, true, out);
}

int sym_site(struct symbolizer *s, uint32_t pid, uint64_t addr, struct sym_info *out)
{
	const struct sym_inst *in;
	struct sym_info where;
	const char *src = NULL;
	uint32_t line = 0;
	int err = sym_code_own(s, pid, addr, false, out);

	if (err)
		return err;
	out->inl = NULL;
	in = sym_lookup(s, pid, addr, &where);
	if (!in)
		return -ENOENT;
	err = code_site_kept(s, in->f, addr - in->bias, &src, &line);
	if (!err && src) {
		out->file = src;
		out->line = line;
	}
	return err;
}

int sym_data(struct symbolizer *s, uint32_t pid, uint64_t addr,
	     struct sym_info *out)
{
	const struct sym_inst *in;
	const struct sym_ent *e;
	int err;

	if (!s || !out)
		return -EINVAL;
	in = sym_lookup(s, pid, addr, out);
	if (!in)
		return -ENOENT;
	err = file_tables(s, in->f);
	if (err)
		return err;
	e = table_find(&in->f->data, addr - in->bias);
	if (!e)
		return -ENOENT;
	out->name = e->name;
	out->start = e->start + in->bias;
	out->size = e->size;
	return 0;
}

/* The symbols of a file whose tables were built here, as records. */
static int file_cache_tables(struct sym_file *f)
{
	int err = 0;

	for (size_t i = 0; !err && i < f->code.n; i++)
		err = symcache_add(&f->cache, SYMCACHE_CODE, f->code.e[i].start, f->code.e[i].size,
				   f->code.e[i].name);
	for (size_t i = 0; !err && i < f->data.n; i++)
		err = symcache_add(&f->cache, SYMCACHE_DATA, f->data.e[i].start, f->data.e[i].size,
				   f->data.e[i].name);
	return err;
}

void sym_save(struct symbolizer *s)
{
	for (struct sym_file *f = s ? s->files : NULL; f; f = f->next) {
		const unsigned char *bits;
		const char *mainf = NULL, *debug = NULL;
		GElf_Addr vaddr;
		int n;

		if (f->state != FS_OK || !f->cache_read || !f->cache_dirty || !f->tables ||
		    (n = dwfl_module_build_id(f->mod, &bits, &vaddr)) <= 0)
			continue;
		if (!f->cache_tables && file_cache_tables(f))
			continue;
		dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, &mainf, &debug);
		/* Debug information in the file itself is the build ID's. */
		if (debug && mainf && !strcmp(debug, mainf))
			debug = NULL;
		symcache_save(&f->cache, bits, (size_t)n, debug);
	}
}

unsigned sym_stale(const struct symbolizer *s, const char **first)
{
	unsigned n = 0;

	if (first)
		*first = NULL;
	if (!s)
		return 0;
	for (const struct sym_file *f = s->files; f; f = f->next) {
		if (f->state != FS_STALE && f->state != FS_MISSING)
			continue;
		if (!n && first)
			*first = f->path;
		n++;
	}
	return n;
}
