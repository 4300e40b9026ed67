// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt.data: writer/reader round trips, the validation of every record
 * type, truncated and corrupted files, and the replace-on-commit promise.
 *
 * `test_datafile --write-seeds DIR` writes the fuzz corpus seeds (the same
 * images the tests below check) and exits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/core/datafile.h"

/* The header's version as one u32, as 1.0 wrote it: major, then minor << 16. */
#define DF_VERSION (DF_MAJOR | DF_MINOR << 16)

#define HDR_SIZE 24u

static char tdir[256];

/* ------------------------------------------------------------- helpers */

struct recs {
	unsigned char *p; /* records back to back, as in the stream */
	size_t len, cap;
	size_t n;
};

static void recs_add(struct recs *b, const struct rec_hdr *h)
{
	if (b->len + h->size > b->cap) {
		b->cap = (b->len + h->size) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, h, h->size);
	b->len += h->size;
	b->n++;
}

static void recs_free(struct recs *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Storage for building one record, aligned like the reader's buffer. */
union rbuf {
	struct rec_hdr h;
	uint64_t align;
	unsigned char b[8192];
};

static void rec_init(union rbuf *u, uint16_t type, size_t size)
{
	memset(u, 0, sizeof(*u));
	u->h.size = (uint32_t)size;
	u->h.type = type;
}

static void fill(void *p, size_t n, unsigned seed)
{
	unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = (unsigned char)(seed + i * 37u + 1);
}

static void mk_proc(union rbuf *u, const char *exe)
{
	struct rec_proc *r = (void *)u;

	rec_init(u, REC_PROC, REC_SIZE(sizeof(*r) + strlen(exe) + 1));
	r->pid = 100, r->ppid = 1, r->time = 123456789, r->flags = PROC_F_EXEC;
	strcpy(r->exe, exe);
}

static void mk_thread(union rbuf *u, const char *name)
{
	struct rec_thread *r = (void *)u;

	rec_init(u, REC_THREAD, sizeof(*r));
	r->pid = 100, r->tid = 101, r->time = 5, r->cpu = 3,
	r->flags = THREAD_F_MAIN;
	strncpy(r->name, name, sizeof(r->name));
}

static void mk_thread_end(union rbuf *u)
{
	struct rec_thread_end *r = (void *)u;

	rec_init(u, REC_THREAD_END, sizeof(*r));
	r->pid = 100, r->tid = 101, r->time = 99;
	fill(&r->st, sizeof(r->st), 7);
	strcpy(r->name, "worker-15chars!");
}

static void mk_mmap(union rbuf *u, const char *path, uint32_t idlen)
{
	struct rec_mmap *r = (void *)u;

	rec_init(u, REC_MMAP, REC_SIZE(sizeof(*r) + strlen(path) + 1));
	r->pid = 100, r->build_id_len = idlen, r->time = 7;
	r->start = 0x400000, r->end = 0x401000, r->pgoff = 0x1000;
	fill(r->build_id, sizeof(r->build_id), 3);
	strcpy(r->path, path);
}

static void mk_sample(union rbuf *u, uint64_t i)
{
	struct rec_sample *r = (void *)u;

	rec_init(u, REC_SAMPLE, sizeof(*r));
	r->pid = 100, r->tid = 101 + (uint32_t)(i % 8);
	r->time = 1000000 + i * 10007;
	r->ip = 0x401000 + (i % 97) * 16;
	r->addr = 0x7f0000000000 + ((i * 2654435761u) % (1u << 20)) * 8;
	r->cpu = (uint32_t)(i % 4), r->size = 8, r->kind = MEM_LOAD;
	r->source = SRC_SOFT, r->flags = SAMPLE_F_ADDR, r->weight = i & 0xff;
}

static void mk_error(union rbuf *u, const char *m)
{
	struct rec_error *r = (void *)u;

	rec_init(u, REC_ERROR, REC_SIZE(sizeof(*r) + strlen(m) + 1));
	r->pid = 100, r->tid = 102, r->err = EMFILE;
	strcpy(r->msg, m);
}

static void mk_meta(union rbuf *u, const char *k, const char *v)
{
	size_t kl = strlen(k) + 1, vl = strlen(v) + 1;

	rec_init(u, REC_META, REC_SIZE(sizeof(struct rec_hdr) + kl + vl));
	memcpy(u->b + sizeof(struct rec_hdr), k, kl);
	memcpy(u->b + sizeof(struct rec_hdr) + kl, v, vl);
}

static void mk_sym(union rbuf *u, const char *name, const char *file,
		   const char *module)
{
	struct rec_sym *r = (void *)u;
	size_t nl = strlen(name) + 1, fl = file ? strlen(file) + 1 : 0;
	size_t ml = strlen(module) + 1;

	rec_init(u, REC_SYM, REC_SIZE(sizeof(*r) + nl + fl + ml));
	r->pid = 100, r->kind = SYM_CODE, r->name_len = (uint16_t)nl;
	r->addr = 0x401234, r->sym_start = 0x401200, r->sym_size = 0x80;
	r->line = 42, r->file_len = (uint32_t)fl, r->module_len = (uint32_t)ml;
	memcpy(r->str, name, nl);
	if (file)
		memcpy(r->str + nl, file, fl);
	memcpy(r->str + nl + fl, module, ml);
}

static void mk_task(union rbuf *u)
{
	struct rec_task *r = (void *)u;

	rec_init(u, REC_TASK, sizeof(*r));
	r->index = 2, r->pid = 100, r->tid = 103, r->ppid = 1;
	r->start = 10, r->end = 20, r->flags = THREAD_F_NOEVENT;
	fill(&r->st, sizeof(r->st), 11);
	strcpy(r->name, "t");
}

static void mk_fixed(union rbuf *u, uint16_t type, size_t size, unsigned seed)
{
	rec_init(u, type, size);
	fill(u->b + sizeof(struct rec_hdr), size - sizeof(struct rec_hdr), seed);
}

/* One record of every type, strings included, and two tool records. */
static void all_types(struct recs *b)
{
	union rbuf u;
	struct rec_cpu *cpu = (void *)&u;

	mk_meta(&u, "cmd", "comm ./app 4");
	recs_add(b, &u.h);
	mk_meta(&u, "empty", "");
	recs_add(b, &u.h);
	rec_init(&u, REC_PAD, 16);
	recs_add(b, &u.h);
	mk_proc(&u, "/usr/bin/app");
	recs_add(b, &u.h);
	mk_thread(&u, "app");
	recs_add(b, &u.h);
	mk_mmap(&u, "/usr/lib/x86_64-linux-gnu/libc.so.6", 20);
	recs_add(b, &u.h);
	mk_sample(&u, 1);
	recs_add(b, &u.h);
	mk_fixed(&u, REC_TRAP, sizeof(struct rec_trap), 5);
	((struct rec_trap *)&u)->slot = 3;
	((struct rec_trap *)&u)->kind = MEM_RMW;
	recs_add(b, &u.h);
	mk_error(&u, "cannot open event: Too many open files");
	recs_add(b, &u.h);
	mk_thread_end(&u);
	recs_add(b, &u.h);
	mk_fixed(&u, REC_PROC_END, sizeof(struct rec_proc_end), 6);
	((struct rec_proc_end *)&u)->how = PROC_END__EXIT;
	recs_add(b, &u.h);
	rec_init(&u, REC_CPU, sizeof(*cpu));
	cpu->cpu = 3, cpu->core = 1, cpu->socket = 0, cpu->node = -1;
	recs_add(b, &u.h);
	mk_sym(&u, "main", "app.c", "/usr/bin/app");
	recs_add(b, &u.h);
	mk_sym(&u, "counter", NULL, "/usr/bin/app");
	recs_add(b, &u.h);
	mk_task(&u);
	recs_add(b, &u.h);
	mk_fixed(&u, REC_RUNSTATS, sizeof(struct rec_runstats), 9);
	recs_add(b, &u.h);
	/* an unknown tool record: opaque bytes, no NUL anywhere */
	mk_fixed(&u, REC_TOOL_BASE + 1, 72, 200);
	u.h.flags = 0x1234;
	recs_add(b, &u.h);
	rec_init(&u, REC_TOOL_BASE + 7, 8);
	recs_add(b, &u.h);
}

static int collect(const struct rec_hdr *h, void *arg)
{
	assert_int_not_equal(h->type, REC_END);
	assert_int_equal(record_validate(h), 0);
	assert_int_equal((uintptr_t)h % 8, 0);
	recs_add(arg, h);
	return 0;
}

static void path_in_tdir(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tdir, name);
}

