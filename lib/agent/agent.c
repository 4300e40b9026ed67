// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process-level life of the agent: attach to the arena named in the
 * environment, install the SIGTRAP handler, start the main thread, and
 * follow fork, exec and exit.
 */
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "lib/agent/agent.h"

struct agent agent_g;

/* The agent's own executable segment, found at start from its ELF header
 * in memory (no loader call). */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));
static uint64_t agent_text_lo, agent_text_hi;

static void agent_text_find(void)
{
	const ElfW(Ehdr) *eh = &__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	uint64_t base = 0;

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && !ph[i].p_offset)
			base = (uint64_t)(uintptr_t)eh - ph[i].p_vaddr;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			agent_text_lo = base + ph[i].p_vaddr;
			agent_text_hi = agent_text_lo + ph[i].p_memsz;
		}
}

int agent_own_addr(uint64_t addr)
{
	return addr >= agent_text_lo && addr < agent_text_hi;
}

uint64_t agent_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t agent_cpu_of(pid_t tid)
{
	/* The kernel's clock id of a thread's CPU clock (CPUCLOCK_SCHED of
	 * thread tid), which glibc has no call for but a pthread_t's. */
	clockid_t clk = tid ? (clockid_t)((~(unsigned)tid << 3) | 4 | 2) : CLOCK_THREAD_CPUTIME_ID;
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Async-signal-safe: formats nothing, copies the text into a record. */
void agent_error(int err, const char *msg)
{
	size_t n = strlen(msg) + 1;
	uint32_t size = REC_SIZE(sizeof(struct rec_error) + n);
	struct rec_error *r;

	if (!agent_g.arena.hdr)
		return;
	r = arena_reserve(&agent_g.arena, size, REC_ERROR);
	if (!r)
		return;
	r->pid = (uint32_t)getpid();
	r->tid = (uint32_t)gettid();
	r->err = err;
	memset(r->msg, 0, size - sizeof(*r));
	memcpy(r->msg, msg, n);
	arena_commit(&agent_g.arena, r);
}

/*
 * A program that installs a SIGTRAP handler through the raw syscall
 * bypasses our interposition; our next trap would go to it.  Stop
 * sampling in every thread and say so.
 */
int agent_check_handler(void)
{
	if (agent_g.broken || sigchain_check() != -EBUSY)
		return agent_g.broken ? -EBUSY : 0;
	agent_g.broken = 1;
	for (int i = 0, n = atomic_load(&agent_g.nthr); i < n; i++) {
		struct agent_thread *t = &agent_g.thr[i];

		if (!atomic_load(&t->used))
			continue;
		clock_stop(t);
		pair_close(t);
	}
	agent_error(EBUSY, "the program replaced cdt's SIGTRAP handler without "
			   "sigaction() (raw rt_sigaction?); sampling stopped early");
	return -EBUSY;
}

/* path: the image's, or NULL for this one's (/proc/self/exe). */
static void agent_proc_record(uint32_t flags, const char *path)
{
	char exe[PATH_MAX];
	ssize_t n = path ? 0 : readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint32_t size;
	struct rec_proc *r;

	if (n < 0)
		n = 0;
	for (; path && path[n] && n < (ssize_t)sizeof(exe) - 1; n++)
		exe[n] = path[n];
	exe[n] = '\0';
	size = REC_SIZE(sizeof(*r) + (size_t)n + 1);
	r = arena_reserve(&agent_g.arena, size, REC_PROC);
	if (!r)
		return;
	r->pid = (uint32_t)getpid();
	r->ppid = (uint32_t)getppid();
	r->time = agent_now();
	r->flags = flags;
	r->pad = 0;
	memset(r->exe, 0, size - sizeof(*r));
	memcpy(r->exe, exe, (size_t)n);
	arena_commit(&agent_g.arena, r);
}

static void agent_proc_end(uint32_t how, int status)
{
	struct rec_proc_end r = { .pid = (uint32_t)getpid(), .time = agent_now(),
				  .how = how, .status = status };

	arena_write(&agent_g.arena, &r, sizeof(r), REC_PROC_END);
}

/* Stats of every thread still alive; the front end keeps the latest. */
static void agent_flush_threads(uint16_t type)
{
	for (int i = 0, n = atomic_load(&agent_g.nthr); i < n; i++)
		if (atomic_load(&agent_g.thr[i].used))
			agent_thread_send(&agent_g.thr[i], type);
}

static void agent_atfork_child(void)
{
	struct agent_thread *self = agent_self();

	if (!agent_g.active)
		return;
	agent_g.pid = getpid();
	agent_g.forked = 1;
	functab_fork_child();
	objects_fork_child();
	/* Inherited fds are the parent's threads' events: drop them all. */
	for (int i = 0, n = atomic_load(&agent_g.nthr); i < n; i++) {
		struct agent_thread *t = &agent_g.thr[i];

		if (!atomic_load(&t->used))
			continue;
		clock_close(t, 1);
		pair_close(t);
		counters_close(t);
		wpt_close(&t->wp);
		if (t != self)
			atomic_store(&t->used, 0);
	}
	/* No module walk here: the loader lock may be held by a thread that
	 * did not survive fork.  The front end copies the parent's modules. */
	agent_proc_record(PROC_F_FORK, NULL);
	if (agent_g.tool->init && agent_g.tool->init(agent_g.cfg.params)) {
		agent_error(ENOMEM, "agent: the tool could not set up in a fork child; "
				    "not profiling it");
		agent_g.active = 0;
		return;
	}
	/* The child's first thread: a new thread as far as profiles go. */
	if (self)
		agent_thread_restart(self);
}

/* exit(), or main returned (agent_rtld_fini). */
static void agent_exit(int status)
{
	struct agent_thread *self;

	if (!agent_g.active)
		return;
	self = agent_quiet_begin();
	objects_exit();
	agent_check_handler();
	/* The thread that exits ends here; the others end with the process. */
	if (self) {
		counters_tick(self, agent_now(), 1);
		if (agent_g.tool->thread_stop)
			agent_g.tool->thread_stop(self);
	}
	/* Modules loaded behind dlopen's back (libc's own loads).  Not in a
	 * fork child: a thread that did not survive fork may hold the loader
	 * lock, and the front end copies the parent's modules. */
	if (!agent_g.forked)
		mmaps_record();
	agent_flush_threads(REC_THREAD_END);
	agent_proc_end(PROC_END_EXIT, status);
	agent_quiet_end(self);
}

/*
 * exit() and a return from main run the exit handlers, the loader's
 * (rtld_fini, which __libc_start_main registers first) last: cdt's end
 * runs in its place, after it.  A handler of cdt's own (on_exit) would
 * take one of the 32 entries of glibc's first block of handlers, whose
 * next block comes from the program's heap: a program that registers 31
 * would get that block one handler early, and its later blocks would
 * move.  glibc calls a handler __cxa_atexit registered with the exit
 * status after its argument, as on_exit's.
 */
static void (*agent_real_rtld_fini)(void);

static void agent_rtld_fini(void *arg, int status)
{
	(void)arg;
	agent_real_rtld_fini();
	agent_exit(status);
}

typedef int (*start_fn)(int (*)(int, char **, char **), int, char **, void (*)(void),
			void (*)(void), void (*)(void), void *);

AGENT_API int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
				void (*init)(void), void (*fini)(void), void (*rtld_fini)(void),
				void *stack_end)
{
	start_fn real = (start_fn)agent_next("__libc_start_main");

	if (!real)
		abort(); /* no libc to start the program with */
	if (rtld_fini) {
		agent_real_rtld_fini = rtld_fini;
		rtld_fini = (void (*)(void))agent_rtld_fini;
	}
	return real(main, argc, argv, init, fini, rtld_fini, stack_end);
}

