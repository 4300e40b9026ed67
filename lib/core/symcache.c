// SPDX-License-Identifier: GPL-2.0-only
/*
 * Symbolization results kept between runs (symcache.h).
 *
 * Resolving libc's addresses means reading its symbol table and the
 * address ranges and line tables of its debug information: 25 to 35 ms
 * of every run that samples libc, in this VM, for answers that cannot
 * change while the build ID and the debug file are the same.  The file
 * is text, one record a line:
 *
 *   cdt-symcache 1 VERSION BUILD  (cdt's version and its own build ID:
 *                                 another build of cdt may name otherwise)
 *   debug -                       or   debug SIZE MTIME_NS PATH
 *   c START SIZE NAME             a function symbol, as symbolize.c chose
 *   d START SIZE NAME             an object symbol
 *   l ADDRESS LINE [FILE]         the source line at an address
 *   s ADDRESS LINE [FILE]         its outermost inlined call site
 *   n ADDRESS 0 NAME              the program's function at an address
 *                                 whose line is moved out of a library
 *                                 header (symbolize.c)
 *   i ADDRESS 0 CHAIN             the inlined calls there
 *
 * numbers in hex, the name or file the rest of the line.  A file that
 * does not parse whole is ignored and written again.
 */
#include "lib/core/symcache.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/array.h"
#include "lib/core/cache.h"

#define SYMCACHE_HEAD "cdt-symcache 1 " CDT_VERSION " "
/* Far beyond SYMCACHE_MAX_LINES records and any symbol table. */
#define SYMCACHE_MAX_BYTES (64u << 20)

/* The header: this format, this cdt and this build of it (the build ID
 * of /proc/self/exe, read by libelf). */
static const char *symcache_head(void)
{
	static char head[sizeof(SYMCACHE_HEAD) + 2 * 64];
	char hex[2 * 64 + 1] = "-";
	const void *id;
	ssize_t n = -1;
	Elf *elf = NULL;
	int fd;

	if (head[0])
		return head;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && elf_version(EV_CURRENT) != EV_NONE)
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		n = dwelf_elf_gnu_build_id(elf, &id);
	if (n > 0 && n <= 64)
		cache_bid_hex(id, (size_t)n, hex);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	snprintf(head, sizeof(head), "%s%s", SYMCACHE_HEAD, hex);
	return head;
}

/* A hex number at *p ending at a space or the end; *p moves past both. */
static int symcache_num(char **p, uint64_t *out)
{
	char *end;

	if (!((**p >= '0' && **p <= '9') || (**p >= 'a' && **p <= 'f')))
		return -EINVAL;
	errno = 0;
	*out = strtoull(*p, &end, 16);
	if (errno || (*end != ' ' && *end != '\0'))
		return -EINVAL;
	*p = *end ? end + 1 : end;
	return 0;
}

static int symcache_parse_debug(struct symcache *c, char *s)
{
	if (!strcmp(s, "debug -"))
		return 0;
	if (strncmp(s, "debug ", 6))
		return -EINVAL;
	s += 6;
	if (symcache_num(&s, &c->debug_size) || symcache_num(&s, &c->debug_mtime) || s[0] != '/')
		return -EINVAL;
	c->debug = s;
	return 0;
}

