// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology from sysfs: online CPUs, their package and core, NUMA nodes.
 * sysfs rather than hwloc: a handful of small reads, no library start-up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/topo.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define NODE_DIR "/sys/devices/system/node"
#define PATH_LEN 512

/* Read a whole small file; NUL-terminated. */
static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while (got < (ssize_t)len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return 0;
}

static int read_int(const char *path, int *v)
{
	char buf[32], *end;
	long x;
	int r = read_text(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	x = strtol(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	*v = (int)x;
	return 0;
}

/*
 * Call fn for every CPU in a kernel cpu list ("0-3,8,10-11").
 * Returns 0, -EINVAL on a malformed list, or fn's first error.
 */
static int cpulist_each(const char *s, int (*fn)(int cpu, void *arg), void *arg)
{
	while (*s && *s != '\n') {
		char *end;
		long lo = strtol(s, &end, 10), hi;

		if (end == s || lo < 0)
			return -EINVAL;
		hi = lo;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo)
				return -EINVAL;
			s = end;
		}
		for (long c = lo; c <= hi; c++) {
			int r = fn((int)c, arg);

			if (r < 0)
				return r;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return 0;
}

static int count_cpu(int cpu, void *arg)
{
	(void)cpu;
	++*(int *)arg;
	return 0;
}

struct fill {
	struct topo *t;
	int n;
};

static int add_cpu(int cpu, void *arg)
{
	struct fill *f = arg;

	if (f->n >= f->t->ncpus)
		return -EINVAL;
	f->t->cpus[f->n].cpu = cpu;
	f->t->cpus[f->n].node = 0;
	f->n++;
	return 0;
}

struct node_fill {
	struct topo *t;
	int node;
};

static int set_node(int cpu, void *arg)
{
	struct node_fill *nf = arg;

	for (int i = 0; i < nf->t->ncpus; i++) {
		if (nf->t->cpus[i].cpu == cpu) {
			nf->t->cpus[i].node = nf->node;
			break;
		}
	}
	return 0;
}

/* Nodes: every online node counts (memory-only ones too); none means one. */
static int read_nodes(struct topo *t, const char *root)
{
	char path[PATH_LEN], list[4096];
	DIR *d;
	struct dirent *e;
	int r = 0, nodes = 0;

	snprintf(path, sizeof(path), "%s" NODE_DIR, root);
	d = opendir(path);

	if (!d) {
		t->nnodes = 1;
		return 0;
	}
	while ((e = readdir(d))) {
		struct node_fill nf = { t, 0 };
		char *end;
		long id;

		if (strncmp(e->d_name, "node", 4))
			continue;
		id = strtol(e->d_name + 4, &end, 10);
		if (end == e->d_name + 4 || *end)
			continue;
		nodes++;
		nf.node = (int)id;
		snprintf(path, sizeof(path), "%s" NODE_DIR "/node%ld/cpulist", root, id);
		if (read_text(path, list, sizeof(list)) < 0)
			continue;
		r = cpulist_each(list, set_node, &nf);
		if (r < 0)
			break;
	}
	closedir(d);
	t->nnodes = nodes ? nodes : 1;
	return r;
}

/*
 * Cores numbered machine-wide in order of first appearance: core_id is
 * only unique within a package.
 */
static int number_cores(struct topo *t, const char *root)
{
	int *pkg = calloc((size_t)t->ncpus, sizeof(int));
	int *cid = calloc((size_t)t->ncpus, sizeof(int));
	int *sock = calloc((size_t)t->ncpus, sizeof(int));
	int r = 0, nsock = 0;

	if (!pkg || !cid || !sock) {
		r = -ENOMEM;
		goto out;
	}
	t->ncores = 0;
	for (int i = 0; i < t->ncpus; i++) {
		char path[PATH_LEN];
		int core = -1, p = 0, c = t->cpus[i].cpu, j;

		snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%d/topology/physical_package_id",
			 root, c);
		if (read_int(path, &p) < 0)
			p = 0;
		snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%d/topology/core_id", root, c);
		if (read_int(path, &core) < 0)
			core = c; /* no topology: each CPU its own core */

		for (j = 0; j < t->ncores; j++)
			if (pkg[j] == p && cid[j] == core)
				break;
		if (j == t->ncores) {
			pkg[j] = p;
			cid[j] = core;
			t->ncores++;
		}
		t->cpus[i].core = j;

		for (j = 0; j < nsock; j++)
			if (sock[j] == p)
				break;
		if (j == nsock)
			sock[nsock++] = p;
		t->cpus[i].socket = p;
	}
	t->nsockets = nsock;
out:
	free(pkg);
	free(cid);
	free(sock);
	return r;
}

int topo_read(struct topo *t)
{
	return topo_read_at(t, "");
}

int topo_read_at(struct topo *t, const char *root)
{
	char list[4096], path[PATH_LEN];
	struct fill f = { t, 0 };
	int r, n = 0;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s" CPU_DIR "/online", root);
	r = read_text(path, list, sizeof(list));
	if (r < 0) {
		/* No sysfs: CPUs 0..n-1, one node, one socket. */
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(list, sizeof(list), "0-%ld", c > 0 ? c - 1 : 0);
	}
	r = cpulist_each(list, count_cpu, &n);
	if (r < 0)
		goto out;
	if (n == 0) {
		r = -ENOENT;
		goto out;
	}
	t->ncpus = n;
	t->cpus = calloc((size_t)n, sizeof(*t->cpus));
	if (!t->cpus) {
		r = -ENOMEM;
		goto out;
	}
	r = cpulist_each(list, add_cpu, &f);
	if (r < 0)
		goto out;
	r = number_cores(t, root);
	if (r < 0)
		goto out;
	r = read_nodes(t, root);
out:
	if (r < 0)
		topo_free(t);
	return r;
}

void topo_free(struct topo *t)
{
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}
