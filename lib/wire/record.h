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

#include <stddef.h>
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

/*
 * Tool record types: each tool owns a block of REC_TOOL_BLOCK types from
 * REC_TOOL_BASE up, declared in its own folder (lib/tools/NAME/) and fixed
 * forever, since files carry the numbers.
 */
#define REC_TOOL_BLOCK 64
#define REC_TOOL_TYPE(block, i) ((uint16_t)(REC_TOOL_BASE + (block) * REC_TOOL_BLOCK + (i)))

/*
 * What a reader knows of a record type.  Records grow only at their end:
 * `min` is the size the type was first written with, `size` its size now.
 * A reader takes a record longer than `size` (ignoring the tail) and one
 * shorter, down to `min`, with the missing fields zero.  A REC_T_VAR type
 * is a fixed part of `size` bytes followed by data (strings, frames), so
 * it cannot grow: changing it takes a new type.
 */
struct rec_desc {
	uint16_t type;
	uint16_t flags;  /* REC_T_* */
	uint32_t min, size;
	const char *name;
	/* Checks inside a record at least `size` bytes long (zero-filled when
	 * it came shorter): 0, or -EBADMSG with the reason in why. */
	int (*check)(const struct rec_hdr *r, char *why, size_t whylen);
};

#define REC_T_AGENT 0x1 /* the agent writes it: the shared arena may carry it */
#define REC_T_VAR   0x2 /* a fixed part, then data */

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
#define SAMPLE_F_NOMEM  0x08 /* soft: no memory instruction within the step budget
			      * (sent only to a tool with AGENT_TOOL_NOMEM; no ADDR) */
#define SAMPLE_F_AHEAD  0x10 /* soft: the access is past the interrupted instruction
			      * (walked or stepped to), not that instruction's own */
#define SAMPLE_F_BEHIND 0x20 /* soft: the access the thread stalled on, just before
			      * the interrupted IP (AGENT_TOOL_STALLS) */
#define SAMPLE_F_PAIR   0x40 /* soft: a follow-up, a short CPU time after the
			      * thread's sample before it (AGENT_TOOL_PAIRS) */

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
	/* Since 1.2: pmu: where the access was served from, as the kernel's
	 * union perf_mem_data_src (PERF_SAMPLE_DATA_SRC); 0 if not given. */
	uint64_t data_src;
};

/* rec_trap.flags */
#define TRAP_F_INSN 0x01   /* insn_ip/size/kind decoded */
#define TRAP_F_EXEC 0x02   /* execute breakpoint */
#define TRAP_F_ADDR 0x04   /* access range [acc_addr, +size) recovered exactly */
/* An execute breakpoint that cdt's own handler hit (it calls a little of
 * libc), raised there and delivered at the program's IP: no execution of
 * the program's.  Counted as stray; tools see it only to disarm. */
#define TRAP_F_LATE 0x08

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
/* From the agent, with PROC_F_EXEC, before an exec no agent can follow
 * (cdt's descriptors were closed): that image runs unprofiled and its end
 * is not seen; a file keeps it on the process's first record.  Readers
 * that predate it take a plain exec. */
#define PROC_F_UNSEEN 0x4

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
	/* Since 1.1 (0 in 1.0 files: it ended, nothing more is known). */
	uint32_t how;   /* PROC_END_* */
	int32_t status; /* the exit status the program gave */
};
#define PROC_END_EXIT 1   /* exit(), or return from main */
#define PROC_END__EXIT 2  /* _exit() or _Exit() */
/* Written by the front end, which saw what the agent could not: */
#define PROC_END_SIGNAL 3 /* killed by signal `status` */
#define PROC_END_ALIVE 4  /* still running when the run ended */
#define PROC_END_MAX 4

struct rec_thread {
	struct rec_hdr h;
	uint32_t pid, tid;
	/* When it was created: its creator called pthread_create then.  A
	 * process's first thread: when the agent started in it. */
	uint64_t time;
	uint32_t cpu;
	uint32_t flags; /* THREAD_F_* */
	char name[16];  /* the kernel's comm (thread name) at start */
};

