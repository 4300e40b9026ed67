// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt numa's model on injected topologies and page placements, two and
 * four nodes: the node of each access (the sample's CPU against its
 * page's node, as asked at that time, else inferred from its first
 * touch), the thread x node matrix and the per-node totals, migrations
 * across nodes, first touch (the earliest fault since the object was
 * made, not a later hinting fault), --predict on another machine's
 * shape, where pmu samples were served (PERF_SAMPLE_DATA_SRC), thread
 * placement for --bind, the records' checks as untrusted
 * input, and the per-CPU counter table's encodings under
 * LIBPFM_FORCE_PMU (in a child, since libpfm4 reads it once).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/core/pmu_events.h"
#include "lib/core/profile.h"
#include "lib/core/records.h"
#include "lib/core/topo.h"
#include "lib/tools/numa/model.h"
#include "lib/tools/numa/parts.h"

#define PID 100
#define PAGE_A 0x7f0000000000ull /* pages of node 0 */
#define PAGE_B 0x7f0000100000ull /* pages of node 1 */
#define PAGE_C 0x7f0000400000ull /* another 2 MiB region */

/* A topology of nodes x per CPUs, CPU c on node c / per. */
static void topo_inject(struct topo *t, int nodes, int per)
{
	t->ncpus = nodes * per;
	t->nnodes = nodes;
	t->ncores = t->ncpus;
	t->nsockets = nodes;
	t->cpus = calloc((size_t)t->ncpus, sizeof(*t->cpus));
	assert_non_null(t->cpus);
	for (int c = 0; c < t->ncpus; c++)
		t->cpus[c] = (struct topo_cpu){ c, c, c / per, c / per };
}

static void prof_new(struct profile *p, int nodes, int per, const char *predict)
{
	profile_init(p);
	p->ops = &numa_prof;
	topo_inject(&p->topo, nodes, per);
	assert_int_equal(profile_set_meta(p, "tool", "numa"), 0);
	assert_int_equal(profile_set_meta(p, "interval_ms", "100"), 0);
	if (predict)
		assert_int_equal(profile_set_meta(p, "predict", predict), 0);
}

static void add_thread(struct profile *p, uint32_t tid, uint64_t time)
{
	struct rec_thread r = { .h = { sizeof(r), REC_THREAD, 0 } };

	r.pid = PID;
	r.tid = tid;
	r.time = time;
	strcpy(r.name, "app");
	assert_int_equal(profile_add(p, &r.h), 0);
}

static void add_samples(struct profile *p, uint32_t tid, uint32_t cpu, uint64_t addr,
			uint64_t time, int n)
{
	for (int i = 0; i < n; i++) {
		struct rec_sample s = { .h = { sizeof(s), REC_SAMPLE, 0 } };

		s.pid = PID;
		s.tid = tid;
		s.time = time + (uint64_t)i;
		s.ip = 0x401000;
		s.addr = addr + (uint64_t)(i % 4) * 64;
		s.cpu = cpu;
		s.size = 8;
		s.kind = MEM_LOAD;
		s.flags = SAMPLE_F_ADDR;
		assert_int_equal(profile_add(p, &s.h), 0);
	}
}

static void add_pages(struct profile *p, uint64_t addr, uint64_t n, int node, uint64_t time)
{
	struct rec_numa_pages r = { .h = { sizeof(r), REC_NUMA_PAGES, 0 } };

	r.pid = PID;
	r.node = node;
	r.time = time;
	r.addr = addr;
	r.npages = n;
	assert_int_equal(profile_add(p, &r.h), 0);
}

static void add_fault(struct profile *p, uint32_t tid, uint32_t cpu, uint64_t addr,
		      uint32_t n, uint64_t time)
{
	struct rec_numa_fault r = { .h = { sizeof(r), REC_NUMA_FAULT, 0 } };

	r.pid = PID;
	r.tid = tid;
	r.cpu = cpu;
	r.addr = addr;
	r.npages = n;
	r.time = time;
	r.ip = 0x401234;
	assert_int_equal(profile_add(p, &r.h), 0);
}

