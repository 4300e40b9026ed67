// SPDX-License-Identifier: GPL-2.0-only
/*
 * Threads: a slot each, an alternate signal stack (so handler frames never
 * touch watched stack data) and the sampling events, opened by the thread
 * itself when it starts.  New threads are caught by wrapping
 * pthread_create's start routine; a thread-specific key's destructor ends
 * them.
 */
#include <asm/prctl.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/agent/agent.h"

/* Each thread's slot, as its value of agent_key; the key's destructor ends
 * the thread.  The first 32 keys' values are kept in the thread's own
 * descriptor: setting one allocates nothing. */
pthread_key_t agent_key;
atomic_int agent_key_made;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

/* glibc clears the value before it calls the destructor: the thread's
 * handlers find its slot until it is free. */
static void thread_key_dtor(void *p)
{
	struct agent_thread *t = p;

	if (!atomic_load(&t->used))
		return;
	pthread_setspecific(agent_key, t);
	agent_thread_stop(t);
}

static void thread_key_make(void)
{
	if (!pthread_key_create(&agent_key, thread_key_dtor))
		atomic_store_explicit(&agent_key_made, 1, memory_order_release);
}

static struct agent_thread *thread_slot_claim(void)
{
	for (int i = 0; i < AGENT_MAX_THREADS; i++) {
		int expect = 0, n;

		if (!atomic_compare_exchange_strong(&agent_g.thr[i].used, &expect, 1))
			continue;
		n = atomic_load(&agent_g.nthr);
		while (n <= i && !atomic_compare_exchange_weak(&agent_g.nthr, &n, i + 1))
			;
		return &agent_g.thr[i];
	}
	return NULL;
}

/*
 * The slot's alternate stack, mapped by the first thread that had the
 * slot and kept for the next: an mmap and a munmap per thread, each
 * taking the process's mmap lock for writing while the program's other
 * threads start and end, were most of what a short-lived thread cost
 * under cdt (measured over 20000 threads, 64 alive at once: 110 us of
 * wall time a thread in mmap and sigaltstack, 8.5 us in munmap).
 */
static int thread_altstack(struct agent_thread *t)
{
	stack_t ss;

	if (!t->altstack)
		t->altstack = mmap(NULL, AGENT_ALTSTACK, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (t->altstack == MAP_FAILED) {
		t->altstack = NULL;
		return -errno;
	}
	ss.ss_sp = t->altstack;
	ss.ss_size = AGENT_ALTSTACK;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) < 0)
		return -errno;
	return 0;
}

static void thread_record(struct agent_thread *t, uint64_t created)
{
	struct rec_thread r = { 0 };

	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = created;
	r.cpu = (uint32_t)sched_getcpu();
	r.flags = t->flags;
	prctl(PR_GET_NAME, r.name, 0, 0, 0);
	arena_write(&agent_g.arena, &r, sizeof(r), REC_THREAD);
}

/* Async-signal-safe: a stack record and one syscall for the name. */
void agent_thread_send(struct agent_thread *t, uint16_t type)
{
	struct rec_thread_end r = { 0 };
	int own = t == agent_self();

	r.pid = (uint32_t)agent_g.pid;
	r.tid = (uint32_t)t->tid;
	r.time = agent_now();
	r.st = t->st;
	clock_sync(t);
	r.ext = t->ext;
	r.ext.cpu_ns = agent_cpu_of(t->tid);
	if (own)
		prctl(PR_GET_NAME, r.name, 0, 0, 0);
	/* Only t counts into its stats: at exit another thread flushes them. */
	if (arena_write(&agent_g.arena, &r, sizeof(r), type) && own)
		t->st.dropped++;
}

void agent_thread_tick(struct agent_thread *t, uint64_t now)
{
	if (now - t->stats_time < AGENT_STATS_NS)
		return;
	t->stats_time = now;
	agent_thread_send(t, REC_THREAD_STATS);
}

