// SPDX-License-Identifier: GPL-2.0-only
/*
 * First touch and migrations, watched from outside: on each CPU, a page
 * fault and a CPU migration software event on the program's pid,
 * inherited by its threads and children, sampled at every occurrence
 * into one ring the front end reads while the program runs.
 *
 * Why from the front end: the program takes no signal for a fault (a
 * handler per fault would cost it microseconds per page), and the
 * kernel writes each sample into the ring in the faulting thread's
 * context, so thread, CPU, data address and IP are exact.  Per-CPU
 * events, because the kernel refuses to map the ring of an inherited
 * event that follows a task on every CPU (perf record does the same).
 * A software event sampled at every occurrence is never throttled
 * (perf_swevent_overflow), so no fault is missed; a full ring is, and
 * is counted (REC_NUMA_LOST).  Faults in kernel mode (a read(2) into a
 * fresh buffer) are left out: exclude_kernel, which perf_event_paranoid
 * 2 asks of a user.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/array.h"
#include "lib/core/pmu_events.h"
#include "lib/tools/numa/parts.h"

#define FAULT_RING_PAGES 512 /* 2 MiB a CPU: about 37000 samples */
#define FAULT_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU)

struct fault_sample {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time, addr;
	uint32_t cpu, res;
};

struct fault_ring {
	int fault_fd, migr_fd;
	uint64_t fault_id, migr_id;
	struct perf_event_mmap_page *pg;
	size_t len;
	struct rec_numa_fault run; /* faults not yet written: one run of pages */
};

static int fault_open(pid_t pid, int cpu, uint64_t config, int group, uint64_t *id)
{
	struct perf_event_attr a = { 0 };
	int fd, err;

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_period = 1;
	a.sample_type = FAULT_SAMPLE_TYPE;
	a.inherit = 1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC; /* the agent's clock */
	fd = events_perf_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	if ((group >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, group) < 0) ||
	    ioctl(fd, PERF_EVENT_IOC_ID, id) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int faults_open(struct faults *f, pid_t pid, int ncpus)
{
	long psz = sysconf(_SC_PAGESIZE);
	int err = 0;

	memset(f, 0, sizeof(*f));
	f->r = calloc((size_t)ncpus, sizeof(*f->r));
	if (!f->r)
		return -ENOMEM;
	for (int c = 0; c < ncpus; c++) {
		struct fault_ring *r = &f->r[c];

		r->migr_fd = -1;
		f->n = (size_t)c + 1;
		r->fault_fd = fault_open(pid, c, PERF_COUNT_SW_PAGE_FAULTS, -1, &r->fault_id);
		if (r->fault_fd == -ENODEV)
			continue; /* an offline CPU: nothing runs there */
		if (r->fault_fd < 0) {
			err = r->fault_fd;
			goto out;
		}
		/* Without CAP_IPC_LOCK the rings of a user share
		 * perf_event_mlock_kb (516 KiB by default): halve until they fit. */
		for (size_t pages = f->ring_pages ? f->ring_pages : FAULT_RING_PAGES;; pages /= 2) {
			r->len = (pages + 1) * (size_t)psz;
			r->pg = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED,
				     r->fault_fd, 0);
			if (r->pg != MAP_FAILED) {
				f->ring_pages = pages;
				break;
			}
			r->pg = NULL;
			err = -errno;
			if (err != -EPERM || pages <= 1)
				goto out;
			err = 0;
		}
		r->migr_fd = fault_open(pid, c, PERF_COUNT_SW_CPU_MIGRATIONS, r->fault_fd,
					&r->migr_id);
		if (r->migr_fd < 0) {
			err = r->migr_fd;
			goto out;
		}
	}
out:
	if (err)
		faults_close(f);
	return err;
}

void faults_close(struct faults *f)
{
	for (size_t c = 0; c < f->n; c++) {
		if (f->r[c].pg)
			munmap(f->r[c].pg, f->r[c].len);
		if (f->r[c].fault_fd >= 0)
			close(f->r[c].fault_fd);
		if (f->r[c].migr_fd >= 0)
			close(f->r[c].migr_fd);
	}
	free(f->r);
	memset(f, 0, sizeof(*f));
}

