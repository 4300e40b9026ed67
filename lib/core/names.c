// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int names_toolchain_file(const char *path)
{
	static const char *const under[] = { "/usr/include/", "/usr/local/include/",
					     "/usr/lib/gcc/", "/usr/lib/llvm-", "/rustc/", NULL };

	for (int i = 0; path && under[i]; i++)
		if (!strncmp(path, under[i], strlen(under[i])))
			return 1;
	return path && strstr(path, "/lib/rustlib/src/") != NULL;
}

const char *names_kind(int kind)
{
	switch (kind) {
	case MEM_LOAD: return "load";
	case MEM_STORE: return "store";
	case MEM_RMW: return "rmw";
	default: return "none";
	}
}

static const char *names_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

int names_module_offset(const struct profile *p, uint32_t image, uint64_t ip,
			const char *module, char *buf, size_t len)
{
	const struct rec_mmap *by_path = NULL;
	/* The agent, as injected (a memfd): cdt's own code, never the program's. */
	const char *show = module && !strncmp(module, "/proc/self/fd/", 14) ? "[cdt agent]" :
			   names_base(module);

	for (size_t i = 0; i < p->nmmaps; i++) {
		const struct rec_mmap *m = p->mmaps[i];

		if (ip < m->start || ip >= m->end)
			continue;
		if (profile_image(p, m->pid, m->time) == image)
			return snprintf(buf, len, "%s+0x%" PRIx64, show,
					ip - m->start + m->pgoff);
		/* A fork child records no modules: its parent's map. */
		if (!by_path && module && !strcmp(m->path, module))
			by_path = m;
	}
	if (by_path)
		return snprintf(buf, len, "%s+0x%" PRIx64, show,
				ip - by_path->start + by_path->pgoff);
	return snprintf(buf, len, "%s@0x%" PRIx64, show, ip);
}

void names_code(const struct profile *p, uint32_t pid, uint64_t time, uint64_t ip, char *buf,
		size_t len)
{
	const struct prof_sym *s = profile_sym(p, pid, time, SYM_CODE, ip);

	if (s && s->name && s->file)
		snprintf(buf, len, "%s (%s:%u)", s->name, names_base(s->file), s->line);
	else if (s && s->name)
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, ip - s->start);
	else if (s && s->module)
		names_module_offset(p, profile_image(p, pid, time), ip, s->module, buf, len);
	else
		snprintf(buf, len, "0x%" PRIx64, ip);
}

const char *names_inline(const struct profile *p, uint32_t pid, uint64_t time, uint64_t ip)
{
	const struct prof_sym *s = profile_sym(p, pid, time, SYM_INLINE, ip);

	return s && s->name ? s->name : "";
}

void names_data(const struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
		int stack, char *buf, size_t len, uint64_t *offset)
{
	const struct prof_sym *s = stack ? NULL : profile_sym(p, pid, time, SYM_DATA, addr);

	*offset = 0;
	if (stack)
		snprintf(buf, len, "[stack]");
	else if (s && s->name) {
		snprintf(buf, len, "%s", s->name);
		*offset = addr - s->start;
	} else if (s && s->module)
		snprintf(buf, len, "[%s]", names_base(s->module));
	else
		snprintf(buf, len, "[anon]");
}
