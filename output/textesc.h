/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text for a terminal from strings cdt does not control (thread names and
 * argv the program chose, anything it wrote into the shared buffer):
 * what a terminal would act on is shown as \xNN, as cat -v or perf show
 * it.  That is C0 controls (ESC, newline...), DEL, C1 controls
 * (U+0080..U+009F) and bytes that are not valid UTF-8; valid UTF-8 text
 * stays as it is.
 */
#ifndef CDT_TEXTESC_H
#define CDT_TEXTESC_H

#include <stddef.h>

/* The escaped form of s (malloc'd), or NULL out of memory. */
char *textesc_dup(const char *s);
/* Terminal columns of escaped text: one per UTF-8 character. */
size_t textesc_cols(const char *s);
/* Bytes of s's first `cols` columns (s escaped, valid UTF-8). */
size_t textesc_prefix(const char *s, size_t cols);

#endif