static void write_file(const char *path, const struct recs *b)
{
	struct df_writer *w;
	size_t off;

	assert_int_equal(df_create(&w, path), 0);
	for (off = 0; off < b->len;
	     off += ((const struct rec_hdr *)(b->p + off))->size)
		assert_int_equal(df_write(w, (const void *)(b->p + off)), 0);
	assert_int_equal(df_commit(w), 0);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *p;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc(st.st_size ? (size_t)st.st_size : 1);
	assert_non_null(p);
	assert_int_equal(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static void spit(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	close(fd);
}

/*
 * A file image built by hand, so the tests (and the fuzzer's seeds) can
 * hold what the writer refuses to write.  level 0 makes stored deflate
 * blocks, whose bytes the fuzzer can mutate record by record.
 */
static unsigned char *image(const struct recs *b, int level, int add_end,
			    uint32_t version, size_t *len)
{
	struct rec_end e = { .h = { .size = sizeof(e), .type = REC_END } };
	uint32_t hdr[4] = { version, HDR_SIZE, 0, 1 };
	unsigned char *raw, *out;
	uLongf clen;
	size_t rlen = b->len + (add_end ? sizeof(e) : 0);

	raw = malloc(rlen + 1);
	assert_non_null(raw);
	if (b->len)
		memcpy(raw, b->p, b->len);
	if (add_end) {
		e.records = b->n;
		e.bytes = b->len;
		memcpy(raw + b->len, &e, sizeof(e));
	}
	clen = compressBound(rlen);
	out = malloc(HDR_SIZE + clen);
	assert_non_null(out);
	memcpy(out, DF_MAGIC, 8);
	memcpy(out + 8, hdr, sizeof(hdr));
	assert_int_equal(compress2(out + HDR_SIZE, &clen, raw, rlen, level), Z_OK);
	free(raw);
	*len = HDR_SIZE + clen;
	return out;
}

static int read_mem(const void *p, size_t len, struct recs *out, char *err,
		    size_t errlen)
{
	return df_read_mem(p, len, collect, out, err, errlen);
}

/* ------------------------------------------------------------- validation */

static void expect_bad(union rbuf *u)
{
	assert_int_equal(record_validate(&u->h), -EBADMSG);
}

static void test_validate(void **state)
{
	union rbuf u;
	struct rec_sym *sym = (void *)&u;
	struct rec_thread *th = (void *)&u;
	size_t i;

	(void)state;
	/* generic size rules */
	mk_sample(&u, 1);
	assert_int_equal(record_validate(&u.h), 0);
	u.h.size = 48;
	expect_bad(&u);
	u.h.size = 60;
	expect_bad(&u);
	u.h.size = 4;
	expect_bad(&u);
	rec_init(&u, REC_TOOL_BASE + 3, DF_MAX_RECORD + 8);
	expect_bad(&u);
	rec_init(&u, REC_TOOL_BASE + 3, DF_MAX_RECORD);
	assert_int_equal(record_validate(&u.h), 0);
	/* a tool's type passes: its tool checks it (profile_add) */
	rec_init(&u, REC_TOOL_BASE + 100, 8);
	assert_int_equal(record_validate(&u.h), 0);
	/* longer than this cdt's struct (a later minor version): passes */
	mk_sample(&u, 1);
	u.h.size = sizeof(struct rec_sample) + 16;
	assert_int_equal(record_validate(&u.h), 0);
	/* undefined types below REC_TOOL_BASE are corrupt */
	for (i = 9; i < REC_TOOL_BASE; i++) {
		if ((i >= REC_META && i <= REC_END) || i == REC_THREAD_STATS ||
		    i == REC_ALLOC || i == REC_FREE)
			continue;
		rec_init(&u, (uint16_t)i, 64);
		expect_bad(&u);
	}
	/* every fixed-size type: one byte... one record short of its size */
	{
		static const struct { uint16_t type; size_t size; } fixed[] = {
			{ REC_PROC_END, offsetof(struct rec_proc_end, how) },
			{ REC_THREAD, sizeof(struct rec_thread) },
			/* grown in 1.1: the 1.0 size is the minimum */
			{ REC_THREAD_END, offsetof(struct rec_thread_end, ext) },
			{ REC_THREAD_STATS, offsetof(struct rec_thread_end, ext) },
			/* grown in 1.2 */
			{ REC_SAMPLE, offsetof(struct rec_sample, data_src) },
			{ REC_TRAP, sizeof(struct rec_trap) },
			{ REC_CPU, sizeof(struct rec_cpu) },
			{ REC_TASK, offsetof(struct rec_task, ext) },
			/* 1.0's size, the type's minimum */
			{ REC_RUNSTATS, offsetof(struct rec_runstats, rejected) },
			{ REC_END, sizeof(struct rec_end) },
		};

		for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
			rec_init(&u, fixed[i].type, fixed[i].size);
			assert_int_equal(record_validate(&u.h), 0);
			rec_init(&u, fixed[i].type, fixed[i].size - 8);
			expect_bad(&u);
		}
	}
	/* how a process ended: a kind this cdt knows */
	rec_init(&u, REC_PROC_END, sizeof(struct rec_proc_end));
	((struct rec_proc_end *)&u)->how = PROC_END_MAX;
	assert_int_equal(record_validate(&u.h), 0);
	((struct rec_proc_end *)&u)->how = PROC_END_MAX + 1;
	expect_bad(&u);
	/* trailing strings */
	mk_proc(&u, "/bin/x");
	assert_int_equal(record_validate(&u.h), 0);
	memset(u.b + sizeof(struct rec_proc), 'a', u.h.size - sizeof(struct rec_proc));
	expect_bad(&u);
	rec_init(&u, REC_PROC, sizeof(struct rec_proc)); /* no room for a NUL */
	expect_bad(&u);
	mk_mmap(&u, "/lib/x.so", 20);
	assert_int_equal(record_validate(&u.h), 0);
	((struct rec_mmap *)&u)->build_id_len = 21;
	expect_bad(&u);
	mk_mmap(&u, "/lib/x.so", 0);
	memset(u.b + sizeof(struct rec_mmap), '/', u.h.size - sizeof(struct rec_mmap));
	expect_bad(&u);
	mk_error(&u, "oops");
	assert_int_equal(record_validate(&u.h), 0);
	memset(u.b + sizeof(struct rec_error), '!', u.h.size - sizeof(struct rec_error));
	expect_bad(&u);
	/* thread names need a NUL within their 16 bytes */
	mk_thread(&u, "abc");
	memset(th->name, 'x', 15);
	assert_int_equal(record_validate(&u.h), 0);
	memset(th->name, 'x', 16);
	expect_bad(&u);
	mk_thread_end(&u);
	memset(((struct rec_thread_end *)&u)->name, 'y', 16);
	expect_bad(&u);
	mk_thread_end(&u);
	u.h.type = REC_THREAD_STATS;
	assert_int_equal(record_validate(&u.h), 0);
	memset(((struct rec_thread_end *)&u)->name, 'y', 16);
	expect_bad(&u);
	mk_task(&u);
	memset(((struct rec_task *)&u)->name, 'z', 16);
	expect_bad(&u);
	/* allocations: the frames fill the record exactly, a known kind */
	{
		struct rec_alloc *a = (void *)&u;

		rec_init(&u, REC_ALLOC, sizeof(*a) + 3 * 8);
		a->kind = ALLOC_MALLOC, a->depth = 3;
		assert_int_equal(record_validate(&u.h), 0);
		a->depth = 2; /* a frame too few */
		expect_bad(&u);
		a->depth = 4; /* one beyond the record */
		expect_bad(&u);
		rec_init(&u, REC_ALLOC, sizeof(*a) + (ALLOC_MAX_DEPTH + 1) * 8);
		a->kind = ALLOC_MMAP, a->depth = ALLOC_MAX_DEPTH + 1;
		expect_bad(&u);
		rec_init(&u, REC_ALLOC, sizeof(*a));
		a->kind = ALLOC_STACK;
		assert_int_equal(record_validate(&u.h), 0);
		a->kind = 0;
		expect_bad(&u);
		a->kind = ALLOC_KIND_MAX + 1;
		expect_bad(&u);
		rec_init(&u, REC_ALLOC, sizeof(*a) - 8);
		expect_bad(&u);
		rec_init(&u, REC_FREE, sizeof(struct rec_free));
		assert_int_equal(record_validate(&u.h), 0);
		rec_init(&u, REC_FREE, sizeof(struct rec_free) - 8);
		expect_bad(&u);
	}
	/* meta: exactly a key and a value, then zero padding */
	mk_meta(&u, "k", "v");
	assert_int_equal(record_validate(&u.h), 0);
	memset(u.b + 8, 'a', u.h.size - 8);
	expect_bad(&u); /* no NUL at all */
	mk_meta(&u, "k", "v");
	memset(u.b + 8 + 2, 'w', u.h.size - 8 - 2); /* value runs to the end */
	expect_bad(&u);
	mk_meta(&u, "key", "val");  /* "key\0val\0" fills 8 bytes exactly */
	assert_int_equal(u.h.size, 16);
	rec_init(&u, REC_META, 24);
	memcpy(u.b + 8, "a\0b\0c\0", 6); /* three strings */
	expect_bad(&u);
	/* symbols: lengths consistent with the size and NUL-terminated */
	mk_sym(&u, "main", "a.c", "/bin/a");
	assert_int_equal(record_validate(&u.h), 0);
	sym->name_len++;
	expect_bad(&u);
	mk_sym(&u, "main", "a.c", "/bin/a");
	sym->module_len += 64; /* longer than the record */
	expect_bad(&u);
	mk_sym(&u, "main", "a.c", "/bin/a");
	sym->str[sym->name_len - 1] = 'X';
	expect_bad(&u);
	mk_sym(&u, "main", "a.c", "/bin/a");
	sym->str[sym->name_len + sym->file_len - 1] = 'X';
	expect_bad(&u);
	mk_sym(&u, "main", "a.c", "/bin/a");
	sym->str[sym->name_len + sym->file_len + sym->module_len - 1] = 'X';
	expect_bad(&u);
	mk_sym(&u, "main", NULL, "/bin/a");
	assert_int_equal(record_validate(&u.h), 0);
	/* empty name or module, the other string taking up their bytes */
	mk_sym(&u, "main", NULL, "/bin/a");
	sym->module_len += sym->name_len;
	sym->name_len = 0;
	expect_bad(&u);
	mk_sym(&u, "main", NULL, "/bin/a");
	sym->name_len = (uint16_t)(sym->name_len + sym->module_len);
	sym->module_len = 0;
	expect_bad(&u);
	mk_sym(&u, "main", "a.c", "/bin/a");
	u.h.size += 8; /* padding beyond the strings' need */
	expect_bad(&u);
	mk_sym(&u, "main", "a.c", "/bin/a");
	sym->name_len = 0xffff, sym->file_len = 0xfffffff0u, sym->module_len = 0x20;
	expect_bad(&u);
	/* lengths whose sum wraps to exactly the record's size in 32 bits */
	mk_sym(&u, "main", "a.c", "/bin/a");
	assert_int_equal(u.h.size, 72);
	sym->file_len = 0xfffffff8u, sym->module_len = 19;
	expect_bad(&u);
}

/* ------------------------------------------------------------- round trips */

static void test_roundtrip_all_types(void **state)
{
	struct recs in = { 0 }, out = { 0 };
	char path[512], err[256];
	unsigned char *file;
	size_t len;

	(void)state;
	all_types(&in);
	path_in_tdir(path, sizeof(path), "all.data");
	write_file(path, &in);

	assert_int_equal(df_read(path, collect, &out, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(out.n, in.n);
	assert_int_equal(out.len, in.len);
	assert_memory_equal(out.p, in.p, in.len);

	/* the same bytes through df_read_mem, and the header as documented */
	file = slurp(path, &len);
	assert_memory_equal(file, DF_MAGIC, 8);
	assert_int_equal(*(uint32_t *)(file + 8), DF_VERSION);
	assert_int_equal(*(uint32_t *)(file + 12), HDR_SIZE);
	recs_free(&out);
	assert_int_equal(read_mem(file, len, &out, err, sizeof(err)), 0);
	assert_int_equal(out.n, in.n);
	assert_memory_equal(out.p, in.p, in.len);
	free(file);
	recs_free(&out);
	recs_free(&in);
}

static void test_meta(void **state)
{
	struct df_writer *w;
	struct recs out = { 0 };
	char path[512], err[256], *big;
	const struct rec_hdr *h;

	(void)state;
	path_in_tdir(path, sizeof(path), "meta.data");
	assert_int_equal(df_create(&w, path), 0);
	assert_int_equal(df_write_meta(w, "key", "value"), 0);
	assert_int_equal(df_write_meta(w, "", ""), 0);
	big = malloc(DF_MAX_RECORD);
	assert_non_null(big);
	memset(big, 'v', DF_MAX_RECORD - 1);
	big[DF_MAX_RECORD - 1] = '\0';
	assert_int_equal(df_write_meta(w, "big", big), -E2BIG);
	big[DF_MAX_RECORD - 16] = '\0'; /* 8 header + "big\0" + value = the limit */
	assert_int_equal(df_write_meta(w, "big", big), 0);
	assert_int_equal(df_write_meta(w, NULL, "x"), -EINVAL);
	assert_int_equal(df_commit(w), 0);

	assert_int_equal(df_read(path, collect, &out, err, sizeof(err)), 0);
	assert_int_equal(out.n, 3);
	h = (const void *)out.p;
	assert_int_equal(h->type, REC_META);
	assert_int_equal(h->size, REC_SIZE(8 + 4 + 6));
	assert_memory_equal((const char *)h + 8, "key\0value\0\0\0\0\0\0", 16);
	h = (const void *)(out.p + 24);
	assert_int_equal(h->size, 16);
	assert_memory_equal((const char *)h + 8, "\0\0\0\0\0\0\0\0", 8);
	h = (const void *)(out.p + 40);
	assert_int_equal(h->size, DF_MAX_RECORD);
	assert_string_equal((const char *)h + 12, big);
	free(big);
	recs_free(&out);
}

static uint64_t fnv(uint64_t hash, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		hash = (hash ^ *c++) * 0x100000001b3ull;
	return hash;
}

struct sum {
	uint64_t n, hash;
};

static int sum_fn(const struct rec_hdr *h, void *arg)
{
	struct sum *s = arg;

	s->n++;
	s->hash = fnv(s->hash, h, h->size);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_roundtrip_samples(void **state)
{
	enum { N = 200000 };
	struct df_writer *w;
	struct sum want = { 0, 0xcbf29ce484222325ull };
	struct sum got = { 0, 0xcbf29ce484222325ull };
	union rbuf u;
	char path[512], err[256];
	struct stat st;
	double t0, t1, t2;
	uint64_t i;

	(void)state;
	path_in_tdir(path, sizeof(path), "samples.data");
	t0 = now();
	assert_int_equal(df_create(&w, path), 0);
	for (i = 0; i < N; i++) {
		mk_sample(&u, i);
		want.n++;
		want.hash = fnv(want.hash, &u, u.h.size);
		assert_int_equal(df_write(w, &u.h), 0);
	}
	assert_int_equal(df_commit(w), 0);
	t1 = now();
	assert_int_equal(df_read(path, sum_fn, &got, err, sizeof(err)), 0);
	t2 = now();
	assert_int_equal(got.n, N);
	assert_true(got.hash == want.hash);
	assert_int_equal(stat(path, &st), 0);
	/* the addresses are spread over 1 MB: still well under half of raw */
	assert_true((uint64_t)st.st_size < (uint64_t)N * sizeof(struct rec_sample) / 3);
	print_message("200k samples: %.1f MB raw -> %.2f MB file (%.1f%%), write %.0f ms, read %.0f ms (ASan build)\n",
		      N * sizeof(struct rec_sample) / 1e6, st.st_size / 1e6,
		      100.0 * st.st_size / (N * sizeof(struct rec_sample)),
		      (t1 - t0) * 1e3, (t2 - t1) * 1e3);
}

/* A record of the maximum size exercises the reader's growing buffer and
 * the writer's path for records larger than its input buffer. */
static void test_big_records(void **state)
{
	struct df_writer *w;
	struct recs in = { 0 }, out = { 0 };
	struct rec_hdr *big;
	union rbuf u;
	char path[512], err[256];

	(void)state;
	big = calloc(1, DF_MAX_RECORD + 8);
	assert_non_null(big);
	big->size = DF_MAX_RECORD;
	big->type = REC_TOOL_BASE + 2;
	fill(big + 1, DF_MAX_RECORD - 8, 77);
	mk_sample(&u, 5);
	recs_add(&in, &u.h);
	recs_add(&in, big);
	recs_add(&in, &u.h);
	big->size = 300000;
	recs_add(&in, big);
	big->size = DF_MAX_RECORD;
	recs_add(&in, big);

	path_in_tdir(path, sizeof(path), "big.data");
	write_file(path, &in);
	assert_int_equal(df_read(path, collect, &out, err, sizeof(err)), 0);
	assert_int_equal(out.n, in.n);
	assert_int_equal(out.len, in.len);
	assert_memory_equal(out.p, in.p, in.len);

	/* one byte over the limit is refused, and the file stays writable */
	assert_int_equal(df_create(&w, path), 0);
	big->size = DF_MAX_RECORD + 8;
	assert_int_equal(df_write(w, big), -EINVAL);
	assert_int_equal(df_write(w, &u.h), 0);
	assert_int_equal(df_commit(w), 0);
	recs_free(&out);
	assert_int_equal(df_read(path, collect, &out, err, sizeof(err)), 0);
	assert_int_equal(out.n, 1);
	free(big);
	recs_free(&in);
	recs_free(&out);
}

static void test_write_rejects(void **state)
{
	struct df_writer *w;
	struct recs out = { 0 };
	union rbuf u;
	char path[512], err[256];

	(void)state;
	path_in_tdir(path, sizeof(path), "rejects.data");
	assert_int_equal(df_create(&w, path), 0);
	mk_fixed(&u, REC_END, sizeof(struct rec_end), 1);
	assert_int_equal(df_write(w, &u.h), -EINVAL);
	rec_init(&u, 9, 64);
	assert_int_equal(df_write(w, &u.h), -EINVAL);
	mk_sample(&u, 1);
	u.h.size = 52;
	assert_int_equal(df_write(w, &u.h), -EINVAL);
	mk_proc(&u, "/bin/sh");
	memset(u.b + sizeof(struct rec_proc), 'x', u.h.size - sizeof(struct rec_proc));
	assert_int_equal(df_write(w, &u.h), -EINVAL);
	assert_int_equal(df_write(w, NULL), -EINVAL);
	mk_sample(&u, 2);
	assert_int_equal(df_write(w, &u.h), 0);
	assert_int_equal(df_commit(w), 0);
	assert_int_equal(df_read(path, collect, &out, err, sizeof(err)), 0);
	assert_int_equal(out.n, 1);
	assert_memory_equal(out.p, &u, sizeof(struct rec_sample));
	recs_free(&out);
}

/* ------------------------------------------------------------- bad files */

static int count_fn(const struct rec_hdr *h, void *arg)
{
	assert_int_equal(record_validate(h), 0);
	(*(size_t *)arg)++;
	return 0;
}

static void expect_truncated_everywhere(const unsigned char *file, size_t len,
					size_t nrec)
{
	char err[256];
	size_t cut, n, prev = 0;
	unsigned char *copy;
	int ret;

	for (cut = 0; cut < len; cut++) {
		/* an exact-size copy, so ASan sees any read past the cut */
		copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, file, cut);
		n = 0;
		ret = df_read_mem(copy, cut, count_fn, &n, err, sizeof(err));
		free(copy);
		if (ret != -EBADMSG || !strstr(err, "truncated"))
			fail_msg("cut at %zu of %zu: ret %d, \"%s\"", cut, len, ret, err);
		/* a longer prefix never yields fewer records */
		assert_true(n >= prev && n <= nrec);
		prev = n;
	}
	n = 0;
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), 0);
	assert_int_equal(n, nrec);
}

static void test_truncation(void **state)
{
	struct recs in = { 0 };
	union rbuf u;
	char path[512], cutpath[512], err[256];
	unsigned char *file;
	size_t len, n, i;
	int ret;

	(void)state;
	all_types(&in);
	path_in_tdir(path, sizeof(path), "trunc.data");
	write_file(path, &in);
	file = slurp(path, &len);
	expect_truncated_everywhere(file, len, in.n);

	/* through a real file too */
	path_in_tdir(cutpath, sizeof(cutpath), "trunc-cut.data");
	spit(cutpath, file, len / 2);
	n = 0;
	assert_int_equal(df_read(cutpath, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_memory_equal(err, "truncated: ", 11);
	free(file);

	/* stored blocks: records are cut in the middle, not only the stream */
	for (i = 0; i < 40; i++) {
		mk_sample(&u, i);
		recs_add(&in, &u.h);
	}
	file = image(&in, 0, 1, DF_VERSION, &len);
	expect_truncated_everywhere(file, len, in.n);

	/* the same cut after the header in both readers */
	spit(cutpath, file, HDR_SIZE);
	ret = df_read(cutpath, count_fn, &n, err, sizeof(err));
	assert_int_equal(ret, -EBADMSG);
	assert_non_null(strstr(err, "truncated: no end record after 0 records"));
	free(file);
	recs_free(&in);
}

static void test_flipped_bytes(void **state)
{
	static const unsigned char masks[] = { 0x01, 0x80, 0xff, 0x10 };
	struct recs in = { 0 };
	char path[512], err[256];
	unsigned char *file, *imgs[2];
	size_t lens[2], pos, k, n, errors = 0, oks = 0, f;
	int ret;

	(void)state;
	all_types(&in);
	path_in_tdir(path, sizeof(path), "flip.data");
	write_file(path, &in);
	imgs[0] = slurp(path, &lens[0]);
	imgs[1] = image(&in, 0, 1, DF_VERSION, &lens[1]);

	for (f = 0; f < 2; f++) {
		file = imgs[f];
		for (pos = 0; pos < lens[f]; pos++) {
			for (k = 0; k < sizeof(masks); k++) {
				file[pos] ^= masks[k];
				n = 0;
				err[0] = 'x';
				ret = df_read_mem(file, lens[f], count_fn, &n, err,
						  sizeof(err));
				file[pos] ^= masks[k];
				if (ret == 0) {
					oks++;
					assert_int_equal(n, in.n);
					continue;
				}
				errors++;
				if (ret != -EBADMSG && ret != -EPROTO)
					fail_msg("flip %zu: ret %d", pos, ret);
				assert_true(strlen(err) > 10);
			}
		}
	}
	/* zlib's adler32 catches nearly every flip in the records */
	assert_true(errors > 10 * oks);
	free(imgs[0]);
	free(imgs[1]);
	recs_free(&in);
}

/* A later minor version may add types below REC_TOOL_BASE: skipped, not
 * corrupt; the same type in a file of this version is corrupt. */
static void test_minor_version(void **state)
{
	struct recs in = { 0 };
	union rbuf u;
	char err[256];
	unsigned char *file;
	size_t len, n = 0;

	(void)state;
	mk_sample(&u, 1);
	recs_add(&in, &u.h);
	rec_init(&u, 200, 24);
	recs_add(&in, &u.h);
	mk_sample(&u, 2);
	u.h.size = sizeof(struct rec_sample) + 8; /* a field added at the end */
	recs_add(&in, &u.h);
	file = image(&in, 6, 1, DF_MAJOR | (DF_MINOR + 1) << 16, &len);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	free(file);
	n = 0;
	file = image(&in, 6, 1, DF_VERSION, &len);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "unknown type 200"));
	free(file);
	recs_free(&in);
}

static void test_bad_header(void **state)
{
	struct recs in = { 0 };
	char err[256], want[256];
	unsigned char *file;
	size_t len, n = 0;
	uint32_t v;

	(void)state;
	all_types(&in);
	file = image(&in, 6, 1, DF_VERSION, &len);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), 0);
	assert_int_equal(n, in.n);
	n = 0;

	file[0] = 'X';
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "not a cdt.data file (bad magic)");
	assert_int_equal(df_read_mem("hello", 5, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "not a cdt.data file (bad magic)");
	file[0] = 'C';

	v = 2;
	memcpy(file + 8, &v, 4);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EPROTO);
	snprintf(want, sizeof(want), "cdt.data version 2.0: this cdt reads version 1 files only "
		 "(it writes 1.%u)", DF_MINOR);
	assert_string_equal(err, want);
	/* the version is checked before the rest of the header */
	assert_int_equal(df_read_mem(file, 12, count_fn, &n, err, sizeof(err)), -EPROTO);
	/* a later minor version of 1 reads */
	v = DF_MAJOR | 9u << 16;
	memcpy(file + 8, &v, 4);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), 0);
	assert_int_equal(n, in.n);
	n = 0;
	v = __builtin_bswap32(DF_VERSION);
	memcpy(file + 8, &v, 4);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "byte order"));
	v = DF_VERSION;
	memcpy(file + 8, &v, 4);

	v = 20; /* header size below the minimum */
	memcpy(file + 12, &v, 4);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "corrupt: header size 20");
	v = HDR_SIZE + 4; /* not a multiple of 8 */
	memcpy(file + 12, &v, 4);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "corrupt: header size 28");
	v = 1u << 30;
	memcpy(file + 12, &v, 4);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	v = HDR_SIZE;
	memcpy(file + 12, &v, 4);

	/* a longer header (a later minor addition) is skipped */
	{
		unsigned char *longer = malloc(len + 8);
		struct recs out = { 0 };

		assert_non_null(longer);
		memcpy(longer, file, HDR_SIZE);
		memset(longer + HDR_SIZE, 0xee, 8);
		memcpy(longer + HDR_SIZE + 8, file + HDR_SIZE, len - HDR_SIZE);
		v = HDR_SIZE + 8;
		memcpy(longer + 12, &v, 4);
		assert_int_equal(read_mem(longer, len + 8, &out, err, sizeof(err)), 0);
		assert_int_equal(out.len, in.len);
		assert_memory_equal(out.p, in.p, in.len);
		assert_int_equal(df_read_mem(longer, HDR_SIZE + 4, count_fn, &n,
					     err, sizeof(err)), -EBADMSG);
		assert_string_equal(err, "truncated: 28 bytes, shorter than the 32-byte header");
		free(longer);
		recs_free(&out);
		n = 0;
	}

	v = 4; /* an unknown flag */
	memcpy(file + 16, &v, 4);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EPROTO);
	v = 0;
	memcpy(file + 16, &v, 4);
	v = 2; /* an unknown compression */
	memcpy(file + 20, &v, 4);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EPROTO);
	assert_int_equal(n, 0);
	free(file);
	recs_free(&in);
}

