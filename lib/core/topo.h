/* SPDX-License-Identifier: GPL-2.0-only */
/* Machine topology: logical CPUs to cores, sockets and NUMA nodes. */
#ifndef CDT_TOPO_H
#define CDT_TOPO_H

struct topo_cpu {
	int cpu, core, socket, node; /* core is unique machine-wide */
};

struct topo {
	int ncpus, ncores, nsockets, nnodes;
	struct topo_cpu *cpus; /* ncpus entries, by cpu number order */
};

int topo_read(struct topo *t);
/* The same from a copy of sysfs under root ("" is the live system); for tests. */
int topo_read_at(struct topo *t, const char *root);
void topo_free(struct topo *t);

#endif
