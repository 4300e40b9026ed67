/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Record layout shared by the agent (producer), the arena, the front end
 * and the cdt.data file.  Every record starts with rec_hdr; sizes are
 * multiples of 8 so records stay aligned in the arena ring and in the file.
 *
 * A later tool adds record types from REC_TOOL_BASE up; readers skip types
 * they do not know, so the format never forks per tool.
 */
#ifndef CDT_RECORD_H
#define CDT_RECORD_H

#include <stdint.h>

#define REC_ALIGN 8u
#define REC_SIZE(n) (((uint32_t)(n) + REC_ALIGN - 1) & ~(REC_ALIGN - 1))

struct rec_hdr {
	uint32_t size;  /* whole record, header included, multiple of 8 */
	uint16_t type;  /* enum rec_type */
	uint16_t flags; /* arena: REC_F_COMMITTED; file: 0 */
};

#define REC_F_COMMITTED 0x8000u

enum rec_type {
	REC_PAD = 0,         /* filler at the ring's end; no payload */
	REC_PROC = 1,        /* a process image started (program start, fork, exec) */
	REC_PROC_END = 2,    /* a process image ended normally (atexit or exec) */
	REC_THREAD = 3,      /* a thread started being profiled */
	REC_THREAD_END = 4,  /* a thread ended; carries its agent statistics */
	REC_MMAP = 5,        /* an executable mapping (module) */
	REC_SAMPLE = 6,      /* one memory-access sample, from either source */
	REC_TRAP = 7,        /* one watchpoint or breakpoint trap */
	REC_ERROR = 8,       /* the agent could not do something; text for the user */
	REC_ALLOC = 9,       /* a data object appeared: heap block, mapping, thread stack */
	REC_FREE = 10,       /* a heap block was freed or a range unmapped */
	REC_THREAD_STATS = 11, /* a live thread's statistics so far (rec_thread_end layout) */
	/* file-only records, written by the front end */
	REC_META = 32,       /* key=value text */
	REC_CPU = 33,        /* topology: one logical CPU */
	REC_SYM = 34,        /* a symbolized code or data address */
	REC_TASK = 35,       /* a thread as the front end numbered it */
	REC_RUNSTATS = 36,   /* totals of the run: drops, exit status, timings */
	REC_END = 37,        /* last record of a file: counts for validation */
	REC_TOOL_BASE = 256, /* tool-specific record types start here */
};

/* Tool record types: a block per tool from REC_TOOL_BASE up. */
enum rec_tool_type {
	REC_COMM = REC_TOOL_BASE, /* comm: one detected communication */
};

/* enum rec_sample.kind */
enum mem_kind {
	MEM_LOAD = 1,
	MEM_STORE = 2,
	MEM_RMW = 3, /* read-modify-write, atomics included */
};

/* enum rec_sample.source */
enum sample_source {
	SRC_NONE = 0,
	SRC_SOFT = 1, /* task-clock + instruction decode */
	SRC_PMU = 2,  /* precise PMU memory sampling */
};

/* rec_sample.flags */
#define SAMPLE_F_ADDR   0x01 /* addr/size are valid */
#define SAMPLE_F_STEP   0x02 /* soft: found by single-stepping past the timer IP */
#define SAMPLE_F_STACK  0x04 /* implicit stack operand (push, pop, call, ret) */
#define SAMPLE_F_NOMEM  0x08 /* soft: no memory instruction within the step budget */

struct rec_sample {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time; /* CLOCK_MONOTONIC, ns */
	uint64_t ip;   /* the memory instruction (exact for soft; precise ip for pmu) */
	uint64_t addr; /* data address */
	uint32_t cpu;
	uint8_t size;   /* bytes accessed by the operand */
	uint8_t kind;   /* enum mem_kind */
	uint8_t source; /* enum sample_source */
	uint8_t flags;  /* SAMPLE_F_* */
	uint64_t weight; /* pmu: load latency if the event gives one; soft: 0 */
};

