/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Separate debug files whose sections are compressed are opened through
 * an uncompressed copy kept in the cache ($XDG_CACHE_HOME/cdt/debug/
 * BUILDID.debug), made on first use: libdw would inflate them at every
 * run (debugcache.c says what that costs).
 */
#ifndef CDT_DEBUGCACHE_H
#define CDT_DEBUGCACHE_H

#include <stddef.h>
#include <stdint.h>

/* The plain copy kept for build ID bid (len bytes): its fd, *name
 * (malloc'd, replaced) its path; or a negative errno (none kept). */
int debugcache_find(const uint8_t *bid, size_t len, char **name);
/* fd is the debug file of build ID bid: if its sections are compressed,
 * keep a plain copy for the next run.  Failures only leave none. */
void debugcache_keep(const uint8_t *bid, size_t len, int fd);

#endif