/*
 * _exit and _Exit (what fork children and daemons end with) run no exit
 * handlers: the end is recorded here, with what is async-signal-safe.
 * glibc's exit() reaches its own _exit internally, not these.
 */
static void (*agent_real_exit)(int);

static __attribute__((noreturn)) void agent_fast_exit(int status)
{
	if (agent_g.active) {
		agent_quiet_begin(); /* for good: the process ends */
		agent_flush_threads(REC_THREAD_END);
		agent_proc_end(PROC_END__EXIT, status);
	}
	if (agent_real_exit)
		agent_real_exit(status);
	for (;;) /* its libc's _exit is gone: the same system call */
		syscall(SYS_exit_group, status);
}

/*
 * clone() without CLONE_THREAD makes a process, and glibc runs no atfork
 * handler for it: the child is set up here as a fork child is, and its
 * end recorded when its function returns (glibc then makes the raw exit
 * system call, which no handler sees).  Only children with a copy of the
 * memory: one that shares it (CLONE_VM) would rewrite the parent's agent,
 * so it goes as it is, unprofiled until it execs.  Resolved at start:
 * no lookup (agent_next) after it.
 */
static int (*agent_real_clone)(int (*)(void *), void *, int, void *, ...);

struct clone_boot {
	int (*fn)(void *);
	void *arg;
};