static void add_migrate(struct profile *p, uint32_t tid, uint32_t cpu, uint64_t time)
{
	struct rec_numa_migrate r = { .h = { sizeof(r), REC_NUMA_MIGRATE, 0 } };

	r.pid = PID;
	r.tid = tid;
	r.cpu = cpu;
	r.time = time;
	assert_int_equal(profile_add(p, &r.h), 0);
}

static const struct numa_thr *thr_of(const struct numa_model *m, uint32_t index)
{
	assert_true(index < m->nthr);
	return &m->thr[index];
}

/* Two nodes: a thread on node 1 reading node 0's pages is remote, its
 * own pages local; the matrix and the node totals say the same. */
static void test_two_nodes(void **state)
{
	struct profile p;
	const struct numa_model *m;

	(void)state;
	prof_new(&p, 2, 2, NULL);
	add_thread(&p, 1, 10);
	add_thread(&p, 2, 20);
	profile_number_tasks(&p);
	add_pages(&p, PAGE_A, 16, 0, 100);
	add_pages(&p, PAGE_B, 16, 1, 100);
	add_samples(&p, 1, 0, PAGE_A, 1000, 20); /* thread 0 on node 0: local */
	add_samples(&p, 2, 2, PAGE_A, 1000, 30); /* thread 1 on node 1: remote */
	add_samples(&p, 2, 3, PAGE_B, 2000, 10); /* its own node: local */
	m = numa_of(&p);
	assert_non_null(m);
	assert_int_equal(m->nnodes, 2);
	assert_int_equal(thr_of(m, 0)->local, 20);
	assert_int_equal(thr_of(m, 0)->remote, 0);
	assert_int_equal(thr_of(m, 0)->node, 0);
	assert_int_equal(thr_of(m, 1)->remote, 30);
	assert_int_equal(thr_of(m, 1)->local, 10);
	assert_int_equal(thr_of(m, 1)->node, 1);
	assert_int_equal(thr_of(m, 1)->by_node[0], 30);
	assert_int_equal(thr_of(m, 1)->by_node[1], 10);
	assert_int_equal(m->node_out[1], 30);
	assert_int_equal(m->node_in[0], 30);
	assert_int_equal(m->node_local[0], 20);
	assert_int_equal(m->node_local[1], 10);
	assert_int_equal(m->remote, 30);
	assert_int_equal(m->unknown, 0);
	profile_free(&p);
}

/* A page asked twice (NUMA balancing moved it): each sample is placed by
 * the answer before it.  A page never asked takes the node of the CPU of
 * its first touch (inferred); one neither asked nor faulted is unknown. */
static void test_moves_and_inferred(void **state)
{
	struct profile p;
	const struct numa_model *m;

	(void)state;
	prof_new(&p, 2, 2, NULL);
	add_thread(&p, 1, 10);
	profile_number_tasks(&p);
	add_pages(&p, PAGE_A, 1, 0, 100);
	add_pages(&p, PAGE_A, 1, 1, 5000);       /* moved to node 1 */
	add_samples(&p, 1, 2, PAGE_A, 1000, 8);  /* before the move: remote */
	add_samples(&p, 1, 2, PAGE_A, 6000, 4);  /* after: local */
	add_fault(&p, 1, 3, PAGE_B, 1, 50);      /* faulted on node 1, never asked */
	add_samples(&p, 1, 2, PAGE_B, 7000, 5);  /* local, inferred */
	add_samples(&p, 1, 2, PAGE_B + 0x200000, 8000, 3); /* nothing known */
	m = numa_of(&p);
	assert_non_null(m);
	assert_int_equal(thr_of(m, 0)->remote, 8);
	assert_int_equal(thr_of(m, 0)->local, 9);
	assert_int_equal(thr_of(m, 0)->unknown, 3);
	assert_int_equal(m->inferred, 5);
	profile_free(&p);
}

