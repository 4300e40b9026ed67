// SPDX-License-Identifier: GPL-2.0-only
/*
 * Thread placement, one rule for --bind (which pins threads) and for
 * --predict (which assumes them placed): threads in the order they were
 * created take CPUs in turn.  compact fills one node's CPUs before the
 * next node's, as `taskset` by ranges and OMP_PLACES=cores with
 * OMP_PROC_BIND=close do; scatter deals threads to the nodes in turn, as
 * OMP_PROC_BIND=spread does.  More threads than CPUs wrap around.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/cliopt.h"

#include "lib/core/topo.h"
#include "lib/tools/numa/model.h"
#include "lib/tools/numa/parts.h"

int numa_place_node(uint32_t index, int nodes, int per_node, int policy)
{
	if (nodes < 1 || per_node < 1)
		return 0;
	if (policy == NUMA_BIND_SCATTER)
		return (int)(index % (uint32_t)nodes);
	return (int)(index / (uint32_t)per_node % (uint32_t)nodes);
}

int numa_place_cpus(const struct topo *t, int policy, uint16_t *cpu, uint32_t max,
		    uint32_t *n)
{
	uint32_t k = 0;
	int nodes = 1; /* node ids may have gaps: up to the largest */

	*n = 0;
	if (t->ncpus < 1)
		return -EINVAL;
	for (int i = 0; i < t->ncpus; i++)
		if (t->cpus[i].node >= nodes)
			nodes = t->cpus[i].node + 1;
	if (policy == NUMA_BIND_SCATTER) {
		/* The i-th CPU of each node in turn. */
		for (int round = 0; k < max && round < t->ncpus; round++)
			for (int nd = 0; nd < nodes && k < max; nd++) {
				int seen = 0;

				for (int i = 0; i < t->ncpus; i++)
					if (t->cpus[i].node == nd && seen++ == round) {
						cpu[k++] = (uint16_t)t->cpus[i].cpu;
						break;
					}
			}
	} else {
		for (int nd = 0; nd < nodes && k < max; nd++)
			for (int i = 0; i < t->ncpus && k < max; i++)
				if (t->cpus[i].node == nd || (nd == 0 && t->cpus[i].node < 0))
					cpu[k++] = (uint16_t)t->cpus[i].cpu;
	}
	*n = k;
	return k ? 0 : -EINVAL;
}

/* "compact", "scatter", and with none_ok "none": enum numa_bind, or -1. */
int numa_policy(const char *s, int none_ok)
{
	if (!strcmp(s, "compact"))
		return NUMA_BIND_COMPACT;
	if (!strcmp(s, "scatter"))
		return NUMA_BIND_SCATTER;
	if (none_ok && !strcmp(s, "none"))
		return NUMA_BIND_NONE;
	return -1;
}

/* N[:policy[:cpus]]: 0 and the parts, or -EINVAL (after saying why if say). */
int numa_predict_parse(const char *spec, int *nodes, int *policy, int *per_node, int say)
{
	char buf[64], *p, *q;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", spec);
	*policy = NUMA_BIND_COMPACT;
	*per_node = 0;
	p = strchr(buf, ':');
	if (p) {
		*p++ = '\0';
		q = strchr(p, ':');
		if (q) {
			*q++ = '\0';
			if (cliopt_parse_u64(q, 0, &v) || !v || v > 4096)
				goto bad;
			*per_node = (int)v;
		}
		*policy = numa_policy(p, 0);
		if (*policy < 0)
			goto bad;
	}
	if (cliopt_parse_u64(buf, 0, &v) || v < 2 || v > 64)
		goto bad;
	*nodes = (int)v;
	return 0;
bad:
	if (say)
		fprintf(stderr, "cdt numa: --predict '%s': give NODES (2 to 64), then optionally "
			":compact or :scatter and :CPUS per node, e.g. 2:compact:4\n", spec);
	return -EINVAL;
}