static int agent_clone_start(void *p)
{
	/* The parent's frame, copied into the child with the memory. */
	struct clone_boot b = *(struct clone_boot *)p;
	int status;

	agent_atfork_child();
	status = b.fn(b.arg);
	if (agent_g.active) {
		agent_quiet_begin(); /* for good: the process ends */
		agent_flush_threads(REC_THREAD_END);
		agent_proc_end(PROC_END__EXIT, status & 0xff);
	}
	return status;
}

AGENT_API int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	struct clone_boot b = { fn, arg };
	pid_t *ptid, *ctid;
	void *tls;
	va_list ap;

	/* What glibc's clone takes after arg, passed on as its own is:
	 * read whether or not flags ask for them. */
	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	/* Called by another library's constructor before the agent's. */
	if (!agent_real_clone)
		agent_real_clone = (int (*)(int (*)(void *), void *, int, void *, ...))
			agent_next("clone");
	if (!agent_real_clone) {
		errno = ENOSYS;
		return -1;
	}
	if (!agent_g.active || !fn || (flags & (CLONE_THREAD | CLONE_VM | CLONE_NEWPID)))
		return agent_real_clone(fn, stack, flags, arg, ptid, tls, ctid);
	return agent_real_clone(agent_clone_start, stack, flags, &b, ptid, tls, ctid);
}

AGENT_API void _exit(int status)
{
	agent_fast_exit(status);
}

AGENT_API void _Exit(int status)
{
	agent_fast_exit(status);
}

/*
 * Before exec: the stats so far, and nothing that would end the process
 * if exec fails and it goes on.  The new image's agent starts a record of
 * the same pid, which ends this image's threads (profile_add_proc).  No
 * module walk: exec is async-signal-safe and called from handlers and
 * fork children, where dl_iterate_phdr is not; the modules are known from
 * the start and every dlopen.
 */
static void agent_exec_prepare(const char *path)
{
	struct agent_thread *self;

	if (!agent_g.active)
		return;
	self = agent_quiet_begin();
	/* No agent will load into the next image: the process goes on
	 * unprofiled, and its end will not be seen (not "killed"). */
	if (fds_check_exec(path))
		agent_proc_record(PROC_F_EXEC | PROC_F_UNSEEN, path ? path : "?");
	agent_check_handler();
	if (self) {
		counters_tick(self, agent_now(), 1);
		if (agent_g.tool->jump)
			agent_g.tool->jump(self, AGENT_JUMP_EXEC);
	}
	agent_flush_threads(REC_THREAD_STATS);
	agent_quiet_end(self);
}

/*
 * Before exec replaces the image: the same as an exit.  glibc's exec
 * functions call its internal execve, so each is wrapped; the variadic
 * execl* forms build an argv and go through the execve/execvpe wrappers.
 */
typedef int (*exec_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

/* execl* arguments become an argv on the caller's stack, as in glibc;
 * more than this many would risk a small thread stack: E2BIG. */
#define AGENT_EXECL_MAX 4096

static void *agent_real(void **cache, const char *name, const char *path)
{
	if (!*cache)
		*cache = agent_next(name);
	if (!*cache)
		errno = ENOSYS;
	else
		agent_exec_prepare(path);
	return *cache;
}

static int agent_execve(const char *path, char *const argv[], char *const envp[])
{
	static void *real;
	exec_fn fn = (exec_fn)agent_real(&real, "execve", path);

	return fn ? fn(path, argv, envp) : -1;
}

static int agent_execvpe(const char *file, char *const argv[], char *const envp[])
{
	static void *real;
	exec_fn fn = (exec_fn)agent_real(&real, "execvpe", file);

	return fn ? fn(file, argv, envp) : -1;
}

AGENT_API int execve(const char *path, char *const argv[], char *const envp[])
{
	return agent_execve(path, argv, envp);
}

AGENT_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return agent_execvpe(file, argv, envp);
}

AGENT_API int execv(const char *path, char *const argv[])
{
	static void *real;
	execv_fn fn = (execv_fn)agent_real(&real, "execv", path);

	return fn ? fn(path, argv) : -1;
}

AGENT_API int execvp(const char *file, char *const argv[])
{
	static void *real;
	execv_fn fn = (execv_fn)agent_real(&real, "execvp", file);

	return fn ? fn(file, argv) : -1;
}

/* How many arguments from arg to the terminating NULL; -1 above the bound. */
static int agent_execl_count(const char *arg, va_list ap)
{
	int n = 0;

	for (const char *a = arg; a; a = va_arg(ap, const char *))
		if (++n > AGENT_EXECL_MAX)
			return -1;
	return n;
}

enum execl_form {
	EXECL_PATH,   /* execl: path, the caller's environment */
	EXECL_ENV,    /* execle: path, envp after the NULL */
	EXECL_SEARCH, /* execlp: file searched in PATH */
};