/* CPU migrations, those across nodes counted apart. */
static void test_migrations(void **state)
{
	struct profile p;
	const struct numa_model *m;

	(void)state;
	prof_new(&p, 2, 2, NULL);
	add_thread(&p, 1, 10);
	profile_number_tasks(&p);
	add_pages(&p, PAGE_A, 1, 0, 10);
	add_samples(&p, 1, 0, PAGE_A, 100, 2); /* starts on node 0 */
	add_migrate(&p, 1, 1, 200);            /* node 0 again */
	add_migrate(&p, 1, 2, 300);            /* to node 1 */
	add_migrate(&p, 1, 3, 400);            /* node 1 again */
	add_migrate(&p, 1, 0, 500);            /* back to node 0 */
	m = numa_of(&p);
	assert_non_null(m);
	assert_int_equal(thr_of(m, 0)->cpu_moves, 4);
	assert_int_equal(thr_of(m, 0)->node_moves, 2);
	profile_free(&p);
}

/* The object with faulted pages (the tests fault one). */
static const struct numa_obj *obj_faulted(const struct numa_model *m)
{
	const struct numa_obj *o = NULL;

	for (size_t i = 0; i < m->nobj; i++)
		if (m->obj[i].pages)
			o = &m->obj[i];
	return o;
}

/* First touch: the main thread faults 8 pages, a worker faults them all
 * again later (hinting faults) and 2 more of its own; the object's first
 * toucher is the main thread with 8 of 10 pages. */
static void test_first_touch(void **state)
{
	struct profile p;
	const struct numa_model *m;
	const struct numa_obj *o;

	(void)state;
	prof_new(&p, 2, 2, NULL);
	add_thread(&p, 1, 10);
	add_thread(&p, 2, 20);
	profile_number_tasks(&p);
	add_fault(&p, 1, 0, PAGE_A, 8, 100);
	add_fault(&p, 2, 2, PAGE_A, 8, 5000);
	add_fault(&p, 2, 2, PAGE_A + 8 * 4096, 2, 5100);
	add_pages(&p, PAGE_A, 8, 0, 200);
	add_pages(&p, PAGE_A + 8 * 4096, 2, 1, 5200);
	m = numa_of(&p);
	assert_non_null(m);
	o = obj_faulted(m);
	assert_non_null(o);
	assert_int_equal(o->pages, 10);
	assert_int_equal(o->ft_thread, 0);
	assert_int_equal(o->ft_thread_pages, 8);
	assert_int_equal(o->ft_threads, 2);
	assert_int_equal(o->landed[0], 8);
	assert_int_equal(o->landed[1], 2);
	assert_int_equal(thr_of(m, 0)->faults, 8);
	profile_free(&p);
}

/* A 2 MiB region with one fault (a huge page) places its other pages;
 * a region of several faults at once places none it did not fault; later
 * faults in a huge page's region are not first touches. */
