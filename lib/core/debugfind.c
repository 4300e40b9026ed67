// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding separate debug information (debugfind.h).
 *
 * libdw 0.188 (Debian 12) loads libdebuginfod whenever its local search
 * finds nothing, for any module without debug information (the program
 * itself, often), whether or not a server is named; that library pulls
 * in curl, GnuTLS and Kerberos: 22 ms of every run here, for nothing to
 * ask.  So where DEBUGINFOD_URLS names no server, the standard search is
 * called only if one of the places it looks holds a file, which a few
 * stat calls tell (the file's build ID, then its debug link's name or
 * else its own + .debug, beside it, in .debug and under /usr/lib/debug,
 * by its name and by its target's); it still opens and checks what it
 * finds.
 */
#include "lib/core/debugfind.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/cache.h"
#include "lib/core/debugcache.h"

/* libdwfl's default debuginfo_path: beside the file, in .debug there,
 * and under this root. */
#define DEBUGFIND_ROOT "/usr/lib/debug"

static bool debugfind_exists(const char *fmt, const char *a, const char *b)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), fmt, a, b);

	return n > 0 && (size_t)n < sizeof(path) && !access(path, F_OK);
}

/* A file where the standard search would look by build ID or by the
 * debug link's name. */
static bool debugfind_local(const unsigned char *bid, int n, const char *file, const char *link)
{
	char hex[2 * 64 + 1], own[NAME_MAX + 1], *dir, *canon = NULL;
	bool found = false;

	if (n > 1 && n <= 64) {
		cache_bid_hex(bid, (size_t)n, hex);
		if (debugfind_exists(DEBUGFIND_ROOT "/.build-id/%.2s/%s.debug", hex, hex + 2))
			return true;
	}
	if (!file)
		return link && link[0] == '/' && !access(link, F_OK);
	if (link && link[0] == '/')
		return !access(link, F_OK);
	/* Without a debug link, the search tries the file's name + .debug. */
	if (!link || !*link) {
		const char *base = strrchr(file, '/');

		if (snprintf(own, sizeof(own), "%s.debug", base ? base + 1 : file) >= (int)sizeof(own))
			return false;
		link = own;
	}
	/* By the file's name and by its target's, as the search does. */
	for (int pass = 0; pass < 2 && !found; pass++) {
		const char *name = pass ? (canon = realpath(file, NULL)) : file;
		const char *slash = name ? strrchr(name, '/') : NULL;

		if (!slash)
			continue;
		dir = strndup(name, (size_t)(slash - name));
		if (!dir)
			break;
		found = debugfind_exists("%s/%s", dir, link) ||
			debugfind_exists("%s/.debug/%s", dir, link) ||
			debugfind_exists(DEBUGFIND_ROOT "%s/%s", dir, link);
		free(dir);
	}
	free(canon);
	return found;
}

int debugfind_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	const unsigned char *bits;
	const char *urls = getenv("DEBUGINFOD_URLS");
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr), fd;
	/* libdwfl asks again for a dwz alternate file, by its link's name
	 * with no CRC; the module's build ID does not name that one. */
	bool alt = debuglink_file && !debuglink_crc;

	if (!alt && n > 0 && (fd = debugcache_find(bits, (size_t)n, debuginfo_file_name)) >= 0)
		return fd;
	if ((!urls || !*urls) && !debugfind_local(alt ? NULL : bits, n, file_name, debuglink_file)) {
		errno = 0; /* nothing found, as the search says it */
		return -1;
	}
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	if (fd >= 0 && n > 0 && !alt)
		debugcache_keep(bits, (size_t)n, fd);
	return fd;
}

bool debugfind_possible(Dwfl_Module *mod, const char *file)
{
	const unsigned char *bits;
	const char *urls = getenv("DEBUGINFOD_URLS"), *link = NULL;
	char *name = NULL;
	GElf_Addr vaddr;
	GElf_Word crc;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	int n = dwfl_module_build_id(mod, &bits, &vaddr), fd;

	if (urls && *urls)
		return true;
	if (n > 0 && (fd = debugcache_find(bits, (size_t)n, &name)) >= 0) {
		close(fd);
		free(name);
		return true;
	}
	if (elf)
		link = dwelf_elf_gnu_debuglink(elf, &crc);
	return debugfind_local(bits, n, file, link);
}
