/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent: loaded into the target through LD_PRELOAD, it opens perf
 * events in every thread, takes SIGTRAPs and appends records to the arena.
 *
 * State lives in two preallocated tables: one per process (struct agent)
 * and one slot per thread.  Nothing here allocates in a handler.
 */
#ifndef CDT_AGENT_H
#define CDT_AGENT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/agent/decode.h"
#include "lib/wire/arena.h"

#define AGENT_API __attribute__((visibility("default")))
#define AGENT_MAX_THREADS 4096
#define AGENT_ALTSTACK (64 * 1024)
#define WPT_SLOTS 4
#define X86_EFLAGS_TF 0x100
/* A live thread sends its stats this often (ns), so a SIGKILL loses at
 * most that much of them. */
#define AGENT_STATS_NS 100000000ull

/* glibc 2.36 lacks these (DESIGN.md). */
#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
static inline uint64_t agent_si_perf_data(const siginfo_t *si)
{
	return *(const uint64_t *)((const char *)si + 24);
}
/* si_perf_flags (after si_perf_data and si_perf_type, kernel 6.0+). */
#define TRAP_PERF_FLAG_ASYNC (1u << 31)
static inline uint32_t agent_si_perf_flags(const siginfo_t *si)
{
	return *(const uint32_t *)((const char *)si + 36);
}

/* sig_data of every event the agent opens: a tag, a kind and an index. */
#define SIGDATA_MAGIC 0xcd70000000000000ull
#define SIGDATA_MASK 0xffff000000000000ull
#define SIGDATA_SAMPLE 0x0000010000000000ull
#define SIGDATA_WPT 0x0000020000000000ull
#define SIGDATA_PAIR 0x0000030000000000ull /* pair.c: a sample's follow-up */
#define SIGDATA_KIND_MASK 0x0000ff0000000000ull
#define SIGDATA_INDEX_MASK 0xffffull

struct wpt_slot {
	int fd;
	uint64_t id; /* its perf id (agent_perf_close) */
	int armed;
	uint64_t addr;
	uint64_t cookie;
	uint8_t len;
	uint8_t type;
};

/* The debug registers of one thread. */
struct wpt_set {
	pid_t tid;            /* the thread the watchpoints trap in */
	atomic_int busy;      /* a sibling may arm ours: never wait, fail */
	struct wpt_slot slot[WPT_SLOTS];
};

/* A thread's counting-mode events as read at one moment. */
struct agent_counts {
	uint32_t n;         /* events read: cfg.ncounters, or 0 if none opened */
	uint64_t enabled;   /* ns the first hardware group (else the first event) was */
	uint64_t running;   /* enabled, and running: less means multiplexed */
	uint64_t v[AGENT_MAX_COUNTERS];
	/* Each counter's own times: its group's, or its own if alone. */
	uint64_t en[AGENT_MAX_COUNTERS], run[AGENT_MAX_COUNTERS];
};

/* A thread's sample clock (clock.c). */
struct clock_thread {
	int kind;          /* enum clock_kind: CLOCK_K_PERF (also the pmu's) or _POSIX */
	int timer;         /* the POSIX timer's id, or -1 */
	uint64_t period;   /* of the first sampling event, now */
	uint64_t cpu0;     /* the governor's window began at this CPU time, */
	uint64_t samples0; /* with this many samples taken */
	uint64_t sw0;      /* and this many context switches */
	uint64_t left;     /* paused (clock_pause): what was left of the period */
	int rearm;         /* the perf event's period is a paused one's rest */
	uint64_t rng;      /* clock_jitter's state, the thread's own */
	uint64_t next;     /* the POSIX timer's next sample, CPU ns (0: not known) */
};

struct obj_thread;

/* Signals of cdt's numbers taken while held (sigchain.c), to queue again. */
#define SIGCHAIN_LATER 4