static int symcache_parse(struct symcache *c, char *s)
{
	struct symcache_rec r = { .kind = s[0] };

	if (s[0] == '\0' || s[1] != ' ')
		return -EINVAL;
	s += 2;
	if (symcache_num(&s, &r.a) || symcache_num(&s, &r.b))
		return -EINVAL;
	r.text = *s ? s : NULL;
	switch (r.kind) {
	case SYMCACHE_CODE:
	case SYMCACHE_DATA:
		if (!r.text)
			return -EINVAL;
		break;
	case SYMCACHE_LINE:
	case SYMCACHE_SITE:
	case SYMCACHE_NAME:
	case SYMCACHE_INLINE:
		if (r.b > UINT32_MAX)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return symcache_add(c, r.kind, r.a, r.b, r.text);
}

int symcache_load(struct symcache *c, const uint8_t *bid, size_t len)
{
	char path[4096], *line, *next;
	struct stat st;
	ssize_t got = 0;
	int fd, err, i = 0;

	err = cache_bid_path("sym", bid, len, "txt", path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > SYMCACHE_MAX_BYTES) {
		err = -EINVAL;
		goto out;
	}
	c->buf = malloc((size_t)st.st_size + 1);
	if (!c->buf) {
		err = -ENOMEM;
		goto out;
	}
	while (got < st.st_size) {
		ssize_t r = read(fd, c->buf + got, (size_t)(st.st_size - got));

		if (r <= 0) {
			err = -EINVAL; /* shorter than it was: being replaced */
			goto out;
		}
		got += r;
	}
	c->buf[got] = '\0';
	/* Every line ends in a newline, so a torn file does not parse. */
	if (!got || c->buf[got - 1] != '\n') {
		err = -EINVAL;
		goto out;
	}
	c->buf[got - 1] = '\0';
	line = c->buf;
	for (; !err && line; i++, line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (i == 0)
			err = strcmp(line, symcache_head()) ? -EINVAL : 0;
		else if (i == 1)
			err = symcache_parse_debug(c, line);
		else
			err = symcache_parse(c, line);
	}
	if (!err && i < 2)
		err = -EINVAL;
out:
	close(fd);
	if (err)
		symcache_free(c);
	return err;
}

bool symcache_debug_same(const struct symcache *c)
{
	struct stat st;

	if (!c->debug)
		return true;
	return !stat(c->debug, &st) && (uint64_t)st.st_size == c->debug_size &&
	       (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec ==
		       c->debug_mtime;
}

int symcache_add(struct symcache *c, char kind, uint64_t a, uint64_t b, const char *text)
{
	bool line = kind == SYMCACHE_LINE || kind == SYMCACHE_SITE || kind == SYMCACHE_NAME ||
		    kind == SYMCACHE_INLINE;

	if (line && c->nlines >= SYMCACHE_MAX_LINES)
		return 0;
	if (array_grow(&c->v, &c->cap, c->n, sizeof(*c->v)))
		return -ENOMEM;
	c->v[c->n++] = (struct symcache_rec){ kind, a, b, text };
	c->nlines += line;
	return 0;
}

struct symcache_out {
	const struct symcache *c;
	const char *debug;
	const struct stat *st;
};

static int symcache_write(FILE *f, const void *arg)
{
	const struct symcache_out *o = arg;

	fprintf(f, "%s\n", symcache_head());
	if (o->debug)
		fprintf(f, "debug %llx %llx %s\n", (unsigned long long)o->st->st_size,
			(unsigned long long)o->st->st_mtim.tv_sec * 1000000000ull +
				(unsigned long long)o->st->st_mtim.tv_nsec,
			o->debug);
	else
		fprintf(f, "debug -\n");
	for (size_t i = 0; i < o->c->n; i++) {
		const struct symcache_rec *r = &o->c->v[i];

		fprintf(f, "%c %llx %llx%s%s\n", r->kind, (unsigned long long)r->a,
			(unsigned long long)r->b, r->text ? " " : "", r->text ? r->text : "");
	}
	return ferror(f) ? -EIO : 0;
}

int symcache_save(const struct symcache *c, const uint8_t *bid, size_t len, const char *debug)
{
	struct symcache_out o = { c, debug, NULL };
	char path[4096];
	struct stat st;
	int err = cache_bid_path("sym", bid, len, "txt", path, sizeof(path));

	if (err)
		return err;
	/* A newline in a name or path would end its record early. */
	if (debug && (debug[0] != '/' || strchr(debug, '\n') || stat(debug, &st)))
		return -EINVAL;
	o.st = &st;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].text && strchr(c->v[i].text, '\n'))
			return -EINVAL;
	return cache_save(path, symcache_write, &o, NULL);
}

void symcache_free(struct symcache *c)
{
	free(c->buf);
	free(c->v);
	memset(c, 0, sizeof(*c));
}