/* ap holds the arguments after arg, as the variadic caller got them. */
static int agent_execl(enum execl_form form, const char *file, const char *arg, va_list ap)
{
	char *const *envp = environ;
	va_list count;
	int n;

	va_copy(count, ap);
	n = agent_execl_count(arg, count);
	va_end(count);
	if (n < 0) {
		errno = E2BIG;
		return -1;
	}
	char *argv[n + 1];

	argv[0] = (char *)arg;
	for (int i = 1; i < n; i++)
		argv[i] = va_arg(ap, char *);
	argv[n] = NULL;
	if (form == EXECL_ENV) {
		if (n)
			(void)va_arg(ap, char *); /* the NULL that ends the list */
		envp = va_arg(ap, char *const *);
	}
	return form == EXECL_SEARCH ? agent_execvpe(file, argv, envp)
				    : agent_execve(file, argv, envp);
}

AGENT_API int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = agent_execl(EXECL_PATH, path, arg, ap);
	va_end(ap);
	return ret;
}

AGENT_API int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = agent_execl(EXECL_ENV, path, arg, ap);
	va_end(ap);
	return ret;
}

AGENT_API int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = agent_execl(EXECL_SEARCH, file, arg, ap);
	va_end(ap);
	return ret;
}

static int agent_attach(void)
{
	const char *s = getenv(AGENT_ENV_FD);
	char *end;
	long fd;

	if (!s)
		return -ENOENT;
	fd = strtol(s, &end, 10);
	if (*end || fd < 0 || fd > INT_MAX)
		return -EINVAL;
	return arena_attach(&agent_g.arena, (int)fd);
}

/* Every thread's tool state, preallocated: handlers never allocate.  Pages
 * of slots no thread uses are never touched. */
static int agent_states(size_t size)
{
	void *p;

	if (!size)
		return 0;
	agent_g.state_stride = (size + 63) & ~(size_t)63;
	p = mmap(NULL, agent_g.state_stride * AGENT_MAX_THREADS, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	agent_g.states = p;
	return 0;
}

__attribute__((constructor(101))) static void agent_init(void)
{
	const struct agent_tool *tool;
	int err;

	/* Before anything can fail: clone() must reach glibc's either way. */
	agent_real_clone = (int (*)(int (*)(void *), void *, int, void *, ...))
		agent_next("clone");
	err = agent_attach();
	if (err) {
		/* A program started by hand with our LD_PRELOAD but no arena.
		 * Written piece by piece: printf would allocate its buffer. */
		if (err != -ENOENT) {
			const char *name = strerrorname_np(-err);
			struct iovec msg[3] = {
				{ "cdt agent: cannot attach to the arena (", 39 },
				{ (void *)(name ? name : "?"), strlen(name ? name : "?") },
				{ "); not profiling\n", 17 },
			};

			(void)writev(2, msg, 3);
		}
		return;
	}
	fds_init();
	agent_text_find();
	agent_g.cfg = agent_g.arena.hdr->cfg;
	agent_g.cfg.tool[sizeof(agent_g.cfg.tool) - 1] = '\0';
	if (agent_g.cfg.nevents > AGENT_MAX_EVENTS)
		agent_g.cfg.nevents = AGENT_MAX_EVENTS;
	if (agent_g.cfg.ncounters > AGENT_MAX_COUNTERS)
		agent_g.cfg.ncounters = AGENT_MAX_COUNTERS;
	agent_g.pid = getpid();
	tool = agent_tool_find(agent_g.cfg.tool);
	agent_g.tool = tool;
	if (!tool) {
		agent_error(EINVAL, "agent: unknown tool; not profiling");
		return;
	}
	err = decode_init();
	if (err) {
		agent_error(-err, "agent: instruction decoder failed to initialize");
		return;
	}
	err = soft_init();
	if (err) {
		agent_error(-err, "agent: no memory for the sample decoder's table");
		return;
	}
	err = agent_states(tool->state_size);
	if (!err && tool->init)
		err = tool->init(agent_g.cfg.params);
	if (err) {
		agent_error(-err, "agent: the tool could not set up; not profiling");
		return;
	}
	err = sigchain_install();
	if (err) {
		agent_error(-err, "agent: cannot install the SIGTRAP handler");
		return;
	}
	agent_g.active = 1;
	agent_proc_record(0, NULL);
	mmaps_record();
	functab_update();
	pthread_atfork(NULL, NULL, agent_atfork_child);
	/* Now: the lookup takes the loader lock, which a fork child cannot. */
	agent_real_exit = (void (*)(int))agent_next("_exit");
	jumps_init();
	agent_thread_start(1, 0);
}