struct agent_thread {
	atomic_int used;
	pid_t tid;
	int ev_fd[AGENT_MAX_EVENTS];
	uint64_t ev_id[AGENT_MAX_EVENTS]; /* their perf ids (agent_perf_close) */
	void *ev_ring[AGENT_MAX_EVENTS]; /* pmu: perf mmap ring */
	struct clock_thread clk;
	int count_fd[AGENT_MAX_COUNTERS]; /* counting events (counters.c) */
	uint64_t count_id[AGENT_MAX_COUNTERS];
	int count_lead; /* the first hardware group's leader in count_fd, or -1 */
	/* Each counter's group leader in count_fd (itself if it leads), -1 alone. */
	int count_glead[AGENT_MAX_COUNTERS];
	void *count_page[AGENT_MAX_COUNTERS]; /* hardware ones: mmap page, for rdpmc */
	void *altstack;
	uint64_t fs_base;
	struct wpt_set wp;
	struct agent_stats st;
	struct agent_ext ext;
	unsigned cost_tick[2]; /* samples, traps: which to time (AGENT_COST_EVERY) */
	uint64_t stats_time; /* when st was last sent */
	uint64_t count_time; /* when the counters were last handed to the tool */
	uint32_t flags; /* THREAD_F_* */
	/* The running tool's state for this thread: agent_tool.state_size
	 * bytes, zeroed when the thread starts, opaque to the agent. */
	void *state;
	/*
	 * What the agent keeps per thread in normal context and handlers
	 * alike.  Not in thread-local storage: a TLS block of the agent's
	 * makes glibc's vector of TLS blocks (dtv) of every new thread 16
	 * bytes longer, and that vector is allocated from the program's heap.
	 */
	int quiet;                 /* agent_quiet_begin */
	unsigned believed;         /* sigchain.c: cdt's signals the program believes blocked */
	int held, wpt_held;        /* sigchain.c: events paused in a handler of the program's */
	int nlater;
	siginfo_t later[SIGCHAIN_LATER];
	int steps_left;            /* sample_soft.c: the walk in progress */
	uint64_t soft_t0, soft_cpu0, soft_ip0;
	struct obj_thread *obj;    /* objects.c: heap blocks, kept with the slot */
	int obj_busy;              /* the agent's own calls: no block of the program's */
	int obj_own;               /* allocations come from the agent's pool (objects.c) */
	uint64_t stack_lo, stack_hi;
	/* pair.c: the follow-up event, armed after each sample of the clock. */
	int pair_fd;
	uint64_t pair_id;
	int pair_armed;
	int pair_fired;     /* the sample being taken is a follow-up */
	int soft_pair;      /* sample_soft.c: the walk in progress is one */
	uint64_t pair_cpu0; /* CPU time when it was last armed */
	uint64_t pair_seq;  /* times armed */
	uint64_t pair_span; /* CPU time between the last two armings */
	uint64_t pair_len;  /* the stretch asked for */
	uint64_t pair_count; /* the event's count at the last follow-up */
	uint64_t pair_dt;   /* the program's CPU time from the arming to the follow-up */
};

/*
 * A tool's side of the agent: what it does in the target.  The agent
 * names no tool; it finds the one agent_cfg.tool names through
 * agent_tool_find(), which the tool table (lib/tools/tools.c) provides.
 * Hooks other than init run in signal handlers or in thread start and
 * end, so they must be async-signal-safe: no malloc, stdio or locks.
 * Any hook may be NULL.
 */
struct agent_tool {
	size_t state_size; /* per thread, see agent_thread.state */
	/* At start and again in a fork child, not in a handler; params is the
	 * tool's struct from agent_cfg.params.  0 or a negative errno. */
	int (*init)(const void *params);
	void (*thread_start)(struct agent_thread *t);
	/* In t, as it ends (and for the thread that calls exit()). */
	void (*thread_stop)(struct agent_thread *t);
	/* A memory sample of t, from either source. */
	void (*sample)(struct agent_thread *t, struct rec_sample *s);
	/* A watchpoint or breakpoint of t trapped; uc is the program's state
	 * there, which the hook may change (the trap returns to it). */
	void (*trap)(struct agent_thread *t, struct rec_trap *tr, ucontext_t *uc);
	/* t's counters, every cfg.counter_interval_ns and when t ends. */
	void (*counters)(struct agent_thread *t, const struct agent_counts *c);
	/* Instead of sample: each sample of t (either source) as the state it
	 * interrupted, for a tool that wants where the thread is rather than
	 * a memory access; the soft source then neither decodes nor steps,
	 * and the pmu source maps no ring. */
	void (*tick)(struct agent_thread *t, ucontext_t *uc, uint64_t time);
	/* t is about to leave frames other than by returning (AGENT_JUMP_*):
	 * which frames is known only at its next sample or trap. */
	void (*jump)(struct agent_thread *t, int how);
	uint32_t flags; /* AGENT_TOOL_* */
};
#define AGENT_TOOL_FUNCS 0x1     /* keep the table of functions (functab_find) */
#define AGENT_TOOL_RAW_TRAPS 0x2 /* traps are not decoded (rec_trap has no access) */
/* Soft samples that found no memory access within the step budget reach
 * the sample hook too, flagged SAMPLE_F_NOMEM, with the interrupted IP:
 * for a tool to which time away from memory is an answer. */