static void test_huge_page(void **state)
{
	struct profile p;
	const struct numa_model *m;
	const struct numa_obj *o;

	(void)state;
	prof_new(&p, 2, 2, NULL);
	add_thread(&p, 1, 10);
	profile_number_tasks(&p);
	add_fault(&p, 1, 2, PAGE_A, 1, 100);                 /* one fault: huge */
	add_samples(&p, 1, 0, PAGE_A + 300 * 4096, 1000, 6); /* inferred node 1 */
	add_fault(&p, 1, 2, PAGE_C, 1, 100);
	add_fault(&p, 1, 2, PAGE_C + 4096, 1, 110);          /* small pages */
	add_samples(&p, 1, 0, PAGE_C + 300 * 4096, 2000, 4); /* unknown */
	m = numa_of(&p);
	assert_non_null(m);
	assert_int_equal(thr_of(m, 0)->remote, 6);
	assert_int_equal(thr_of(m, 0)->unknown, 4);
	profile_free(&p);

	/* NUMA balancing's hinting faults on a huge page, by both threads on
	 * other pages of it, once a scan pass: not first touches. */
	prof_new(&p, 2, 2, NULL);
	add_thread(&p, 1, 10);
	add_thread(&p, 2, 20);
	profile_number_tasks(&p);
	add_fault(&p, 1, 0, PAGE_A, 1, 1000);
	for (uint64_t pass = 1; pass <= 3; pass++) {
		add_fault(&p, 2, 2, PAGE_A + 4096 * (10 * pass), 1, pass * 1200000000);
		add_fault(&p, 1, 0, PAGE_A + 4096 * (10 * pass + 1), 1, pass * 1200000000 + 5000);
	}
	m = numa_of(&p);
	assert_non_null(m);
	o = obj_faulted(m);
	assert_non_null(o);
	assert_int_equal(o->pages, 512);
	assert_int_equal(o->ft_thread, 0);
	assert_int_equal(o->ft_threads, 1);
	assert_int_equal(o->landed[0], 512);
	profile_free(&p);

	/* A region's first write 150 ms before the rest: the rest come at
	 * once, as 4 KiB pages do. */
	prof_new(&p, 2, 2, NULL);
	add_thread(&p, 1, 10);
	add_thread(&p, 2, 20);
	profile_number_tasks(&p);
	add_fault(&p, 1, 0, PAGE_A, 1, 1000);
	for (uint64_t k = 1; k <= 300; k++)
		add_fault(&p, 2, 2, PAGE_A + 4096 * k, 1, 150000000 + k * 20000);
	m = numa_of(&p);
	assert_non_null(m);
	o = obj_faulted(m);
	assert_non_null(o);
	assert_int_equal(o->pages, 301);
	assert_int_equal(o->ft_thread, 1);
	assert_int_equal(o->ft_thread_pages, 300);
	assert_int_equal(o->landed[0], 1);
	assert_int_equal(o->landed[1], 300);
	profile_free(&p);
}

/* --predict 4:scatter on a profile from one node: thread 0 first touched
 * everything; threads 1..3 land on nodes 1..3 and would be remote. */
static void test_predict_four(void **state)
{
	struct profile p;
	const struct numa_model *m;

	(void)state;
	prof_new(&p, 1, 2, "4:scatter");
	for (uint32_t t = 1; t <= 4; t++)
		add_thread(&p, t, 10 * t);
	profile_number_tasks(&p);
	add_fault(&p, 1, 0, PAGE_A, 16, 50);
	add_pages(&p, PAGE_A, 16, 0, 60);
	for (uint32_t t = 1; t <= 4; t++)
		add_samples(&p, t, 0, PAGE_A, 1000 * t, 25);
	m = numa_of(&p);
	assert_non_null(m);
	assert_true(m->pred.on);
	assert_int_equal(m->pred.nodes, 4);
	assert_int_equal(m->remote, 0);       /* measured: one node */
	assert_int_equal(thr_of(m, 0)->pred_local, 25);
	for (uint32_t i = 1; i < 4; i++)
		assert_int_equal(thr_of(m, i)->pred_remote, 25);
	assert_int_equal(m->pred_remote, 75);
	profile_free(&p);

	/* compact with 2 CPUs a node: threads 0,1 on node 0, 2,3 on node 1. */
	prof_new(&p, 1, 2, "2:compact:2");
	for (uint32_t t = 1; t <= 4; t++)
		add_thread(&p, t, 10 * t);
	profile_number_tasks(&p);
	add_fault(&p, 1, 0, PAGE_A, 16, 50);
	for (uint32_t t = 1; t <= 4; t++)
		add_samples(&p, t, 0, PAGE_A, 1000 * t, 10);
	m = numa_of(&p);
	assert_non_null(m);
	assert_int_equal(thr_of(m, 1)->pred_local, 10);
	assert_int_equal(thr_of(m, 2)->pred_remote, 10);
	assert_int_equal(thr_of(m, 3)->pred_remote, 10);
	profile_free(&p);
}

