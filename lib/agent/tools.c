// SPDX-License-Identifier: GPL-2.0-only
/* The agent's tools: what each does with a sample and a trap. */
#include "agent.h"

static const struct agent_tool tools[] = {
	{ TOOL_RECORD, NULL, record_thread_start, record_sample, record_trap },
	{ TOOL_COMM, comm_init, comm_thread_start, comm_sample, comm_trap },
};

const struct agent_tool *agent_tool_find(uint32_t id)
{
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (tools[i].id == id)
			return &tools[i];
	return NULL;
}