/* rec_trap.flags */
#define TRAP_F_INSN 0x01   /* insn_ip/size/kind decoded */
#define TRAP_F_EXEC 0x02   /* execute breakpoint */
#define TRAP_F_ADDR 0x04   /* access range [acc_addr, +size) recovered exactly */

struct rec_trap {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t wp_addr;  /* the watched address (si_addr) */
	uint64_t ip;       /* IP after the trap (data breakpoints trap after access) */
	uint64_t insn_ip;  /* the trapping instruction, if decoded */
	uint64_t acc_addr; /* the access range, if recovered */
	uint32_t cpu;
	uint8_t slot;  /* debug register slot 0..3 */
	uint8_t size;
	uint8_t kind;  /* enum mem_kind */
	uint8_t flags; /* TRAP_F_* */
	uint64_t cookie; /* whatever the arming tool stored with the watchpoint */
};

#define PROC_F_FORK 0x1
#define PROC_F_EXEC 0x2

/* rec_comm.flags */
#define COMM_F_TRUE  0x1 /* the byte ranges overlap: true sharing (else false) */
#define COMM_F_TRAP  0x2 /* found by a watchpoint trap (else on a sample) */
#define COMM_F_EXACT 0x4 /* trap: the trapping access was decoded; else the
			  * watched 8 bytes stand for it */

/* cdt comm: thread tid (the observer) accessed the line of what pub_tid
 * (the publisher) had stored. */
struct rec_comm {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint32_t pub_tid, flags;   /* COMM_F_* */
	uint32_t cpu, pub_cpu;
	uint64_t time, pub_time;
	uint64_t addr, pub_addr;   /* observer's and publisher's first bytes */
	uint64_t ip, pub_ip;
	uint8_t size, pub_size;    /* bytes accessed */
	uint8_t kind, pub_kind;    /* enum mem_kind */
	uint32_t scale;            /* trap: arming interval in samples it stands for */
};

struct rec_proc {
	struct rec_hdr h;
	uint32_t pid, ppid;
	uint64_t time;
	uint32_t flags; /* PROC_F_* */
	uint32_t pad;
	char exe[]; /* NUL-terminated executable path, padded */
};

struct rec_proc_end {
	struct rec_hdr h;
	uint32_t pid, pad;
	uint64_t time;
};

struct rec_thread {
	struct rec_hdr h;
	uint32_t pid, tid;
	/* When it was created: its creator called pthread_create then.  A
	 * process's first thread: when the agent started in it. */
	uint64_t time;
	uint32_t cpu;
	uint32_t flags; /* THREAD_F_* */
	char name[16];  /* comm at start */
};

#define THREAD_F_MAIN 0x1    /* the process's first thread */
#define THREAD_F_NOEVENT 0x2 /* its sampling event could not be opened */

/* What the agent measured about itself in one thread. */
struct agent_stats {
	uint64_t samples;       /* sampling signals taken */
	uint64_t mem_samples;   /* of which produced a memory sample */
	uint64_t nomem;         /* soft: no memory instruction within the step budget */
	uint64_t decode_fail;   /* instruction could not be decoded */
	uint64_t steps;         /* soft: single steps taken */
	uint64_t traps;         /* watchpoint traps */
	uint64_t handler_ns;    /* time spent in sample handlers (steps included) */
	uint64_t trap_ns;       /* time spent in trap handlers */
	uint64_t dropped;       /* records this thread could not append */
	uint64_t chained;       /* SIGTRAPs passed on to the program's handler */
};

/*
 * REC_THREAD_END, and REC_THREAD_STATS: the same snapshot sent now and then
 * by a thread that goes on, so a killed process still leaves its stats.
 */
struct rec_thread_end {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	struct agent_stats st;
	char name[16]; /* comm at end (threads often name themselves late) */
};

struct rec_mmap {
	struct rec_hdr h;
	uint32_t pid;
	uint32_t build_id_len;
	uint64_t time;
	uint64_t start, end, pgoff;
	uint8_t build_id[20];
	uint32_t pad;
	char path[]; /* NUL-terminated, padded */
};

