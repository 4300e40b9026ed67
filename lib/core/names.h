/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How cdt names what a profile's addresses are, the same in every model,
 * view and screen: code as "function (file:line)", data as the object a
 * symbol or module gives.
 */
#ifndef CDT_CORE_NAMES_H
#define CDT_CORE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/profile.h"

/* "f (a.c:12)", "f+0x1c", "libc.so.6@0x7f..." or "0x401000". */
void names_code(const struct profile *p, uint32_t pid, uint64_t time, uint64_t ip, char *buf,
		size_t len);
/* The calls inlined at ip where its name is the program's code's, not a
 * library header's (SYM_INLINE): "f (a.h:3) < g (b.c:9)", or "". */
const char *names_inline(const struct profile *p, uint32_t pid, uint64_t time, uint64_t ip);
/* The static object at addr ("counters", "[libc.so.6]", "[anon]", or "[stack]"
 * when stack is set) and addr's offset in it. */
void names_data(const struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
		int stack, char *buf, size_t len, uint64_t *offset);
/*
 * Is path a source file of the toolchain or a standard library, not of
 * the program: a system header (/usr/include, /usr/local/include, the
 * compilers' own under /usr/lib/gcc and /usr/lib/llvm-*), or the sources
 * of Rust's standard library (/rustc/HASH/..., .../lib/rustlib/src/)?
 * Code inlined from there, and allocation sites there, are named after
 * the program's line that used them (cdt-report(1), NAMES).
 */
int names_toolchain_file(const char *path);
/* "load", "store", "rmw" or "none" (enum mem_kind). */
const char *names_kind(int kind);
/*
 * Code with no symbol (a stripped library) as module+offset, the offset
 * into the module's file ("libfoo.so+0x1a2b"): what objdump and addr2line
 * take, and the same under any ASLR, which a runtime address is not.
 * image: profile_image(); module is the sym's; returns snprintf's count.
 */
int names_module_offset(const struct profile *p, uint32_t image, uint64_t ip,
			const char *module, char *buf, size_t len);

#endif
