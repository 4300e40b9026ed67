// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology from sysfs, checked against independent oracles: sysconf,
 * hwloc (its own discovery), and the raw sysfs files per CPU.
 */
#include <errno.h>
#include <hwloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/core/topo.h"

static int read_int(const char *fmt, int cpu, int *v)
{
	char path[128];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), fmt, cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	r = fscanf(f, "%d", v) == 1 ? 0 : -1;
	fclose(f);
	return r;
}

static void test_counts(void **state)
{
	struct topo t;

	(void)state;
	assert_int_equal(topo_read(&t), 0);
	assert_int_equal(t.ncpus, sysconf(_SC_NPROCESSORS_ONLN));
	assert_non_null(t.cpus);
	assert_true(t.ncores >= 1 && t.ncores <= t.ncpus);
	assert_true(t.nsockets >= 1 && t.nsockets <= t.ncores);
	assert_true(t.nnodes >= 1);
	for (int i = 1; i < t.ncpus; i++)
		assert_true(t.cpus[i].cpu > t.cpus[i - 1].cpu);
	topo_free(&t);
	assert_null(t.cpus);
	assert_int_equal(t.ncpus, 0);
}

/* Same core number exactly when sysfs gives the same (package, core_id). */
static void test_cores_machine_wide(void **state)
{
	struct topo t;
	int *used;

	(void)state;
	assert_int_equal(topo_read(&t), 0);
	used = calloc((size_t)t.ncores, sizeof(int));
	assert_non_null(used);
	for (int i = 0; i < t.ncpus; i++) {
		int pi, ci;

		assert_in_range(t.cpus[i].core, 0, t.ncores - 1);
		used[t.cpus[i].core] = 1;
		if (read_int("/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			     t.cpus[i].cpu, &pi) < 0 ||
		    read_int("/sys/devices/system/cpu/cpu%d/topology/core_id",
			     t.cpus[i].cpu, &ci) < 0)
			continue;
		assert_int_equal(t.cpus[i].socket, pi);
		for (int j = 0; j < t.ncpus; j++) {
			int pj, cj;

			if (read_int("/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
				     t.cpus[j].cpu, &pj) < 0 ||
			    read_int("/sys/devices/system/cpu/cpu%d/topology/core_id",
				     t.cpus[j].cpu, &cj) < 0)
				continue;
			assert_int_equal(t.cpus[i].core == t.cpus[j].core, pi == pj && ci == cj);
		}
	}
	/* Dense numbering: every core number in use. */
	for (int c = 0; c < t.ncores; c++)
		assert_true(used[c]);
	free(used);
	topo_free(&t);
}

/* hwloc discovers the machine its own way; the counts must agree. */
static void test_against_hwloc(void **state)
{
	hwloc_topology_t h;
	struct topo t;

	(void)state;
	assert_int_equal(topo_read(&t), 0);
	assert_int_equal(hwloc_topology_init(&h), 0);
	/* Count every online CPU, not just the ones our cpuset allows. */
	assert_int_equal(hwloc_topology_set_flags(h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED), 0);
	assert_int_equal(hwloc_topology_load(h), 0);
	assert_int_equal(t.ncpus, hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU));
	assert_int_equal(t.ncores, hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE));
	assert_int_equal(t.nsockets, hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE));
	assert_int_equal(t.nnodes, hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE));

	/* Each CPU's node as hwloc sees it. */
	for (int i = 0; i < t.ncpus; i++) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(h, (unsigned)t.cpus[i].cpu);
		hwloc_obj_t node;
		int found = 0;

		assert_non_null(pu);
		node = NULL;
		while ((node = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, node))) {
			if (hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
				assert_int_equal(t.cpus[i].node, (int)node->os_index);
				found = 1;
			}
		}
		assert_true(found);
	}
	hwloc_topology_destroy(h);
	topo_free(&t);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void put_cpu(const char *root, int cpu, int pkg, int core)
{
	char rel[128], v[16];

	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
	snprintf(v, sizeof(v), "%d\n", pkg);
	put(root, rel, v);
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
	snprintf(v, sizeof(v), "%d\n", core);
	put(root, rel, v);
}

/*
 * A machine this host is not: two packages of two SMT cores, CPU 4
 * offline, nodes 0 and 2 with CPUs and node 3 memory-only.  core_id
 * repeats across packages, so machine-wide numbering is really tested.
 */
static void test_fake_two_sockets(void **state)
{
	static const int pkg[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static const int cid[] = { 0, 0, 1, 1, 0, 0, 1, 1 };
	static const int want_cpu[] = { 0, 1, 2, 3, 5, 6, 7 };
	static const int want_core[] = { 0, 0, 1, 1, 2, 3, 3 };
	static const int want_node[] = { 0, 0, 0, 0, 2, 2, 2 };
	char root[] = "/tmp/cdt-test-topo-XXXXXX", cmd[128];
	struct topo t;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (int c = 0; c < 8; c++)
		put_cpu(root, c, pkg[c], cid[c]);
	put(root, "sys/devices/system/cpu/online", "0-3,5-7\n");
	put(root, "sys/devices/system/node/node0/cpulist", "0-3\n");
	put(root, "sys/devices/system/node/node2/cpulist", "5-7\n");
	put(root, "sys/devices/system/node/node3/cpulist", "\n");
	put(root, "sys/devices/system/node/possible", "0-3\n");

	assert_int_equal(topo_read_at(&t, root), 0);
	assert_int_equal(t.ncpus, 7);
	assert_int_equal(t.ncores, 4);
	assert_int_equal(t.nsockets, 2);
	assert_int_equal(t.nnodes, 3);
	for (int i = 0; i < 7; i++) {
		assert_int_equal(t.cpus[i].cpu, want_cpu[i]);
		assert_int_equal(t.cpus[i].core, want_core[i]);
		assert_int_equal(t.cpus[i].socket, pkg[want_cpu[i]]);
		assert_int_equal(t.cpus[i].node, want_node[i]);
	}
	topo_free(&t);

	/* No node directory at all: one node, node 0. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/devices/system/node'", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(topo_read_at(&t, root), 0);
	assert_int_equal(t.nnodes, 1);
	for (int i = 0; i < t.ncpus; i++)
		assert_int_equal(t.cpus[i].node, 0);
	topo_free(&t);

	/* A malformed online list is an error, not a guess. */
	put(root, "sys/devices/system/cpu/online", "0-x\n");
	assert_int_equal(topo_read_at(&t, root), -EINVAL);
	assert_null(t.cpus);
	put(root, "sys/devices/system/cpu/online", "3-1\n");
	assert_int_equal(topo_read_at(&t, root), -EINVAL);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_cores_machine_wide),
		cmocka_unit_test(test_against_hwloc),
		cmocka_unit_test(test_fake_two_sockets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
