/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a `cdt comm` profile says, aggregated: ComDetective's matrices at
 * thread, core and node level, and the cache lines, data objects and code
 * locations that communication goes through.  Built once from the
 * profile's REC_COMM records; views and renderers only read it.
 */
#ifndef CDT_TOOLS_COMM_MODEL_H
#define CDT_TOOLS_COMM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/profile.h"

/* All is the sum of the others: true and false sharing, and what the
 * allocator handed on from one block to another (COMM_F_RECYCLED). */
enum comm_kind { CM_ALL, CM_TS, CM_FS, CM_RC, CM_NKIND };
enum comm_level { CL_THREAD, CL_CORE, CL_NODE, CL_NLEVEL };

#define COMM_LINE_THREADS 8 /* threads kept per line: the first seen */
#define COMM_LINE_IPS 4     /* code addresses kept per line */
#define COMM_LINE_PROBES 8  /* events kept per line to look its object up */

struct comm_line_thread {
	uint32_t thread;  /* index */
	uint64_t bytes;   /* bit i: byte i of the line was accessed */
	uint64_t wbytes;  /* of those, stored to */
	uint64_t again;   /* bytes it touched in two events or more */
	double w;
	uint64_t n;       /* sharing events it took part in (bytes: of those) */
	uint64_t rc;      /* recycled events it took part in */
};

struct comm_line {
	uint32_t pid;     /* of the first event, for symbols */
	uint32_t image;   /* profile_image() of it: lines of one address in two images differ */
	uint64_t time;    /* of the first event */
	uint64_t line;    /* address */
	/* The first events' accesses and times, to find the object live at
	 * one of them (a temporary of every call is not always recorded). */
	uint64_t probe_addr[COMM_LINE_PROBES], probe_time[COMM_LINE_PROBES];
	unsigned nprobe;
	double w[CM_NKIND];
	uint64_t events;
	struct comm_line_thread thr[COMM_LINE_THREADS];
	unsigned nthr;
	uint32_t more_threads; /* distinct threads involved beyond thr[] */
	uint64_t ip[COMM_LINE_IPS];
	double ipw[COMM_LINE_IPS];
	unsigned nip;
	char *object;     /* data object the line belongs to; static variables:
			   * those whose bytes were touched, "a, b" */
	char *also;       /* static variables on the line none touched, "c, d" */
	uint64_t offset;  /* of the line's first accessed byte in the object */
	int obj;          /* index into objs (of the first variable touched) */
};

struct comm_object {
	char *name;
	double w[CM_NKIND];
	uint64_t lines;
};

struct comm_code {
	char *loc;        /* function (file:line) */
	char *inl;        /* the calls inlined there, if its line is the program's
			   * and not a library header's: names_inline() */
	double w[CM_NKIND];
	uint64_t events;
};

struct comm_model {
	int soft;            /* counts are weighted detections, not transfers */
	double period;       /* scale of a detection on a sample */
	double trap_scale;   /* of a trap: period * L / (D * M) */
	unsigned wp;         /* D */
	const char *unit;    /* what a count is */
	size_t n[CL_NLEVEL];
	int *ids[CL_NLEVEL]; /* label of each index: thread index, core id, node id */
	double *m[CL_NLEVEL][CM_NKIND]; /* n*n, symmetric, row-major */
	double total[CM_NKIND];
	uint64_t events, by_trap, by_sample, exact_traps;
	uint64_t by_writer; /* traps of by_trap in the writer (COMM_F_WRITER) */
	struct comm_line *lines; /* by w[CM_ALL], largest first */
	size_t nlines;
	struct comm_object *objs; /* likewise */
	size_t nobjs;
	struct comm_code *codes;  /* likewise */
	size_t ncodes;
};

int comm_build(const struct profile *p, struct comm_model *m);
void comm_free(struct comm_model *m);
/* The model of p, built on first use and kept with the profile. */
const struct comm_model *comm_of(const struct profile *p);
/* A comm profile's records for lib/core/profile.h: their types, the fold
 * that sums each as it is read instead of keeping it (comm_of then
 * finishes the sums), the addresses to symbolize, the pids to merge. */
extern const struct prof_ops comm_prof;

static inline double comm_cell(const struct comm_model *m, int level, int kind,
			       size_t i, size_t j)
{
	return m->m[level][kind][i * m->n[level] + j];
}

/* A line's threads with the bytes each touched, "1:0-7w 2:8-15w" (w: it
 * stored), and its code locations, "f (a.c:3); g (b.c:9)". */
void comm_line_threads(const struct profile *p, const struct comm_line *l, char *buf,
		       size_t len);
void comm_line_code(const struct profile *p, const struct comm_line *l, char *buf, size_t len);

/*
 * What a line's threads did to it over the whole run, the ground of a
 * finding's verdict (the per-access TS/FS counts stay the paper's): the
 * same data when the bytes two threads each touched again and again
 * overlap and one of them stored there (a byte seen once, as when one
 * thread initializes the whole line, is not the threads' pattern); else
 * false sharing if two threads or more touched it and one stored.  *least: the fewest events of one of its threads, the evidence
 * that their bytes are apart.  The counts bound it: a line whose
 * communication is mostly recycled memory is CV_RECYCLED, and one whose
 * sharing events are not mostly false sharing is never CV_FALSE: the
 * same data if any overlapped (none apart: never false sharing).
 */
enum comm_verdict { CV_NONE, CV_SAME_DATA, CV_FALSE, CV_RECYCLED };
enum comm_verdict comm_line_verdict(const struct comm_line *l, uint64_t *least);
/* How sure a CV_FALSE verdict is: the bytes' evidence (least), capped by
 * the counts (the FS share of the line's sharing). */
enum comm_confidence { CC_LOW, CC_MEDIUM, CC_HIGH };
enum comm_confidence comm_line_confidence(const struct comm_line *l, uint64_t least);
const char *comm_confidence_name(enum comm_confidence c);
/* Fewer events than this on a line draw no finding: see cdt-comm(1). */
#define COMM_FINDING_MIN_EVENTS 10
/* Accesses by each thread from which bytes apart are called high confidence. */
#define COMM_APART_SURE 8

/* After the run, with every allocation known: mark the records whose
 * two accesses the allocator separated (COMM_F_RECYCLED), clear the bit
 * on the others.  0 or -ENOMEM. */
int comm_mark_recycled(struct profile *p);

const char *comm_kind_name(int kind);
const char *comm_level_name(int level);

#endif