#define THREAD_F_MAIN 0x1    /* the process's first thread */
#define THREAD_F_NOEVENT 0x2 /* its sampling event could not be opened */
/* Front end: its agent statistics were past what the run could have
 * done (the program overwrote them in the shared arena): left out. */
#define THREAD_F_FORGED 0x4

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
 * What 1.1 added to a thread's stats.  SIGTRAPs of cdt's that the agent
 * took without attributing them: traps cannot be withdrawn once the kernel
 * has raised them, and none may reach the program, whose default action
 * for SIGTRAP is to die.  And the CPU time of the handlers, read from the
 * thread's CPU clock on one sample (trap) in AGENT_COST_EVERY: the wall
 * time of a handler also counts the time its thread waits for a core, and
 * the CPU clock is a system call (0.5 us in a KVM guest), too dear for all.
 */
struct agent_ext {
	uint64_t stray; /* late: a step trap past cdt's stepping (a handler of the
			 * program returned to the flag cdt had set), or a
			 * watchpoint trap whose cause the hypervisor lost */
	uint64_t async; /* raised while SIGTRAP was blocked (a raw system call),
			 * so delivered away from the instruction that caused it */
	uint64_t sample_cpu_ns, sample_cpu_n; /* samples measured (steps included) */
	uint64_t trap_cpu_ns, trap_cpu_n;     /* watchpoint traps measured */
	uint64_t cpu_ns; /* the thread's CPU time when the snapshot was taken */
	/* Since 1.2: the sample clock (lib/agent/clock.c). */
	uint64_t posix_n;       /* samples the POSIX clock raised (the rest: perf) */
	uint64_t perf_switches; /* context switches while the perf clock was armed */
	uint64_t period;        /* the sampling period at the snapshot: soft ns, pmu events */
	uint64_t clock_changes; /* times the governor changed the clock or period */
	uint64_t in_syscall;    /* POSIX-clock samples that found the thread in a
				 * system call: not attributed, as the perf clock
				 * (user level only) takes none there */
	/* Since 1.3: samples that found the thread in cdt's own work (the
	 * agent's code, or the agent at work in normal context: module
	 * walks, the function table, thread start and end, exit, exec):
	 * not attributed, since they describe cdt and not the program. */
	uint64_t own;
};
#define AGENT_COST_EVERY 16

/*
 * REC_THREAD_END, and REC_THREAD_STATS: the same snapshot sent now and then
 * by a thread that goes on, so a killed process still leaves its stats.
 */
struct rec_thread_end {
	struct rec_hdr h;
	uint32_t pid, tid;
	uint64_t time;
	struct agent_stats st;
	char name[16]; /* thread name at end (threads often name themselves late) */
	/* Since 1.1 (absent from shorter records: zero). */
	struct agent_ext ext;
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
	/* A call path's frame: function + the line in it, past inlined calls
	 * (readers that know only 1 and 2 keep it unused). */
	SYM_SITE = 3,
	/* Code whose line and function are the program's where it was
	 * inlined from a library header: name holds the inlined calls,
	 * innermost first, "f (a.h:3) < g (b.c:9)" (readers that know only
	 * 1 to 3 keep it unused). */
	SYM_INLINE = 4,
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
	struct agent_ext ext; /* since 1.1 */
};

/* rec_runstats.rejected[]: why records of the arena were refused. */
enum rec_reject {
	REJ_TYPE = 0,  /* a type the arena may not carry: file-only, unknown */
	REJ_SIZE = 1,  /* shorter than its type's minimum */
	REJ_FIELD = 2, /* a field inside failed its check */
	REJ_FRAME = 3, /* no record could be framed there: a size no record has,
			* a forged ring header, a record never finished */
	REJ_N = 4,
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
	uint32_t flags;              /* RUN_F_*; 0 in older files (a pad then) */
	/* Since file version 1.1: what the front end refused from the arena,
	 * which the program can write (lib/core/ingest.c). */
	uint64_t rejected[REJ_N];    /* records, by enum rec_reject */
	uint64_t skipped_bytes;      /* bytes of the arena skipped with them */
};

/* rec_runstats.flags: counts the program overwrote in the shared arena,
 * past what the run could have done, so unknown (stored as 0). */
