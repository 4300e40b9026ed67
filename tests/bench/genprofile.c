// SPDX-License-Identifier: GPL-2.0-only
/*
 * genprofile: write a synthetic `cdt comm` profile, for benchmarks of
 * cdt report (text and TUI) on large profiles.  It goes through the same
 * profile_add() and profile_write() as a real run.
 *
 *   genprofile -o FILE [-n RECORDS] [-t THREADS] [-l LINES] [-s SEED]
 *
 * RECORDS communication records (default 1000000) between THREADS
 * threads (default 64) of one process on 16 CPUs in 2 NUMA nodes, over
 * LINES distinct cache lines (default 20000) and 64 code addresses.  A
 * record pairs a thread with its ring neighbour 60% of the time, else
 * with a random thread; 70% are true sharing, 10% found by a trap.  No
 * symbols: objects are [anon], code is a bare address.  Exit 0, or 1
 * with a message.
 */
#include "gen_common.h"
#include "lib/tools/comm/comm.h"
#include "lib/tools/tool.h"

#define GEN_PID 4000
#define GEN_BASE 0x7f0000000000ull
#define GEN_TEXT 0x400000ull

/* g->n records over g->x cache lines. */
static int gen_records(struct profile *p, const struct gen_args *g)
{
	uint64_t x = g->seed | 1;
	int err = 0;

	for (uint64_t n = 0; n < g->n && !err; n++) {
		uint64_t r = gen_rand(&x);
		uint32_t a = (uint32_t)(r % g->threads), b;
		uint64_t line = GEN_BASE + (gen_rand(&x) % g->x) * 64;
		unsigned off = (unsigned)(r >> 20) % 8 * 8, poff = (unsigned)(r >> 24) % 8 * 8;
		int ts = (r >> 32) % 10 < 7;
		struct rec_comm c;

		b = (r >> 40) % 10 < 6 ? (a + 1) % g->threads
				       : (uint32_t)((r >> 44) % g->threads);
		if (b == a)
			b = (a + 1) % g->threads;
		if (ts)
			poff = off;
		else if (poff == off)
			poff = (off + 8) % 64;
		memset(&c, 0, sizeof(c));
		c.h = (struct rec_hdr){ sizeof(c), REC_COMM, 0 };
		c.pid = GEN_PID;
		c.tid = GEN_PID + a;
		c.pub_tid = GEN_PID + b;
		c.flags = (ts ? COMM_F_TRUE : 0) | ((r >> 48) % 10 == 0 ? COMM_F_TRAP : 0);
		c.cpu = a % GEN_CPUS;
		c.pub_cpu = b % GEN_CPUS;
		c.time = 1000 + n * 10;
		c.pub_time = c.time - 5;
		c.addr = line + off;
		c.pub_addr = line + poff;
		c.ip = GEN_TEXT + (r >> 52) % 64 * 16;
		c.pub_ip = GEN_TEXT + (r >> 56) % 64 * 16;
		c.size = c.pub_size = 8;
		c.kind = (r >> 60) & 1 ? MEM_STORE : MEM_LOAD;
		c.pub_kind = MEM_STORE;
		err = profile_add(p, &c.h);
	}
	return err;
}

int main(int argc, char **argv)
{
	static const char *const comm_meta[][2] = { { "wp", "4" }, { "bb_size", "127" } };
	struct gen_args g = { NULL, 1000000, 20000, 42, 64 };
	struct profile p;
	int err;

	if (gen_parse(argc, argv, 'l', &g) || g.threads < 2 || g.threads > 4096 || !g.x) {
		fprintf(stderr, "usage: genprofile -o FILE [-n RECORDS] [-t THREADS 2..4096] "
				"[-l LINES] [-s SEED]\n");
		return 1;
	}
	profile_init(&p);
	p.ops = tools_prof("comm"); /* its records are checked as a run's are */
	err = gen_meta(&p, "comm", "genprofile (synthetic)", comm_meta,
		       sizeof(comm_meta) / sizeof(comm_meta[0]));
	if (!err)
		err = gen_topology(&p, GEN_PID, g.threads);
	if (!err)
		err = gen_records(&p, &g);
	return gen_write(&p, err, "genprofile", g.out);
}