/* Four nodes of 2 CPUs: threads take the node of their sample's CPU. */
static void test_four_nodes(void **state)
{
	struct profile p;
	const struct numa_model *m;

	(void)state;
	prof_new(&p, 4, 2, NULL);
	for (uint32_t t = 1; t <= 4; t++)
		add_thread(&p, t, 10 * t);
	profile_number_tasks(&p);
	add_pages(&p, PAGE_A, 4, 3, 10);
	for (uint32_t t = 1; t <= 4; t++)
		add_samples(&p, t, 2 * (t - 1) + 1, PAGE_A, 1000 * t, 10);
	m = numa_of(&p);
	assert_non_null(m);
	assert_int_equal(m->nnodes, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(thr_of(m, i)->node, (int)i);
		assert_int_equal(thr_of(m, i)->by_node[3], 10);
		assert_int_equal(thr_of(m, i)->remote, i == 3 ? 0 : 10);
	}
	assert_int_equal(m->node_in[3], 30);
	profile_free(&p);
}

/* PERF_SAMPLE_DATA_SRC in both of the kernel's encodings, and the
 * threads' counts of where their pmu samples were served. */
static void test_served(void **state)
{
#define LVL(x) ((uint64_t)(PERF_MEM_LVL_HIT | (x)) << PERF_MEM_LVL_SHIFT)
#define NUM(x, r) ((uint64_t)(x) << PERF_MEM_LVLNUM_SHIFT | (uint64_t)(r) << PERF_MEM_REMOTE_SHIFT)
	struct profile p;
	const struct numa_model *m;

	(void)state;
	assert_int_equal(numa_served_of(0), NUMA_SERVED_NONE);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_L1)), NUMA_SERVED_L1);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_LFB)), NUMA_SERVED_L1);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_L2)), NUMA_SERVED_L2);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_L3)), NUMA_SERVED_L3);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_LOC_RAM)), NUMA_SERVED_LOCAL_DRAM);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_REM_RAM1)), NUMA_SERVED_REMOTE_DRAM);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_REM_RAM2)), NUMA_SERVED_REMOTE_DRAM);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_REM_CCE1)), NUMA_SERVED_REMOTE_CACHE);
	assert_int_equal(numa_served_of(LVL(PERF_MEM_LVL_IO)), NUMA_SERVED_OTHER);
	assert_int_equal(numa_served_of(NUM(PERF_MEM_LVLNUM_RAM, 0)), NUMA_SERVED_LOCAL_DRAM);
	assert_int_equal(numa_served_of(NUM(PERF_MEM_LVLNUM_RAM, 1)), NUMA_SERVED_REMOTE_DRAM);
	assert_int_equal(numa_served_of(NUM(PERF_MEM_LVLNUM_ANY_CACHE, 1)),
			 NUMA_SERVED_REMOTE_CACHE);
	assert_int_equal(numa_served_of(NUM(PERF_MEM_LVLNUM_L2, 0)), NUMA_SERVED_L2);
	assert_int_equal(numa_served_of(NUM(PERF_MEM_LVLNUM_NA, 0)), NUMA_SERVED_NONE);
	assert_string_equal(numa_served_name(NUMA_SERVED_REMOTE_CACHE), "remote_cache");

	prof_new(&p, 2, 2, NULL);
	add_thread(&p, 1, 10);
	profile_number_tasks(&p);
	for (int i = 0; i < 10; i++) {
		struct rec_sample s = { .h = { sizeof(s), REC_SAMPLE, 0 }, .pid = PID, .tid = 1,
					.time = 100 + (uint64_t)i, .addr = PAGE_A, .cpu = 0,
					.flags = SAMPLE_F_ADDR, .source = SRC_PMU };

		s.data_src = i < 3 ? LVL(PERF_MEM_LVL_REM_RAM1) : LVL(PERF_MEM_LVL_L1);
		assert_int_equal(profile_add(&p, &s.h), 0);
	}
	m = numa_of(&p);
	assert_non_null(m);
	assert_int_equal(thr_of(m, 0)->served[NUMA_SERVED_REMOTE_DRAM], 3);
	assert_int_equal(thr_of(m, 0)->served[NUMA_SERVED_L1], 7);
	profile_free(&p);