#define RUN_F_DROPS_FORGED 0x1 /* dropped_records, dropped_bytes */

struct rec_end {
	struct rec_hdr h;
	uint64_t records; /* records in the file before this one */
	uint64_t bytes;   /* uncompressed bytes before this one */
};


/*
 * The layout is the file format and the agent's ABI: these fail to compile
 * when a field moves.  New fields go at the end of a record (see rec_desc).
 */
#define REC_SIZE_IS(s, n) _Static_assert(sizeof(struct s) == (n), #s " is " #n " bytes")
#define REC_FIELD(s, f, off) _Static_assert(offsetof(struct s, f) == (off), #s "." #f " is at " #off)

REC_SIZE_IS(rec_hdr, 8);
REC_FIELD(rec_hdr, size, 0);
REC_FIELD(rec_hdr, type, 4);
REC_FIELD(rec_hdr, flags, 6);

REC_SIZE_IS(rec_sample, 64);
REC_FIELD(rec_sample, pid, 8);
REC_FIELD(rec_sample, tid, 12);
REC_FIELD(rec_sample, time, 16);
REC_FIELD(rec_sample, ip, 24);
REC_FIELD(rec_sample, addr, 32);
REC_FIELD(rec_sample, cpu, 40);
REC_FIELD(rec_sample, size, 44);
REC_FIELD(rec_sample, kind, 45);
REC_FIELD(rec_sample, source, 46);
REC_FIELD(rec_sample, flags, 47);
REC_FIELD(rec_sample, weight, 48);
REC_FIELD(rec_sample, data_src, 56);

REC_SIZE_IS(rec_trap, 72);
REC_FIELD(rec_trap, pid, 8);
REC_FIELD(rec_trap, tid, 12);
REC_FIELD(rec_trap, time, 16);
REC_FIELD(rec_trap, wp_addr, 24);
REC_FIELD(rec_trap, ip, 32);
REC_FIELD(rec_trap, insn_ip, 40);
REC_FIELD(rec_trap, acc_addr, 48);
REC_FIELD(rec_trap, cpu, 56);
REC_FIELD(rec_trap, slot, 60);
REC_FIELD(rec_trap, size, 61);
REC_FIELD(rec_trap, kind, 62);
REC_FIELD(rec_trap, flags, 63);
REC_FIELD(rec_trap, cookie, 64);

REC_SIZE_IS(rec_proc, 32);
REC_FIELD(rec_proc, pid, 8);
REC_FIELD(rec_proc, ppid, 12);
REC_FIELD(rec_proc, time, 16);
REC_FIELD(rec_proc, flags, 24);
REC_FIELD(rec_proc, exe, 32);

REC_SIZE_IS(rec_proc_end, 32);
REC_FIELD(rec_proc_end, pid, 8);
REC_FIELD(rec_proc_end, time, 16);
REC_FIELD(rec_proc_end, how, 24);

REC_SIZE_IS(rec_thread, 48);
REC_FIELD(rec_thread, pid, 8);
REC_FIELD(rec_thread, tid, 12);
REC_FIELD(rec_thread, time, 16);
REC_FIELD(rec_thread, cpu, 24);
REC_FIELD(rec_thread, flags, 28);
REC_FIELD(rec_thread, name, 32);

REC_SIZE_IS(agent_stats, 80);
REC_FIELD(agent_stats, samples, 0);
REC_FIELD(agent_stats, mem_samples, 8);
REC_FIELD(agent_stats, nomem, 16);
REC_FIELD(agent_stats, decode_fail, 24);
REC_FIELD(agent_stats, steps, 32);
REC_FIELD(agent_stats, traps, 40);
REC_FIELD(agent_stats, handler_ns, 48);
REC_FIELD(agent_stats, trap_ns, 56);
REC_FIELD(agent_stats, dropped, 64);
REC_FIELD(agent_stats, chained, 72);

REC_SIZE_IS(rec_thread_end, 224);
REC_FIELD(rec_thread_end, pid, 8);
REC_FIELD(rec_thread_end, tid, 12);
REC_FIELD(rec_thread_end, time, 16);
REC_FIELD(rec_thread_end, st, 24);
REC_FIELD(rec_thread_end, name, 104);
REC_FIELD(rec_thread_end, ext, 120);

