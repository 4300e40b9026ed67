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
#include "gen_common.h"

#define GEN_PID 5000
#define GEN_TEXT 0x401000ull
#define GEN_DATA 0x604000ull
#define GEN_VARS 64
#define GEN_VAR_SIZE 256
#define GEN_HEAP 0x7f1000000000ull

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

static int gen_syms(struct profile *p, uint32_t funcs)
{
	char name[32];
	int err = 0;

	for (uint32_t f = 0; f < funcs && !err; f++) {
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

/* g->n samples at funcs code addresses. */
static int gen_samples(struct profile *p, const struct gen_args *g, uint32_t funcs)
{
	uint64_t x = g->seed | 1;
	int err = 0;

	for (uint64_t n = 0; n < g->n && !err; n++) {
		uint64_t r = gen_rand(&x), k = r % 10;
		uint32_t t = (uint32_t)((r >> 8) % g->threads);
		struct rec_sample s;

		memset(&s, 0, sizeof(s));
		s.h = (struct rec_hdr){ sizeof(s), REC_SAMPLE, 0 };
		s.pid = GEN_PID;
		s.tid = GEN_PID + t;
		s.time = 1000 + n * 10;
		s.ip = GEN_TEXT + (r >> 20) % funcs * 16;
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

int main(int argc, char **argv)
{
	struct gen_args g = { NULL, 1000000, 256, 42, 64 };
	struct profile p;
	uint32_t funcs;
	int err;

	err = gen_parse(argc, argv, 'f', &g);
	funcs = (uint32_t)g.x;
	if (err || g.threads < 1 || g.threads > 4096 || !funcs || funcs > 65536) {
		fprintf(stderr, "usage: genrecord -o FILE [-n SAMPLES] [-t THREADS 1..4096] "
				"[-f FUNCTIONS] [-s SEED]\n");
		return 1;
	}
	profile_init(&p);
	err = gen_meta(&p, "record", "genrecord (synthetic)", NULL, 0);
	if (!err)
		err = gen_topology(&p, GEN_PID, g.threads);
	if (!err)
		err = gen_syms(&p, funcs);
	if (!err)
		err = gen_samples(&p, &g, funcs);
	return gen_write(&p, err, "genrecord", g.out);
}
