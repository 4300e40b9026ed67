// SPDX-License-Identifier: GPL-2.0-only
/*
 * genrecord: write a synthetic `cdt record` profile, for benchmarks of
 * cdt report on large profiles (genprofile.c does `cdt comm` ones).  It
 * goes through the same profile_add() and profile_write() as a real run.
 *
 *   genrecord -o FILE [-n SAMPLES] [-t THREADS] [-f FUNCTIONS] [-s SEED]
 *
 * SAMPLES memory samples (default 1000000) from THREADS threads (default
 * 64) of one process on 16 CPUs, at FUNCTIONS code addresses (default
 * 256), each with a symbol (function, file:line), and over 64 static
 * variables with a symbol each, plus heap addresses without one.  60% are
 * loads, 30% stores, 10% read-modify-writes.  Exit 0, or 1 with a message.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"

#define GEN_PID 5000
#define GEN_CPUS 16
#define GEN_TEXT 0x401000ull
#define GEN_DATA 0x604000ull
#define GEN_VARS 64
#define GEN_VAR_SIZE 256
#define GEN_HEAP 0x7f1000000000ull

struct gen {
	const char *out;
	uint64_t samples, seed;
	uint32_t threads, funcs;
};

static uint64_t gen_rand(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

static int gen_meta(struct profile *p)
{
	static const char *const kv[][2] = {
		{ "tool", "record" }, { "command", "genrecord (synthetic)" }, { "host", "synthetic" },
		{ "source", "soft" }, { "source_why", "synthetic profile" }, { "period", "250000" },
		{ "period_unit", "ns" },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !err; i++)
		err = profile_set_meta(p, kv[i][0], kv[i][1]);
	return err;
}

static int gen_threads(struct profile *p, const struct gen *g)
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

/* A REC_SYM as the front end writes it after symbolizing. */
static int gen_sym(struct profile *p, int kind, uint64_t addr, uint64_t start, uint64_t size,
		   const char *name, const char *file, uint32_t line)
{
	size_t ln = strlen(name) + 1, lf = file ? strlen(file) + 1 : 1, lm = sizeof("/synthetic");
	uint32_t size_rec = REC_SIZE(sizeof(struct rec_sym) + ln + lf + lm);
	struct rec_sym *r = calloc(1, size_rec);
	int err;

	if (!r)
		return -ENOMEM;
	r->h = (struct rec_hdr){ size_rec, REC_SYM, 0 };
	r->pid = GEN_PID;
	r->kind = (uint16_t)kind;
	r->name_len = (uint16_t)ln;
	r->addr = addr;
	r->sym_start = start;
	r->sym_size = size;
	r->line = line;
	r->file_len = (uint32_t)lf;
	r->module_len = (uint32_t)lm;
	memcpy(r->str, name, ln);
	if (file)
		memcpy(r->str + ln, file, lf);
	memcpy(r->str + ln + lf, "/synthetic", lm);
	err = profile_add(p, &r->h);
	free(r);
	return err;
}

static int gen_syms(struct profile *p, const struct gen *g)
{
	char name[32];
	int err = 0;

	for (uint32_t f = 0; f < g->funcs && !err; f++) {
		snprintf(name, sizeof(name), "kernel_%u", f / 4);
		err = gen_sym(p, SYM_CODE, GEN_TEXT + f * 16, GEN_TEXT + f / 4 * 64, 64, name,
			      "/src/synthetic.c", 100 + f);
	}
	for (uint32_t v = 0; v < GEN_VARS && !err; v++) {
		snprintf(name, sizeof(name), "var_%u", v);
		for (uint64_t o = 0; o < GEN_VAR_SIZE && !err; o += 8)
			err = gen_sym(p, SYM_DATA, GEN_DATA + v * GEN_VAR_SIZE + o,
				      GEN_DATA + v * GEN_VAR_SIZE, GEN_VAR_SIZE, name, NULL, 0);
	}
	return err;
}

static int gen_samples(struct profile *p, const struct gen *g)
{
	uint64_t x = g->seed | 1;
	int err = 0;

	for (uint64_t n = 0; n < g->samples && !err; n++) {
		uint64_t r = gen_rand(&x), k = r % 10;
		uint32_t t = (uint32_t)((r >> 8) % g->threads);
		struct rec_sample s;

		memset(&s, 0, sizeof(s));
		s.h = (struct rec_hdr){ sizeof(s), REC_SAMPLE, 0 };
		s.pid = GEN_PID;
		s.tid = GEN_PID + t;
		s.time = 1000 + n * 10;
		s.ip = GEN_TEXT + (r >> 20) % g->funcs * 16;
		/* Half to the static variables, half to the heap. */
		s.addr = (r >> 40) & 1 ? GEN_DATA + (r >> 41) % (GEN_VARS * GEN_VAR_SIZE / 8) * 8
				       : GEN_HEAP + (r >> 41) % (1u << 20) * 8;
		s.cpu = t % GEN_CPUS;
		s.size = 8;
		s.kind = k < 6 ? MEM_LOAD : k < 9 ? MEM_STORE : MEM_RMW;
		s.source = SRC_SOFT;
		s.flags = SAMPLE_F_ADDR;
		err = profile_add(p, &s.h);
	}
	return err;
}

static int gen_parse(int argc, char **argv, struct gen *g)
{
	int c;

	*g = (struct gen){ NULL, 1000000, 42, 64, 256 };
	while ((c = getopt(argc, argv, "o:n:t:f:s:")) != -1) {
		switch (c) {
		case 'o': g->out = optarg; break;
		case 'n': g->samples = strtoull(optarg, NULL, 10); break;
		case 't': g->threads = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'f': g->funcs = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 's': g->seed = strtoull(optarg, NULL, 10); break;
		default: return -EINVAL;
		}
	}
	if (!g->out || optind != argc || g->threads < 1 || g->threads > 4096 || !g->funcs ||
	    g->funcs > 65536)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	struct profile p;
	struct gen g;
	int err;

	if (gen_parse(argc, argv, &g)) {
		fprintf(stderr, "usage: genrecord -o FILE [-n SAMPLES] [-t THREADS 1..4096] "
				"[-f FUNCTIONS] [-s SEED]\n");
		return 1;
	}
	profile_init(&p);
	err = gen_meta(&p);
	if (!err)
		err = gen_threads(&p, &g);
	if (!err)
		err = gen_syms(&p, &g);
	if (!err)
		err = gen_samples(&p, &g);
	if (!err) {
		profile_number_tasks(&p);
		err = profile_write(&p, g.out);
	}
	profile_free(&p);
	if (err) {
		fprintf(stderr, "genrecord: %s: %s\n", g.out, strerror(-err));
		return 1;
	}
	return 0;
}
