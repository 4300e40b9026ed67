/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a module's separate debug information is found, for libdwfl's
 * find_debuginfo callback: the cache's plain copy (debugcache.h), else
 * libdw's standard search, which asks a debuginfod server only where
 * DEBUGINFOD_URLS names one.
 */
#ifndef CDT_DEBUGFIND_H
#define CDT_DEBUGFIND_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>

int debugfind_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name);
/* Whether a separate debug file for mod (file: its path) could be found
 * now: the cache's copy, one on this machine, or a server's where
 * DEBUGINFOD_URLS names one. */
bool debugfind_possible(Dwfl_Module *mod, const char *file);

#endif