#undef LVL
#undef NUM
}

static void test_place(void **state)
{
	struct topo t = { 0 };
	uint16_t cpu[16];
	uint32_t n;

	(void)state;
	topo_inject(&t, 4, 2);
	assert_int_equal(numa_place_cpus(&t, NUMA_BIND_COMPACT, cpu, 16, &n), 0);
	assert_int_equal(n, 8);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(cpu[i], i);
	assert_int_equal(numa_place_cpus(&t, NUMA_BIND_SCATTER, cpu, 16, &n), 0);
	assert_int_equal(n, 8);
	{
		static const uint16_t want[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };

		for (uint32_t i = 0; i < n; i++)
			assert_int_equal(cpu[i], want[i]);
	}
	/* The same rule as --predict's. */
	assert_int_equal(numa_place_node(5, 4, 2, NUMA_BIND_COMPACT), 2);
	assert_int_equal(numa_place_node(5, 4, 2, NUMA_BIND_SCATTER), 1);
	assert_int_equal(numa_place_node(9, 4, 2, NUMA_BIND_COMPACT), 0); /* wraps */
	free(t.cpus);
}

static void test_predict_parse(void **state)
{
	int nodes, policy, per;

	(void)state;
	assert_int_equal(numa_predict_parse("2", &nodes, &policy, &per, 0), 0);
	assert_int_equal(nodes, 2);
	assert_int_equal(policy, NUMA_BIND_COMPACT);
	assert_int_equal(per, 0);
	assert_int_equal(numa_predict_parse("8:scatter:4", &nodes, &policy, &per, 0), 0);
	assert_int_equal(nodes, 8);
	assert_int_equal(policy, NUMA_BIND_SCATTER);
	assert_int_equal(per, 4);
	assert_int_equal(numa_predict_parse("1", &nodes, &policy, &per, 0), -EINVAL);
	assert_int_equal(numa_predict_parse("2:none", &nodes, &policy, &per, 0), -EINVAL);
	assert_int_equal(numa_predict_parse("2:compact:0", &nodes, &policy, &per, 0), -EINVAL);
	assert_int_equal(numa_predict_parse("x", &nodes, &policy, &per, 0), -EINVAL);
}

static const struct rec_desc *desc_of(uint16_t type)
{
	for (size_t i = 0; i < numa_prof.ntypes; i++)
		if (numa_prof.types[i].type == type)
			return &numa_prof.types[i];
	fail_msg("no type %u", type);
	return NULL;
}

static int accepted(const struct rec_hdr *h)
{
	static unsigned char buf[REC_FIXED_MAX] __attribute__((aligned(8)));
	char why[160];

	return rec_accept(desc_of(h->type), h, buf, why, sizeof(why), NULL) != NULL;
}

/* Records a forged file could hold: runs past the address space, empty
 * runs, unaligned pages, too many counters; none comes from the arena
 * but the counters (the others are the front end's own). */
static void test_records(void **state)
{
	struct rec_numa_fault f = { .h = { sizeof(f), REC_NUMA_FAULT, 0 }, .addr = PAGE_A,
				    .npages = 1 };
	struct rec_numa_pages g = { .h = { sizeof(g), REC_NUMA_PAGES, 0 }, .addr = PAGE_A,
				    .npages = 1 };
	struct rec_numa_counts c = { .h = { sizeof(c), REC_NUMA_COUNTS, 0 }, .n = 4,
				     .enabled = 10, .running = 10 };

	(void)state;
	assert_true(accepted(&f.h));
	f.npages = 0;
	assert_false(accepted(&f.h));
	f.npages = 1;
	f.addr = PAGE_A + 8;
	assert_false(accepted(&f.h));
	f.addr = ~0ull & ~4095ull;
	f.npages = 2;
	assert_false(accepted(&f.h));
	assert_true(accepted(&g.h));
	g.npages = 1ull << 40;
	assert_false(accepted(&g.h));
	g.npages = 1;
	g.node = 5000;
	assert_false(accepted(&g.h));
	assert_true(accepted(&c.h));
	c.n = 5;
	assert_false(accepted(&c.h));
	c.n = 1;
	c.running = 11;
	assert_false(accepted(&c.h));
	assert_false(desc_of(REC_NUMA_FAULT)->flags & REC_T_AGENT);
	assert_false(desc_of(REC_NUMA_PAGES)->flags & REC_T_AGENT);
	assert_false(desc_of(REC_NUMA_MIGRATE)->flags & REC_T_AGENT);
	assert_true(desc_of(REC_NUMA_COUNTS)->flags & REC_T_AGENT);
}

