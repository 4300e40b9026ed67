/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Files cdt keeps between runs, measurements of this machine:
 * $XDG_CACHE_HOME/cdt/NAME, or ~/.cache/cdt/NAME (a relative
 * XDG_CACHE_HOME is ignored, as the XDG spec says).
 */
#ifndef CDT_CACHE_H
#define CDT_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The cache directory; -ENOENT without XDG_CACHE_HOME or HOME. */
int cache_dir(char *buf, size_t len);
/* The path of the cache file `name`. */
int cache_path(const char *name, char *buf, size_t len);
/* Build ID bid (n bytes, 1 to 64) in hex, into hex[2 * n + 1]. */
void cache_bid_hex(const uint8_t *bid, size_t n, char *hex);
/* The path of the cache file DIR/HEX.EXT kept for build ID bid (n bytes,
 * 1 to 64). */
int cache_bid_path(const char *dir, const uint8_t *bid, size_t n, const char *ext, char *buf,
		   size_t len);
/* Make the directory of path (private) when path is in the cache; 0 or
 * a negative errno. */
int cache_make_dir(const char *path);
/*
 * Write path (in the cache directory or anywhere) through write(f, arg)
 * into a temporary file renamed over it, so a reader never sees half of
 * one; its directory is made (cache_make_dir).  0, or a
 * negative errno with what failed said on stderr after `who` (unless
 * who is NULL).
 */
int cache_save(const char *path, int (*write)(FILE *f, const void *arg), const void *arg,
	       const char *who);

#endif