#define AGENT_TOOL_NOMEM 0x4
/* Soft samples give the access the thread stalled on where it can be
 * known (SAMPLE_F_BEHIND), else the next one (sample_soft.c). */
#define AGENT_TOOL_STALLS 0x8
/* Soft source: each sample of the clock gets a follow-up a few hundred
 * microseconds of CPU time later, flagged SAMPLE_F_PAIR (pair.c); the
 * hook finds its CPU times in agent_thread.pair_*. */
#define AGENT_TOOL_PAIRS 0x10
enum agent_jump {
	AGENT_JUMP_LONGJMP = 1, /* longjmp, siglongjmp, _longjmp, __longjmp_chk */
	AGENT_JUMP_THROW,       /* _Unwind_RaiseException: a C++ exception */
	AGENT_JUMP_EXEC,        /* exec replaces the image (if it succeeds) */
};
const struct agent_tool *agent_tool_find(const char *name);

struct agent {
	struct arena arena;
	struct agent_cfg cfg;
	pid_t pid;
	int active;          /* events are being opened */
	int broken;          /* SIGTRAP handler lost: sampling stopped */
	int forked;          /* a fork child of the image that loaded the agent */
	/* The program's RLIMIT_NOFILE is at or below cdt's descriptors
	 * (fds.c): nothing new of cdt's can be placed high, none is opened. */
	atomic_int fds_low;
	const struct agent_tool *tool;
	unsigned char *states; /* AGENT_MAX_THREADS tool states, state_stride apart */
	size_t state_stride;
	/* Slots ever claimed: thr[0..nthr) is all a scan reads, so a
	 * process's exit does not fault in the whole 3 MB table. */
	atomic_int nthr;
	struct agent_thread thr[AGENT_MAX_THREADS];
};

extern struct agent agent_g;

/* sp lies on t's own stack (its alternate signal stack, unless the program
 * set one of its own). */
static inline int agent_on_own_stack(const struct agent_thread *t, const void *sp)
{
	return t->altstack && (const char *)sp >= (const char *)t->altstack &&
	       (const char *)sp < (const char *)t->altstack + AGENT_ALTSTACK;
}

/* The calling thread's slot, or NULL (thread.c).  A thread-specific value,
 * read without a lock or a system call: safe in handlers. */
extern pthread_key_t agent_key;
extern atomic_int agent_key_made;
static inline struct agent_thread *agent_self(void)
{
	return atomic_load_explicit(&agent_key_made, memory_order_acquire) ?
	       (struct agent_thread *)pthread_getspecific(agent_key) : NULL;
}

/* The agent itself works in normal context (module walks, exit): samples
 * of the thread taken until agent_quiet_end would describe the agent, not
 * the program. */
static inline struct agent_thread *agent_quiet_begin(void)
{
	struct agent_thread *t = agent_self();

	if (t)
		t->quiet++;
	return t;
}

static inline void agent_quiet_end(struct agent_thread *t)
{
	if (t)
		t->quiet--;
}

/* next.c: the definition of name after the agent's (dlsym's RTLD_NEXT,
 * without its allocations); not in a handler. */
void *agent_next(const char *name);

uint64_t agent_now(void);
/* addr is in the agent's own image (its code): cdt's, not the program's. */
int agent_own_addr(uint64_t addr);
void agent_error(int err, const char *msg);
/* The CPU time of a thread of this process, ns (a system call). */
uint64_t agent_cpu_of(pid_t tid);
#define agent_cpu_now() agent_cpu_of(0)
int agent_check_handler(void);

/* thread.c */
/* created: when pthread_create was called; 0 for a process's first thread. */
struct agent_thread *agent_thread_start(int main_thread, uint64_t created);
/* In a fork child: the forking thread goes on in its slot t, as a first thread. */
struct agent_thread *agent_thread_restart(struct agent_thread *t);
void agent_thread_stop(struct agent_thread *t);
/* t's stats: REC_THREAD_END when it ends, REC_THREAD_STATS while it goes on. */
void agent_thread_send(struct agent_thread *t, uint16_t type);
/* From t's own handlers: a REC_THREAD_STATS when one is due. */
void agent_thread_tick(struct agent_thread *t, uint64_t now);

