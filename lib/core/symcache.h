/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What symbolization found in one ELF file, kept between runs in the
 * cache ($XDG_CACHE_HOME/cdt/sym/BUILDID.txt): its function and object
 * symbols, and the source lines and inlined call sites of the addresses
 * looked up so far.  A file is named by its build ID, so it describes
 * that binary only; the debug file the records came from is recorded
 * too, and symbolize.c checks that it is the one that would be used now;
 * and the build of cdt that made it, which alone reads it.
 */
#ifndef CDT_SYMCACHE_H
#define CDT_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most line and call-site records one file keeps: later addresses
 * are resolved but not kept, so loading stays a few milliseconds. */
#define SYMCACHE_MAX_LINES 16384

enum symcache_kind {
	SYMCACHE_CODE = 'c', /* a: start, b: size, text: name */
	SYMCACHE_DATA = 'd', /* the same, for an object */
	SYMCACHE_LINE = 'l', /* a: address, b: line, text: source file or NULL */
	SYMCACHE_SITE = 's', /* the same, for the outermost inlined call site */
	/* Code whose line is the program's, not a library header's it was
	 * inlined from (symbolize.c): a: address, b: 0, text: */
	SYMCACHE_NAME = 'n',   /* the program's function there */
	SYMCACHE_INLINE = 'i', /* the inlined calls, "f (a.h:3) < g (b.c:9)" */
};

struct symcache_rec {
	char kind;
	uint64_t a, b;
	const char *text;
};

struct symcache {
	char *buf; /* the file read; loaded records point into it */
	struct symcache_rec *v;
	size_t n, cap, nlines;
	const char *debug; /* the debug file of the records; NULL: none */
	uint64_t debug_size, debug_mtime;
};

/* Load the records kept for build ID bid into an empty c: 0, -ENOENT
 * (none kept), or -EINVAL (not this version's, or damaged: ignore it). */
int symcache_load(struct symcache *c, const uint8_t *bid, size_t len);
/* The debug file recorded is there, unchanged (or none was recorded). */
bool symcache_debug_same(const struct symcache *c);
/* Add a record; text must stay valid until the save.  A line or site
 * record past SYMCACHE_MAX_LINES is dropped (returns 0). */
int symcache_add(struct symcache *c, char kind, uint64_t a, uint64_t b, const char *text);
/* Write c's records for build ID bid, made with debug file debug (NULL:
 * none).  0 or a negative errno; a cache that cannot be written costs
 * only the next run's time. */
int symcache_save(const struct symcache *c, const uint8_t *bid, size_t len, const char *debug);
void symcache_free(struct symcache *c);

#endif
