/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Code and data addresses to names, after the run, in the front end
 * (libdwfl/libdw/libelf).  Modules come from the agent's REC_MMAP records;
 * a module whose build-id no longer matches the file on disk is not
 * symbolized (names from a different binary would be lies).
 */
#ifndef CDT_SYMBOLIZE_H
#define CDT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct symbolizer;

struct sym_info {
	const char *name;   /* function or object; NULL if unknown */
	const char *file;   /* source file; NULL if no line info */
	const char *module; /* path of the module; NULL if outside any */
	uint64_t start;     /* runtime address of the symbol */
	uint64_t size;
	uint32_t line;
	/* Code: the inlined calls at the address, innermost first, "f (a.h:3)
	 * < g (b.c:9)", where its line and name are the program's, not those
	 * of a library header it was inlined from; NULL otherwise. */
	const char *inl;
};

int sym_create(struct symbolizer **s);
void sym_destroy(struct symbolizer *s);

/* One executable or data mapping of process pid (from REC_MMAP). */
int sym_add_module(struct symbolizer *s, uint32_t pid, uint64_t start,
		   uint64_t end, uint64_t pgoff, const char *path,
		   const uint8_t *build_id, size_t build_id_len);
/* A forked child starts with its parent's modules. */
int sym_fork(struct symbolizer *s, uint32_t parent, uint32_t child);
/* exec replaces a process's modules. */
int sym_forget(struct symbolizer *s, uint32_t pid);

/*
 * Resolve.  Strings stay valid until sym_destroy.  Return 0 when a name
 * was found, -ENOENT otherwise (out->module may still be set).  Code
 * inlined from a system or standard-library header takes the line, and
 * the function, of the program's code it was inlined into
 * (names_toolchain_file); out->inl keeps the calls.
 */
int sym_code(struct symbolizer *s, uint32_t pid, uint64_t addr,
	     struct sym_info *out);
/* As sym_code, but the line is the one in the function itself: in code
 * inlined into it, the line where the outermost inlined call is. */
int sym_site(struct symbolizer *s, uint32_t pid, uint64_t addr, struct sym_info *out);
int sym_data(struct symbolizer *s, uint32_t pid, uint64_t addr,
	     struct sym_info *out);

/* Keep what was resolved for the next run (symcache.h); a failure only
 * leaves that run to resolve it again. */
void sym_save(struct symbolizer *s);

/* Modules whose build-id did not match, for the user: count and first path. */
unsigned sym_stale(const struct symbolizer *s, const char **first);

#endif
