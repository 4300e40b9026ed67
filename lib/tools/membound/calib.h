/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `cdt membound --calibrate`: what this machine's memory hierarchy can do,
 * measured by cdt itself with Molka et al.'s micro-benchmarks (ICPE'17):
 * sequential read and write bandwidth with the widest vector loads and
 * stores, on one core and on all cores of a socket; pointer-chasing
 * latency, alone and with arithmetic between the loads (§3.2); what the
 * agent's timed probe (mb_probe) reads for a line of each level; on a PMU
 * host, each indicator event's maximal rate under its stressing kernel.
 *
 * The effective level sizes come from the measured latency curve, with
 * the topology as the prior (calib_levels_detect).  Results are kept in
 * $XDG_CACHE_HOME/cdt/membound-<key>.txt, the key naming the CPU and the
 * topology (calib_key).
 */
#ifndef CDT_TOOLS_MEMBOUND_CALIB_H
#define CDT_TOOLS_MEMBOUND_CALIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "lib/tools/membound/membound.h"

#define CALIB_VERSION 1
#define CALIB_MAX_AGE (30 * 24 * 3600) /* older files are stale */
#define CALIB_MAX_POINTS 64
#define CALIB_MAX_EVENTS 16
#define CALIB_CACHE_LEVELS 3 /* MB_L1..MB_L3 */

/* Where a level's size came from. */
enum calib_origin {
	CALIB_ORIGIN_NONE = 0, /* not measured (no such level, or no 2nd node) */
	CALIB_ORIGIN_TOPO,     /* the topology's size, confirmed by the curve */
	CALIB_ORIGIN_MEASURED, /* the curve's knee: the topology disagrees or is silent */
	CALIB_ORIGIN_SWEEP,    /* DRAM: the sweep's largest buffer */
};

struct calib_level {
	uint64_t size;      /* the level's effective capacity (DRAM: 0), bytes */
	uint64_t work;      /* the buffer measured, per thread: size / 2; DRAM the sweep's largest */
	uint64_t topo_size; /* what the topology says, 0 if nothing */
	int origin;         /* enum calib_origin */
	/* Bytes/s, 0 = not measured; 1: one core, N: nthreads cores of one socket. */
	double rd_bw1, wr_bw1, rd_bwN, wr_bwN;
	double lat_ns; /* dependent loads, one random line after another */
	/* mb_probe() - mb_probe_floor() on a random line resident here, TSC ticks. */
	uint64_t probe_p10, probe_p50, probe_p90;
	double probe_ns_p50;
	/* ns per load with CALIB_OPS multiplications between loads (§3.2):
	 * independent of the load, or a chain through the loaded pointer. */
	double ops_ns_indep, ops_ns_chain;
};

/* One size of the sweep: one core, local memory. */
struct calib_point {
	uint64_t size;
	double rd_bw, wr_bw; /* bytes/s */
	double lat_ns;
};

/* An indicator event's maximal rate under its stressing kernel. */
struct calib_event {
	char name[128]; /* libpfm4 name */
	int level;      /* enum mb_level */
	int write;
	double rate;    /* events/s, one core */
};

/* What to count, from the per-PMU table (events.c). */
struct calib_evspec {
	const char *name;
	int level, write;
};

struct calib {
	int version;
	char key[17];   /* calib_key(): 16 hex digits */
	char cpu[96];   /* model name */
	int64_t time;   /* unix seconds of the run */
	double tsc_hz;
	unsigned nthreads; /* cores of the all-cores figures */
	int quick;
	char isa[12];   /* the kernels' width: avx512, avx2, sse2 */
	double ops_ns_alone; /* the CALIB_OPS-multiplication chain without loads */
	char note[320]; /* disagreements with the topology, caps; "" if none */
	struct calib_level lvl[MB_NLEVELS];
	size_t npoints;
	struct calib_point pt[CALIB_MAX_POINTS];
	size_t nevents;
	struct calib_event ev[CALIB_MAX_EVENTS];
	char events_why[200]; /* why no event rates, or "" */
};

/* Multiplications between loads in the arithmetic variants (the paper's 24). */
#define CALIB_OPS 24

/* This machine's key: 16 hex digits.  0 or -errno. */
int calib_key(char *buf, size_t len);
/* The description hashed into the key, for messages and tests. */
int calib_key_text(char *buf, size_t len);
/* The cache file of this machine: $XDG_CACHE_HOME/cdt/membound-KEY.txt. */
int calib_path(char *buf, size_t len);

/* 0; -ENOENT missing or unreadable; -ESTALE older than 30 days, or
 * another version or key.  c is filled in all but -ENOENT. */
int calib_load(struct calib *c);
/* The same from a named file, against `key` (NULL: any) at time `now`;
 * -EINVAL for a malformed file, why says what is wrong. */
int calib_load_file(const char *path, const char *key, int64_t now, struct calib *c,
		    char *why, size_t whylen);
int calib_save(const struct calib *c);
int calib_save_file(const char *path, const struct calib *c);
/* Text form (the file's body) into f; parse it back from a string. */
int calib_write(FILE *f, const struct calib *c);
int calib_parse(const char *text, struct calib *c, char *why, size_t whylen);

/* Run the benchmarks, progress on stderr.  threads 0: all cores of the
 * first socket.  0 or -errno (a message has been printed). */
int calib_run(struct calib *c, int quick, unsigned threads);
/* Load, or run a quick calibration and save it, saying so on msg. */
int calib_ensure(struct calib *c, FILE *msg);

/*
 * The effective cache capacities from a latency curve (sizes ascending):
 * topo[k] the topology's size of L1..L3 (0: unknown); out[k] the size
 * used, origin[k] enum calib_origin.  Appends disagreements to note.
 * Rule: see calib.c.
 */
void calib_levels_detect(const uint64_t *size, const double *lat, size_t n,
			 const uint64_t topo[CALIB_CACHE_LEVELS],
			 uint64_t out[CALIB_CACHE_LEVELS], int origin[CALIB_CACHE_LEVELS],
			 char *note, size_t notelen);

/*
 * Count each event with perf_event_open while its level's kernel runs on
 * one core (read or write by spec), storing events/s in c->ev.  No PMU:
 * c->events_why says so, and 0.
 */
int calib_events_measure(struct calib *c, const struct calib_evspec *spec, size_t n);
/* The events to measure for libpfm4 PMU `pmu` (the per-PMU table). */
size_t calib_event_specs(const char *pmu, struct calib_evspec *out, size_t max);
/* A transfer role's maximal rate, events/s: its terms' rates summed,
 * each under its level's kernel; 0 if not measured. */
struct mb_event_row;
double calib_peak(const struct calib *c, const struct mb_event_row *row, int role);

const char *calib_level_name(int level);
const char *calib_origin_name(int origin);

/* `cdt membound --calibrate`: cdt's exit status. */
int calib_main(int argc, char **argv);

#endif
