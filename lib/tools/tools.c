// SPDX-License-Identifier: GPL-2.0-only
/* The tool table. */
#include <string.h>

#include "lib/tools/tool.h"

/* One line per tool, in the order `cdt --help` lists them: T(NAME) for
 * the descriptor tool_NAME in lib/tools/NAME/tool.c. */
#define TOOL_LIST(T) \
	T(record)    \
	T(comm)      \
	T(fvar)      \
	T(numa)      \
	T(membound)  \
	/* end of the list */

#define TOOL_DECLARE(n) extern const struct tool tool_##n;
#define TOOL_ENTRY(n) &tool_##n,
TOOL_LIST(TOOL_DECLARE)

const struct tool *const tools[] = { TOOL_LIST(TOOL_ENTRY) NULL };

const struct tool *tools_find(const char *name)
{
	for (size_t i = 0; name && tools[i]; i++)
		if (!strcmp(tools[i]->name, name))
			return tools[i];
	return NULL;
}

#ifdef CDT_AGENT
#include "lib/agent/agent.h"

const struct agent_tool *agent_tool_find(const char *name)
{
	const struct tool *t = tools_find(name);

	return t ? t->agent : NULL;
}
#else
const struct prof_ops *tools_prof(const char *name)
{
	const struct tool *t = tools_find(name);

	return t ? t->prof : NULL;
}
#endif
