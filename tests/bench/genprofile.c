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
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"

#define GEN_PID 4000
#define GEN_CPUS 16
#define GEN_BASE 0x7f0000000000ull
#define GEN_TEXT 0x400000ull

struct gen {
	const char *out;
	uint64_t records, lines, seed;
	uint32_t threads;
};

static uint64_t gen_rand(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

static int gen_usage(void)
{
	fprintf(stderr, "usage: genprofile -o FILE [-n RECORDS] [-t THREADS 2..4096] "
			"[-l LINES] [-s SEED]\n");
	return 1;
}

static int gen_meta(struct profile *p)
{
	static const char *const kv[][2] = {
		{ "tool", "comm" }, { "command", "genprofile (synthetic)" }, { "host", "synthetic" },
		{ "source", "soft" }, { "source_why", "synthetic profile" }, { "period", "250000" },
		{ "period_unit", "ns" }, { "wp", "4" }, { "bb_size", "127" },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !err; i++)
		err = profile_set_meta(p, kv[i][0], kv[i][1]);
	return err;
}

static int gen_topology(struct profile *p, const struct gen *g)
{
	union {
		struct rec_proc r;
		char buf[sizeof(struct rec_proc) + 16];
	} proc;
	int err = 0;

	for (int c = 0; c < GEN_CPUS && !err; c++) {
		struct rec_cpu r = { { sizeof(r), REC_CPU, 0 }, c, c / 2, 0, c / (GEN_CPUS / 2) };

		err = profile_add(p, &r.h);
	}
	memset(&proc, 0, sizeof(proc));
	proc.r.h = (struct rec_hdr){ sizeof(proc), REC_PROC, 0 };
	proc.r.pid = GEN_PID;
	proc.r.time = 1;
	strcpy(proc.r.exe, "/synthetic");
	if (!err)
		err = profile_add(p, &proc.r.h);
	for (uint32_t i = 0; i < g->threads && !err; i++) {
		struct rec_thread r = { { sizeof(r), REC_THREAD, 0 }, GEN_PID, GEN_PID + i,
					10 + i, i % GEN_CPUS, i ? 0 : THREAD_F_MAIN, "" };

		snprintf(r.name, sizeof(r.name), "gen-%u", i);
		err = profile_add(p, &r.h);
	}
	return err;
}

static int gen_records(struct profile *p, const struct gen *g)
{
	uint64_t x = g->seed | 1;
	int err = 0;

	for (uint64_t n = 0; n < g->records && !err; n++) {
		uint64_t r = gen_rand(&x);
		uint32_t a = (uint32_t)(r % g->threads), b;
		uint64_t line = GEN_BASE + (gen_rand(&x) % g->lines) * 64;
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

static int gen_parse(int argc, char **argv, struct gen *g)
{
	int c;

	*g = (struct gen){ NULL, 1000000, 20000, 42, 64 };
	while ((c = getopt(argc, argv, "o:n:t:l:s:")) != -1) {
		switch (c) {
		case 'o': g->out = optarg; break;
		case 'n': g->records = strtoull(optarg, NULL, 10); break;
		case 't': g->threads = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'l': g->lines = strtoull(optarg, NULL, 10); break;
		case 's': g->seed = strtoull(optarg, NULL, 10); break;
		default: return -EINVAL;
		}
	}
	if (!g->out || optind != argc || g->threads < 2 || g->threads > 4096 || !g->lines)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	struct profile p;
	struct gen g;
	int err;

	if (gen_parse(argc, argv, &g))
		return gen_usage();
	profile_init(&p);
	err = gen_meta(&p);
	if (!err)
		err = gen_topology(&p, &g);
	if (!err)
		err = gen_records(&p, &g);
	if (!err) {
		profile_number_tasks(&p);
		err = profile_write(&p, g.out);
	}
	profile_free(&p);
	if (err) {
		fprintf(stderr, "genprofile: %s: %s\n", g.out, strerror(-err));
		return 1;
	}
	return 0;
}