static void test_bad_stream(void **state)
{
	struct recs in = { 0 };
	union rbuf u;
	char err[256], want[160];
	unsigned char *file, *longer;
	size_t len, n;
	struct rec_end *e;

	(void)state;
	mk_meta(&u, "k", "v");
	recs_add(&in, &u.h);
	mk_sample(&u, 1);
	recs_add(&in, &u.h);

	/* no REC_END, though the zlib stream itself is complete */
	file = image(&in, 6, 0, DF_VERSION, &len);
	n = 0;
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "truncated: no end record after 2 records");
	assert_int_equal(n, 2); /* the valid records came first */
	free(file);

	/* REC_END counting something else */
	mk_fixed(&u, REC_END, sizeof(struct rec_end), 0);
	e = (void *)&u;
	e->records = 3;
	e->bytes = 16 + sizeof(struct rec_sample);
	recs_add(&in, &u.h);
	file = image(&in, 6, 0, DF_VERSION, &len);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "corrupt: the end record counts 3 records"));
	free(file);
	in.len -= sizeof(*e);
	in.n--;

	/* a record after REC_END */
	e->records = 2;
	recs_add(&in, &u.h);
	mk_sample(&u, 2);
	recs_add(&in, &u.h);
	file = image(&in, 6, 0, DF_VERSION, &len);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "corrupt: data after the end record (record 2)");
	free(file);
	in.len -= sizeof(struct rec_sample) + sizeof(*e);
	in.n -= 2;

	/* bytes after the zlib stream */
	file = image(&in, 6, 1, DF_VERSION, &len);
	longer = malloc(len + 3);
	assert_non_null(longer);
	memcpy(longer, file, len);
	memcpy(longer + len, "abc", 3);
	assert_int_equal(df_read_mem(longer, len, count_fn, &n, err, sizeof(err)), 0);
	assert_int_equal(df_read_mem(longer, len + 3, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "corrupt: data after the compressed stream at offset"));
	free(longer);
	free(file);

	/* a record too small for its type: named by number, type and sizes */
	mk_sample(&u, 3);
	u.h.size = 48;
	recs_add(&in, &u.h);
	file = image(&in, 0, 1, DF_VERSION, &len);
	n = 0;
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	/* offset: a 16-byte record, then a sample */
	snprintf(want, sizeof(want), "corrupt: record 2 (type 6) at data offset %zu: size 48 "
		 "is below the minimum 56 of REC_SAMPLE", 16 + sizeof(struct rec_sample));
	assert_string_equal(err, want);
	assert_int_equal(n, 2);
	free(file);
	in.len -= 48;
	in.n--;

	/* a size the reader must not trust */
	rec_init(&u, REC_TOOL_BASE + 1, 16);
	u.h.size = 0xfffffff8u;
	memcpy(in.p + 16, &u.h, 8); /* overwrite the sample's header */
	file = image(&in, 0, 1, DF_VERSION, &len);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "corrupt: record 1 (type 257)"));
	assert_non_null(strstr(err, "above the maximum"));
	free(file);

	/* corrupt compressed data */
	file = image(&in, 6, 1, DF_VERSION, &len);
	memset(file + HDR_SIZE, 0xff, 2);
	assert_int_equal(df_read_mem(file, len, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "corrupt: compressed data"));
	free(file);
	recs_free(&in);
}

