/* SPDX-License-Identifier: GPL-2.0-only */
/* Looking up a symbol by name in an ELF file before the program runs. */
#ifndef CDT_ELFSYM_H
#define CDT_ELFSYM_H

#include <stdint.h>

struct elfsym {
	uint64_t value, size;
	int is_func;
	int pie; /* ET_DYN: value is relative to the load address */
};

/* 0, -ENOENT if no such symbol, or another negative errno. */
int elfsym_lookup(const char *path, const char *name, struct elfsym *out);

#endif