static int faults_flush(struct faults *f, struct fault_ring *r, struct profile *p)
{
	int err = 0;

	if (r->run.npages) {
		r->run.h.size = sizeof(r->run);
		r->run.h.type = REC_NUMA_FAULT;
		err = profile_add(p, &r->run.h);
		if (!err)
			err = f->on_fault ? f->on_fault(f->ctx, &r->run) : 0;
		f->faults += r->run.npages;
		r->run.npages = 0;
	}
	return err;
}

static int faults_take(struct faults *f, struct fault_ring *r, const struct fault_sample *s,
		       struct profile *p)
{
	struct rec_numa_migrate m = { 0 };
	struct rec_numa_fault *run = &r->run;
	uint64_t page = s->addr & ~4095ull;

	if (s->id == r->migr_id) {
		m.h.size = sizeof(m);
		m.h.type = REC_NUMA_MIGRATE;
		m.pid = s->pid;
		m.tid = s->tid;
		m.time = s->time;
		m.cpu = s->cpu;
		f->migrations++;
		return profile_add(p, &m.h);
	}
	if (run->npages && run->pid == s->pid && run->tid == s->tid && run->ip == s->ip &&
	    run->cpu == s->cpu && page == run->addr + (uint64_t)run->npages * 4096 &&
	    run->npages < UINT32_MAX) {
		run->npages++;
		return 0;
	}
	int err = faults_flush(f, r, p);

	if (err)
		return err;
	*run = (struct rec_numa_fault){ .pid = s->pid, .tid = s->tid, .time = s->time,
					.addr = page, .ip = s->ip, .cpu = s->cpu, .npages = 1 };
	return 0;
}

/* What the kernel wrote since the last read; copies what wraps.  1 if
 * that was an eighth of the ring or more: come back sooner. */
static int faults_read_ring(struct faults *f, struct fault_ring *r, struct profile *p)
{
	struct perf_event_mmap_page *pg = r->pg;
	const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
	uint64_t size = pg->data_size, head, tail;
	int busy;
	union {
		struct perf_event_header h;
		struct fault_sample s;
		struct { struct perf_event_header h; uint64_t id, lost; } lost;
		unsigned char b[256];
	} u;
	int err = 0;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	busy = head - tail >= size / 8;
	while (tail < head && !err) {
		uint64_t off = tail % size;
		size_t len, first;

		/* Records are 8-byte multiples at 8-byte offsets: a header
		 * never wraps. */
		memcpy(&u.h, data + off, sizeof(u.h));
		len = u.h.size;
		if (len < sizeof(u.h) || len > head - tail)
			break; /* cannot be: the kernel writes whole records */
		first = off + len <= size ? len : (size_t)(size - off);
		if (len <= sizeof(u)) {
			memcpy(u.b, data + off, first);
			memcpy(u.b + first, data, len - first);
			if (u.h.type == PERF_RECORD_SAMPLE && len >= sizeof(u.s))
				err = faults_take(f, r, &u.s, p);
			else if (u.h.type == PERF_RECORD_LOST && len >= sizeof(u.lost))
				f->lost += u.lost.lost;
		}
		tail += len;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return err ? err : busy;
}

int faults_poll(struct faults *f, struct profile *p, int final)
{
	int err = 0, busy = 0;

	for (size_t c = 0; c < f->n && !err; c++) {
		if (!f->r[c].pg)
			continue;
		err = faults_read_ring(f, &f->r[c], p);
		busy |= err > 0;
		/* A run that goes on is split here: its pages are asked for now. */
		if (err >= 0)
			err = faults_flush(f, &f->r[c], p);
	}
	if (!err && final && f->lost) {
		struct rec_numa_lost l = { .h = { sizeof(l), REC_NUMA_LOST, 0 },
					   .what = NUMA_LOST_EVENTS, .count = f->lost };

		err = profile_add(p, &l.h);
	}
	return err ? err : busy;
}