static int stop_fn(const struct rec_hdr *h, void *arg)
{
	(void)h;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static void test_callback_stop(void **state)
{
	struct recs in = { 0 };
	char path[512], err[256];
	int calls = 0;

	(void)state;
	all_types(&in);
	path_in_tdir(path, sizeof(path), "stop.data");
	write_file(path, &in);
	assert_int_equal(df_read(path, stop_fn, &calls, err, sizeof(err)), 42);
	assert_int_equal(calls, 3);
	recs_free(&in);
}

static void test_read_errors(void **state)
{
	char path[512], err[256];
	size_t n = 0;

	(void)state;
	path_in_tdir(path, sizeof(path), "does-not-exist.data");
	assert_int_equal(df_read(path, count_fn, &n, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, strerror(ENOENT));
	assert_int_equal(df_read(tdir, count_fn, &n, err, sizeof(err)), -EISDIR);
	assert_string_equal(err, strerror(EISDIR));
	path_in_tdir(path, sizeof(path), "empty.data");
	spit(path, "", 0);
	assert_int_equal(df_read(path, count_fn, &n, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "truncated: the file is empty");
	assert_int_equal(df_read_mem(NULL, 0, count_fn, &n, err, sizeof(err)), -EBADMSG);
	/* no room for a message is fine */
	assert_int_equal(df_read_mem(NULL, 0, count_fn, &n, NULL, 0), -EBADMSG);
}

/* ------------------------------------------------------------- commit */

/* Files in tdir whose name starts with prefix. */
static int count_files(const char *prefix)
{
	DIR *d = opendir(tdir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static void expect_records(const char *path, size_t nrec)
{
	char err[256];
	size_t n = 0;

	assert_int_equal(df_read(path, count_fn, &n, err, sizeof(err)), 0);
	assert_int_equal(n, nrec);
}

static void write_samples(const char *path, size_t nrec)
{
	struct df_writer *w;
	union rbuf u;
	size_t i;

	assert_int_equal(df_create(&w, path), 0);
	for (i = 0; i < nrec; i++) {
		mk_sample(&u, i);
		assert_int_equal(df_write(w, &u.h), 0);
	}
	assert_int_equal(df_commit(w), 0);
}

static void test_commit_replaces(void **state)
{
	char path[512];

	(void)state;
	path_in_tdir(path, sizeof(path), "replace.data");
	write_samples(path, 10);
	expect_records(path, 10);
	write_samples(path, 3);
	expect_records(path, 3);
	assert_int_equal(count_files("replace.data"), 1);
}

static void test_abort(void **state)
{
	struct df_writer *w;
	union rbuf u;
	char path[512];
	int i;

	(void)state;
	path_in_tdir(path, sizeof(path), "abort.data");
	write_samples(path, 5);
	assert_int_equal(df_create(&w, path), 0);
	assert_int_equal(count_files("abort.data.tmp."), 1);
	for (i = 0; i < 100000; i++) { /* past the writer's buffers */
		mk_sample(&u, (uint64_t)i);
		assert_int_equal(df_write(w, &u.h), 0);
	}
	df_abort(w);
	assert_int_equal(count_files("abort.data"), 1);
	expect_records(path, 5);
	df_abort(NULL);
}

static void test_create_fails(void **state)
{
	struct df_writer *w = (void *)1;
	char path[512], tmp[512], name[256];
	int ret;

	(void)state;
	/*
	 * The temporary name ".tmp.XXXXXX" pushes this one past NAME_MAX;
	 * the earlier file got its name from a rename.
	 */
	memset(name, 'n', 250);
	name[250] = '\0';
	path_in_tdir(path, sizeof(path), name);
	path_in_tdir(tmp, sizeof(tmp), "short.data");
	write_samples(tmp, 7);
	assert_int_equal(rename(tmp, path), 0);
	ret = df_create(&w, path);
	assert_int_equal(ret, -ENAMETOOLONG);
	assert_null(w);
	expect_records(path, 7);
	assert_int_equal(count_files("nnnn"), 1);

	path_in_tdir(path, sizeof(path), "no-such-dir/x.data");
	assert_int_equal(df_create(&w, path), -ENOENT);
	assert_int_equal(df_create(&w, ""), -EINVAL);

	/* a read-only directory; root writes anyway, so only as a user */
	if (geteuid() != 0) {
		char sub[400];

		path_in_tdir(sub, sizeof(sub), "ro");
		assert_int_equal(mkdir(sub, 0755), 0);
		snprintf(path, sizeof(path), "%s/x.data", sub);
		write_samples(path, 4);
		assert_int_equal(chmod(sub, 0555), 0);
		assert_int_equal(df_create(&w, path), -EACCES);
		expect_records(path, 4);
		assert_int_equal(chmod(sub, 0755), 0);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(rmdir(sub), 0);
	}
}

/*
 * A write that fails half-way (here RLIMIT_FSIZE, which also stops root)
 * must leave the earlier file as it was and no temporary file behind.
 */
static void test_write_fails(void **state)
{
	char path[512];
	unsigned char *before, *after;
	size_t blen, alen;
	pid_t pid;
	int status;

	(void)state;
	path_in_tdir(path, sizeof(path), "fsize.data");
	write_samples(path, 1000);
	before = slurp(path, &blen);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		struct df_writer *w;
		union rbuf u;
		uint64_t i;
		int ret = 0;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) || df_create(&w, path))
			_exit(10);
		/* random addresses: enough compressed bytes to pass the limit */
		for (i = 0; i < 200000 && !ret; i++) {
			mk_sample(&u, i);
			((struct rec_sample *)&u)->addr = i * 0x9e3779b97f4a7c15ull;
			((struct rec_sample *)&u)->time ^= i * 0xc2b2ae3d27d4eb4full;
			ret = df_write(w, &u.h);
		}
		if (ret != -EFBIG)
			_exit(11);
		_exit(df_commit(w) == -EFBIG ? 0 : 12);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	after = slurp(path, &alen);
	assert_int_equal(alen, blen);
	assert_memory_equal(after, before, blen);
	assert_int_equal(count_files("fsize.data"), 1);
	expect_records(path, 1000);
	free(before);
	free(after);
}

/* ------------------------------------------------------------- seeds */

static int write_seeds(const char *dir)
{
	struct recs in = { 0 }, small = { 0 };
	union rbuf u;
	unsigned char *file;
	char path[512];
	size_t len, i;

	all_types(&in);
	snprintf(path, sizeof(path), "%s/valid", dir);
	write_file(path, &in);
	file = slurp(path, &len);
	snprintf(path, sizeof(path), "%s/truncated", dir);
	spit(path, file, len * 2 / 3);
	snprintf(path, sizeof(path), "%s/header-only", dir);
	spit(path, file, HDR_SIZE);
	snprintf(path, sizeof(path), "%s/checksum-cut", dir);
	spit(path, file, len - 2);
	file = realloc(file, len + 5);
	assert_non_null(file);
	memcpy(file + len, "extra", 5);
	snprintf(path, sizeof(path), "%s/trailing-bytes", dir);
	spit(path, file, len + 5);
	free(file);
	snprintf(path, sizeof(path), "%s/empty", dir);
	spit(path, "", 0);

	file = image(&in, 0, 1, DF_VERSION, &len);
	snprintf(path, sizeof(path), "%s/valid-stored", dir);
	spit(path, file, len);
	free(file);
	file = image(&in, 0, 1, 2, &len);
	snprintf(path, sizeof(path), "%s/version-2", dir);
	spit(path, file, len);
	free(file);

	for (i = 0; i < 30; i++) {
		mk_sample(&u, i);
		recs_add(&small, &u.h);
	}
	file = image(&small, 0, 1, DF_VERSION, &len);
	snprintf(path, sizeof(path), "%s/samples-stored", dir);
	spit(path, file, len);
	free(file);

	mk_sample(&u, 99);
	u.h.size = 48;
	recs_add(&small, &u.h);
	file = image(&small, 0, 1, DF_VERSION, &len);
	snprintf(path, sizeof(path), "%s/corrupt-record", dir);
	spit(path, file, len);
	free(file);

	recs_free(&small);
	mk_meta(&u, "k", "v");
	recs_add(&small, &u.h);
	file = image(&small, 0, 0, DF_VERSION, &len);
	snprintf(path, sizeof(path), "%s/no-end", dir);
	spit(path, file, len);
	free(file);
	recs_free(&small);
	recs_free(&in);
	return 0;
}

/* ------------------------------------------------------------- main */

static int rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[1024];

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		unlink(p);
	}
	closedir(d);
	return rmdir(dir);
}

static int group_setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tdir, sizeof(tdir), "%s/cdt-datafile-XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(tdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	return rm_tree(tdir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_roundtrip_all_types),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_roundtrip_samples),
		cmocka_unit_test(test_big_records),
		cmocka_unit_test(test_write_rejects),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_flipped_bytes),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_minor_version),
		cmocka_unit_test(test_bad_stream),
		cmocka_unit_test(test_callback_stop),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_commit_replaces),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_create_fails),
		cmocka_unit_test(test_write_fails),
	};

	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