REC_SIZE_IS(rec_mmap, 72);
REC_FIELD(rec_mmap, pid, 8);
REC_FIELD(rec_mmap, build_id_len, 12);
REC_FIELD(rec_mmap, time, 16);
REC_FIELD(rec_mmap, start, 24);
REC_FIELD(rec_mmap, end, 32);
REC_FIELD(rec_mmap, pgoff, 40);
REC_FIELD(rec_mmap, build_id, 48);
REC_FIELD(rec_mmap, path, 72);

REC_SIZE_IS(rec_error, 24);
REC_FIELD(rec_error, pid, 8);
REC_FIELD(rec_error, tid, 12);
REC_FIELD(rec_error, err, 16);
REC_FIELD(rec_error, msg, 24);

REC_SIZE_IS(rec_alloc, 48);
REC_FIELD(rec_alloc, pid, 8);
REC_FIELD(rec_alloc, tid, 12);
REC_FIELD(rec_alloc, time, 16);
REC_FIELD(rec_alloc, addr, 24);
REC_FIELD(rec_alloc, size, 32);
REC_FIELD(rec_alloc, site, 40);
REC_FIELD(rec_alloc, kind, 44);
REC_FIELD(rec_alloc, depth, 45);
REC_FIELD(rec_alloc, flags, 46);
REC_FIELD(rec_alloc, frames, 48);

REC_SIZE_IS(rec_free, 40);
REC_FIELD(rec_free, pid, 8);
REC_FIELD(rec_free, tid, 12);
REC_FIELD(rec_free, time, 16);
REC_FIELD(rec_free, addr, 24);
REC_FIELD(rec_free, len, 32);

REC_SIZE_IS(rec_meta, 8);
REC_FIELD(rec_meta, kv, 8);

REC_SIZE_IS(rec_cpu, 24);
REC_FIELD(rec_cpu, cpu, 8);
REC_FIELD(rec_cpu, core, 12);
REC_FIELD(rec_cpu, socket, 16);
REC_FIELD(rec_cpu, node, 20);

REC_SIZE_IS(rec_sym, 56);
REC_FIELD(rec_sym, pid, 8);
REC_FIELD(rec_sym, kind, 12);
REC_FIELD(rec_sym, name_len, 14);
REC_FIELD(rec_sym, addr, 16);
REC_FIELD(rec_sym, sym_start, 24);
REC_FIELD(rec_sym, sym_size, 32);
REC_FIELD(rec_sym, line, 40);
REC_FIELD(rec_sym, file_len, 44);
REC_FIELD(rec_sym, module_len, 48);
REC_FIELD(rec_sym, str, 56);

REC_SIZE_IS(rec_task, 248);
REC_FIELD(rec_task, index, 8);
REC_FIELD(rec_task, pid, 12);
REC_FIELD(rec_task, tid, 16);
REC_FIELD(rec_task, ppid, 20);
REC_FIELD(rec_task, start, 24);
REC_FIELD(rec_task, end, 32);
REC_FIELD(rec_task, flags, 40);
REC_FIELD(rec_task, st, 48);
REC_FIELD(rec_task, name, 128);
REC_FIELD(rec_task, ext, 144);

REC_SIZE_IS(rec_runstats, 112);
REC_FIELD(rec_runstats, start_ns, 8);
REC_FIELD(rec_runstats, end_ns, 16);
REC_FIELD(rec_runstats, records, 24);
REC_FIELD(rec_runstats, dropped_records, 32);
REC_FIELD(rec_runstats, dropped_bytes, 40);
REC_FIELD(rec_runstats, exit_status, 48);
REC_FIELD(rec_runstats, term_signal, 52);
REC_FIELD(rec_runstats, procs, 56);
REC_FIELD(rec_runstats, threads, 60);
REC_FIELD(rec_runstats, incomplete, 64);
REC_FIELD(rec_runstats, rejected, 72);
REC_FIELD(rec_runstats, skipped_bytes, 104);

REC_SIZE_IS(rec_end, 24);
REC_FIELD(rec_end, records, 8);
REC_FIELD(rec_end, bytes, 16);

#endif