/* fds.c: the agent's descriptors among the program's */
struct perf_event_attr;
/* A perf event of the agent's: its fd, or a negative errno; *id its perf id. */
int agent_perf_open(struct perf_event_attr *a, pid_t tid, int group, uint64_t *id);
/* Close *fd if it still holds the event `id`; *fd becomes -1 either way. */
void agent_perf_close(int *fd, uint64_t id);
void fds_init(void);
/* Before exec of path: name the process if it will run unprofiled (1). */
int fds_check_exec(const char *path);

/* handler.c: cdt's signals (sigchain.c) */
void agent_on_signal(int sig, siginfo_t *si, void *uc);
/* The program's int1 raised a TRAP_BRKPT whose IP has code[0] before it
 * and code[1] at it; at: the host leaves the IP at an int1 (AGENT_F_INT1_AT). */
int handler_int1(const unsigned char code[2], int at);
/* fn(sig, si, uc) on the stack that ends at top, and its result. */
int handler_stack_call(int (*fn)(int, siginfo_t *, void *), int sig, siginfo_t *si, void *uc,
		       void *top);

/* objects.c: heap blocks, mappings and stacks (AGENT_F_OBJECTS); t's stack */
void objects_thread_start(struct agent_thread *t);
/* t ends: its young blocks are recorded. */
void objects_thread_stop(struct agent_thread *t);
/* exit(): nothing is deferred any more. */
void objects_exit(void);
/* In a fork child: the pool another thread held is free. */
void objects_fork_child(void);
/* From a sample's handler: the address a sample of t touched (a young
 * heap block it lands in will be recorded). */
void objects_on_sample(struct agent_thread *t, uint64_t addr);

/* counters.c: the counting group of t (cfg.counter[]) */
int counters_open(struct agent_thread *t);
void counters_close(struct agent_thread *t);
/* Read t's counters now; async-signal-safe.  0, or a negative errno (c->n 0). */
int agent_counters_read(struct agent_thread *t, struct agent_counts *c);
/* From t's handlers and its end: hand the counters to the tool when due. */
void counters_tick(struct agent_thread *t, uint64_t now, int final);

/* sample_soft.c, events.c */
/* cpu0: the thread's CPU clock when a timed sample began, else 0; the
 * cost of the sample and its steps is added when the walk ends. */
/* Once per process, after the tool is known (not in a handler). */
int soft_init(void);
/* New code may sit where old code was (a dlopen): forget the stall sites. */
void soft_forget(void);
void soft_on_sample(struct agent_thread *t, ucontext_t *uc, uint64_t t0, uint64_t cpu0);
void soft_on_step(struct agent_thread *t, ucontext_t *uc);
int soft_stepping(const struct agent_thread *t);
/* t ends (in normal context): no step of it may come after. */
void soft_thread_stop(struct agent_thread *t);
/* After another trap of t while it steps: stop before a kernel entry. */
void soft_guard(struct agent_thread *t, ucontext_t *uc);
/* Event i of cfg.ev[] in t, sampling every `period`. */
int pmu_open(struct agent_thread *t, int i, uint64_t period);
void pmu_on_sample(struct agent_thread *t, int i, uint64_t t0);
void pmu_close(struct agent_thread *t, int i);

/* pair.c: follow-up samples (AGENT_TOOL_PAIRS).  pair_open at t's start,
 * pair_close at its end; pair_on_sample as a sample of the clock
 * (pair 0) or a follow-up (pair 1) begins, pair_arm after the first. */
int pair_open(struct agent_thread *t);
void pair_close(struct agent_thread *t);
void pair_on_sample(struct agent_thread *t, int pair);
void pair_arm(struct agent_thread *t);
/* No follow-up while the program's handler runs on its own stack. */
void pair_pause(struct agent_thread *t);

/* clock.c: t's sampling events (cfg.ev[]) and the overhead budget */
int clock_open(struct agent_thread *t);
/* inherited: in a fork child, t's events and timers were the parent's. */
void clock_close(struct agent_thread *t, int inherited);
/* Stop sampling t (the handler is lost). */
void clock_stop(struct agent_thread *t);
/* No sample of t until clock_resume, which goes on with what was left of
 * the period (a sample due at once waits while cdt's signals are blocked:
 * sigchain.c); clock_sampled, at t's next sample, sets the period again. */
void clock_pause(struct agent_thread *t);
void clock_resume(struct agent_thread *t);
/* At t's every sample of its clock: the next period, jittered. */
void clock_sampled(struct agent_thread *t);
/* t's mean time between samples of its clock now (pmu: events): what a
 * sample stands for.  The governor sets it thread by thread. */