/* t starts profiling the calling thread. */
static struct agent_thread *thread_begin(struct agent_thread *t, int main_thread,
					 uint64_t created)
{
	const struct agent_tool *tool = agent_g.tool;
	unsigned long fs = 0;
	uint64_t now;
	int err;

	now = agent_now();
	t->state = agent_g.states ? agent_g.states + (size_t)(t - agent_g.thr) * agent_g.state_stride
				  : NULL;
	if (t->state)
		memset(t->state, 0, agent_g.state_stride);
	t->tid = gettid();
	t->flags = main_thread ? THREAD_F_MAIN : 0;
	memset(&t->st, 0, sizeof(t->st));
	t->stats_time = now;
	t->count_time = now;
	syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
	t->fs_base = fs;
	wpt_init(&t->wp, t->tid);
	err = thread_altstack(t);
	if (err)
		agent_error(-err, "agent: no alternate signal stack for a thread");
	memset(&t->ext, 0, sizeof(t->ext));
	/* Samples from here on would describe cdt's set-up, not the program. */
	t->quiet++;
	pthread_once(&thread_key_once, thread_key_make);
	if (!atomic_load(&agent_key_made) || pthread_setspecific(agent_key, t)) {
		agent_error(EAGAIN, "agent: no thread-specific key left; a thread is not profiled");
		t->quiet--;
		atomic_store(&t->used, 0);
		return NULL;
	}
	err = clock_open(t);
	/* Under a lowered limit fds.c has said it once for all threads. */
	if (err == -EMFILE && atomic_load(&agent_g.fds_low))
		t->flags |= THREAD_F_NOEVENT;
	else if (err) {
		t->flags |= THREAD_F_NOEVENT;
		agent_error(-err, err == -EMFILE ?
			    "agent: out of file descriptors (EMFILE) opening a thread's "
			    "sampling event; raise 'ulimit -n'" :
			    "agent: cannot open a thread's sampling event");
	}
	if ((err = pair_open(t)) && !(err == -EMFILE && atomic_load(&agent_g.fds_low)))
		agent_error(-err, "agent: cannot open a thread's follow-up sample event");
	err = counters_open(t);
	if (err && !(err == -EMFILE && atomic_load(&agent_g.fds_low)))
		agent_error(-err, err == -EMFILE ?
			    "agent: out of file descriptors (EMFILE) opening a thread's "
			    "counters; raise 'ulimit -n'" :
			    "agent: cannot open a thread's counters");
	thread_record(t, created ? created : now);
	objects_thread_start(t);
	if (tool->thread_start)
		tool->thread_start(t);
	t->quiet--;
	return t;
}

struct agent_thread *agent_thread_start(int main_thread, uint64_t created)
{
	struct agent_thread *t;

	if (!agent_g.active || agent_check_handler())
		return NULL;
	t = thread_slot_claim();
	if (!t) {
		agent_error(ENOSPC, "agent: more live threads than the agent's table holds; "
				    "a thread is not profiled");
		return NULL;
	}
	/* Nothing of the slot's last thread. */
	t->quiet = 0;
	t->believed = 0;
	t->held = t->wpt_held = t->nlater = 0;
	t->steps_left = 0;
	t->soft_cpu0 = 0;
	t->obj_busy = t->obj_own = 0;
	return thread_begin(t, main_thread, created);
}

struct agent_thread *agent_thread_restart(struct agent_thread *t)
{
	if (agent_g.active && !agent_check_handler())
		return thread_begin(t, 1, 0);
	atomic_store(&t->used, 0);
	pthread_setspecific(agent_key, NULL);
	return NULL;
}

void agent_thread_stop(struct agent_thread *t)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	if (!t || !atomic_load(&t->used))
		return;
	t->quiet++;
	soft_thread_stop(t);
	clock_sync(t);
	clock_close(t, 0);
	pair_close(t);
	counters_tick(t, agent_now(), 1);
	if (agent_g.tool->thread_stop)
		agent_g.tool->thread_stop(t);
	counters_close(t);
	wpt_close(&t->wp);
	objects_thread_stop(t);
	/* Still ours, so the record carries the name the thread ends with. */
	agent_thread_send(t, REC_THREAD_END);
	pthread_setspecific(agent_key, NULL);
	/* Off it before the slot is free; the next thread of the slot reuses it. */
	if (t->altstack)
		sigaltstack(&ss, NULL);
	t->quiet--;
	atomic_store(&t->used, 0);
}

struct thread_boot {
	void *(*fn)(void *);
	void *arg;
	uint64_t created;
	unsigned believed; /* the creator's mask of cdt's signals, as it believes */
	atomic_int used;
};

/* What a new thread's trampoline needs, in the agent's own memory: a
 * malloc per pthread_create would move the program's heap. */
static struct thread_boot thread_boots[AGENT_MAX_THREADS];
static atomic_uint thread_boot_hint;

static struct thread_boot *thread_boot_claim(void)
{
	unsigned h = atomic_fetch_add(&thread_boot_hint, 1);

	for (unsigned i = 0; i < AGENT_MAX_THREADS; i++) {
		struct thread_boot *b = &thread_boots[(h + i) % AGENT_MAX_THREADS];
		int expect = 0;

		if (atomic_compare_exchange_strong(&b->used, &expect, 1))
			return b;
	}
	return NULL;
}

static void *thread_trampoline(void *p)
{
	struct thread_boot *boot = p, b = { .fn = boot->fn, .arg = boot->arg,
					    .created = boot->created, .believed = boot->believed };

	struct agent_thread *t;

	atomic_store(&boot->used, 0);
	t = agent_thread_start(0, b.created);
	if (t)
		t->believed = b.believed;
	return b.fn(b.arg);
}

AGENT_API int pthread_create(pthread_t *th, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	struct thread_boot *b;
	int err;

	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				void *))agent_next("pthread_create");
	if (!real)
		return ENOSYS;
	if (!agent_g.active)
		return real(th, attr, fn, arg);
	b = thread_boot_claim();
	if (!b) /* more threads being started at once than the agent has slots */
		return real(th, attr, fn, arg);
	b->fn = fn;
	b->arg = arg;
	/* Taken here, not when the thread first runs: threads are numbered
	 * in creation order, and the scheduler may start them in another. */
	b->created = agent_now();
	b->believed = sigchain_believed_get();
	err = real(th, attr, thread_trampoline, b);
	if (err)
		atomic_store(&b->used, 0);
	return err;
}
