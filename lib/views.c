// SPDX-License-Identifier: GPL-2.0-only
#include "views.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "symbolize.h"

static const struct tool_views *const all_views[] = {
	&views_record,
};

const struct tool_views *views_for(const char *tool)
{
	for (size_t i = 0; tool && i < sizeof(all_views) / sizeof(all_views[0]); i++)
		if (!strcmp(all_views[i]->tool, tool))
			return all_views[i];
	return NULL;
}

const struct view *views_find(const struct tool_views *tv, const char *name)
{
	for (const struct view *v = tv->views; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

const char *view_kind_name(int kind)
{
	switch (kind) {
	case MEM_LOAD: return "load";
	case MEM_STORE: return "store";
	case MEM_RMW: return "rmw";
	default: return "none";
	}
}

static const char *view_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

void view_code_loc(const struct profile *p, uint32_t pid, uint64_t time, uint64_t ip,
		   char *buf, size_t len)
{
	const struct prof_sym *s = profile_sym(p, pid, time, SYM_CODE, ip);

	if (s && s->name && s->file)
		snprintf(buf, len, "%s (%s:%u)", s->name, view_base(s->file), s->line);
	else if (s && s->name)
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, ip - s->start);
	else if (s && s->module)
		snprintf(buf, len, "%s@0x%" PRIx64, view_base(s->module), ip);
	else
		snprintf(buf, len, "0x%" PRIx64, ip);
}

void view_data_obj(const struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
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
		snprintf(buf, len, "[%s]", view_base(s->module));
	else
		snprintf(buf, len, "[anon]");
}