struct rec_error {
	struct rec_hdr h;
	uint32_t pid, tid;
	int32_t err; /* errno */
	uint32_t pad;
	char msg[]; /* NUL-terminated, padded */
};

/* enum rec_alloc.kind */
enum alloc_kind {
	ALLOC_MALLOC = 1,
	ALLOC_CALLOC = 2,
	ALLOC_REALLOC = 3,  /* realloc, reallocarray */
	ALLOC_MEMALIGN = 4, /* posix_memalign, aligned_alloc, memalign, valloc, pvalloc */
	ALLOC_MMAP = 5,     /* an anonymous mmap (or an mremap) the program made */
	ALLOC_STACK = 6,    /* a thread's stack, recorded when the thread starts */
};
#define ALLOC_KIND_MAX ALLOC_STACK
#define ALLOC_MAX_DEPTH 8 /* frames of an allocation call path */

/* rec_alloc.flags */
#define ALLOC_F_DEFERRED 0x1 /* published late by the agent (short-lived blocks are
			      * filtered): time is from the coarse clock, up to one
			      * tick early */

/*
 * A data object appeared at [addr, addr + size) in pid at time.  frames[]
 * is the call path that allocated it: return addresses, innermost first
 * (frames[0] is in the function that called malloc).  The agent numbers
 * call paths per process to keep records small: a record with site != 0
 * and depth > 0 also defines site, and later records of that process may
 * give the site alone (depth 0).  Site 0 and depth 0: no call path
 * (stacks).  The front end writes files with the frames in every record.
 */
struct rec_alloc {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr, size;
	uint32_t site;
	uint8_t kind;   /* enum alloc_kind */
	uint8_t depth;  /* frames that follow, <= ALLOC_MAX_DEPTH */
	uint16_t flags; /* ALLOC_F_* */
	uint64_t frames[];
};

/* free(): len 0, the block that starts at addr.  munmap (and mremap's old
 * range): the len bytes from addr, whatever objects they cut. */
struct rec_free {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr, len;
};

/* ---- file-only records (front end) ---- */

struct rec_meta {
	struct rec_hdr h;
	char kv[]; /* "key\0value\0", padded */
};

struct rec_cpu {
	struct rec_hdr h;
	int32_t cpu, core, socket, node;
};

enum sym_kind {
	SYM_CODE = 1, /* function + source line */
	SYM_DATA = 2, /* static data object */
};

struct rec_sym {
	struct rec_hdr h;
	uint32_t pid;
	uint16_t kind;   /* enum sym_kind */
	uint16_t name_len; /* includes NUL */
	uint64_t addr;   /* the runtime address that was resolved */
	uint64_t sym_start; /* runtime start of the function/object */
	uint64_t sym_size;
	uint32_t line;
	uint32_t file_len; /* includes NUL; 0 if none */
	uint32_t module_len; /* includes NUL */
	uint32_t pad;
	char str[]; /* name\0 file\0 module\0, padded */
};

struct rec_task {
	struct rec_hdr h;
	uint32_t index; /* 0.. in creation order; 0 is the main thread */
	uint32_t pid, tid, ppid;
	uint64_t start, end; /* ns; start: rec_thread.time; end 0 if never seen ending */
	uint32_t flags;      /* THREAD_F_* */
	uint32_t pad;
	struct agent_stats st;
	char name[16];
};

struct rec_runstats {
	struct rec_hdr h;
	uint64_t start_ns, end_ns;   /* CLOCK_REALTIME of the run */
	uint64_t records;            /* records drained from the arena */
	uint64_t dropped_records;    /* the arena was full */
	uint64_t dropped_bytes;
	int32_t exit_status;         /* as cdt exits: code, 128+N, 125..127 */
	int32_t term_signal;         /* signal that killed the target, or 0 */
	uint32_t procs, threads;
	uint32_t incomplete;         /* 1 if the run ended abnormally */
	uint32_t pad;
};

struct rec_end {
	struct rec_hdr h;
	uint64_t records; /* records in the file before this one */
	uint64_t bytes;   /* uncompressed bytes before this one */
};

#endif