/* ---- the counter table under LIBPFM_FORCE_PMU, in a child ---- */

static char self_exe[4096];

/* Helper mode: each event of the row of the forced PMU, encoded. */
static int helper_main(void)
{
	struct events_host h;
	const struct numa_event_row *row;

	events_host_detect(&h);
	row = numa_events_row(h.pmu);
	if (!row)
		return 3;
	for (int k = 0; k < NUMA_MAX_EVENTS && row->ev[k].name; k++) {
		struct agent_event ev = { 0 };
		char err[256] = "";
		int rc = events_encode(row->ev[k].name, 0, &ev, err, sizeof(err));

		printf("%d %d %u %#llx %s\n", rc, row->ev[k].role, ev.type,
		       (unsigned long long)ev.config, err);
	}
	return fflush(stdout) ? 1 : 0;
}

static void forced(const char *pmu, char *out, size_t len)
{
	int fd[2], status;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		execl(self_exe, "test_numa", "--helper", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (got < len - 1 && (r = read(fd[0], out + got, len - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status))
		fail_msg("LIBPFM_FORCE_PMU=%s: helper exit %d:\n%s", pmu, WEXITSTATUS(status), out);
}

/* Every row encodes, as raw events (type 4); three rows against the
 * encodings libpfm4 4.13 gives. */
static void test_event_table(void **state)
{
	static const struct {
		const char *pmu;
		unsigned long long config[NUMA_MAX_EVENTS];
	} known[] = {
		{ "hsw_ep", { 0x1d3, 0x4d3, 0x10d3, 0x20d3 } },
		{ "skx", { 0x1d3, 0x2d3, 0x4d3, 0x8d3 } },
		{ "amd64_fam19h_zen3", { 0x843, 0x4043, 0x1043, 0 } },
	};
	char out[2048];

	(void)state;
	for (const struct numa_event_row *row = numa_events_table(); row->pmu; row++) {
		const char *l = out;
		int k = 0;

		forced(row->pmu, out, sizeof(out));
		for (; *l; l = strchr(l, '\n') + 1, k++) {
			int rc, role;
			unsigned type;
			unsigned long long config;

			assert_int_equal(sscanf(l, "%d %d %u %llx", &rc, &role, &type, &config), 4);
			if (rc)
				fail_msg("%s: %s", row->pmu, l);
			assert_int_equal(type, 4);
			assert_int_equal(role, row->ev[k].role);
			for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
				if (!strcmp(known[i].pmu, row->pmu))
					assert_int_equal(config, known[i].config[k]);
		}
		assert_true(k >= 3);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_nodes),
		cmocka_unit_test(test_moves_and_inferred),
		cmocka_unit_test(test_migrations),
		cmocka_unit_test(test_first_touch),
		cmocka_unit_test(test_huge_page),
		cmocka_unit_test(test_predict_four),
		cmocka_unit_test(test_four_nodes),
		cmocka_unit_test(test_served),
		cmocka_unit_test(test_place),
		cmocka_unit_test(test_predict_parse),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_event_table),
	};
	ssize_t n;

	if (argc == 2 && !strcmp(argv[1], "--helper"))
		return helper_main();
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	assert_true(n > 0);
	self_exe[n] = '\0';
	unsetenv("LIBPFM_FORCE_PMU");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