uint64_t clock_mean_period(const struct agent_thread *t);
/* A period drawn uniformly within half of `period` either side (mean
 * `period`), from the xorshift state *rng (never 0); pure. */
uint64_t clock_jitter(uint64_t period, uint64_t *rng);
/* From t's sampling signal, with t's CPU time at its start: keep the budget. */
void clock_govern(struct agent_thread *t, uint64_t cpu);
/* A POSIX-clock sample that came as a system call returned (or restarts). */
int clock_in_syscall(const ucontext_t *uc);
/* Before t's stats are sent: bring the clock's counts up to date. */
void clock_sync(struct agent_thread *t);
/* What a thread's last window of samples cost it. */
struct clock_window {
	uint64_t samples;    /* samples taken */
	uint64_t cpu_ns;     /* the thread's CPU time, all of it */
	uint64_t handler_ns; /* the handler's CPU time per sample */
	uint64_t switches;   /* the thread's context switches */
};
/*
 * The governor's decision, pure: from the clock `kind` sampling every
 * `period` and the window it had, the clock for the next (returned) and
 * its period (*next).  p0 is the rate asked for (the shortest period);
 * soft: the period is ns of CPU time, else events (only scaled).
 */
int clock_choose(const struct agent_clock *c, int soft, uint64_t p0, int kind,
		 uint64_t period, const struct clock_window *w, uint64_t *next);

/*
 * sigchain.c: the program's handlers of cdt's signals behind cdt's.  The
 * POSIX sample clock's signal is a real-time one, which queues: a
 * standard one pending discards another (a watchpoint's SIGTRAP).
 */
#define AGENT_SIGCLOCK (SIGRTMAX - 3)
int sigchain_install(void);
int sigchain_check(void);
void sigchain_forward(int sig, siginfo_t *si, void *uc);
/* The program has a SIGTRAP handler of its own (not SIG_DFL or SIG_IGN). */
int sigchain_program_handles(void);
/* Which of cdt's signals the calling thread's program believes blocked:
 * a new thread starts with its creator's (thread.c). */
unsigned sigchain_believed_get(void);
/* ip is the first instruction of a handler of the program's (or cdt's
 * entry to one). */
int sigchain_handler_entry(uint64_t ip);
/* Before a longjmp or throw, perhaps out of a handler of the program's. */
void sigchain_jump(void);
/* Before a longjmp out of a handler of the program's whose events are held:
 * 1 if they were, now released, every signal blocked and *before the mask
 * until then; the jump must set the mask itself, off the program's stack
 * (jumps.c). */
int sigchain_jump_prepare(sigset_t *before);

/* wpt.c */
void wpt_init(struct wpt_set *s, pid_t tid);
int wpt_arm(struct wpt_set *s, int slot, uint64_t addr, unsigned len,
	    enum wpt_type type, uint64_t cookie);
int wpt_disarm(struct wpt_set *s, int slot);
int wpt_armed(const struct wpt_set *s);
/* The armed ones off, and siblings kept from arming, until wpt_resume;
 * -EBUSY if a sibling held the set too long (then nothing was paused). */
int wpt_pause(struct wpt_set *s);
void wpt_resume(struct wpt_set *s);
void wpt_close(struct wpt_set *s);
/* Open every slot's event not open yet, disabled (while fds can still go high). */
void wpt_prepare(struct wpt_set *s);
void wpt_on_trap(struct agent_thread *t, int slot, siginfo_t *si, ucontext_t *uc,
		 uint64_t t0);

/* mmaps.c */
void mmaps_record(void);

/* jumps.c: longjmp and C++ throws (agent_tool.jump); at start */
void jumps_init(void);

/* functab.c: the functions of the loaded modules (AGENT_TOOL_FUNCS) */
/* Read the modules' symbol tables again (not in a handler). */
void functab_update(void);
/* From a handler: 1 and the function's [start, end) if addr is in one. */
int functab_find(uint64_t addr, uint64_t *start, uint64_t *end);
/* In a fork child: an update the fork cut short in another thread is over. */
void functab_fork_child(void);

/* Copy up to len code bytes at addr from a handler without faulting;
 * returns how many could be read (0 if none).  `mapped`: the page of addr
 * is known to be mapped (it holds the interrupted IP). */
size_t agent_read_code(uint64_t addr, void *buf, size_t len, int mapped);

#endif
