// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampling events of one thread, opened by the thread itself (pid 0)
 * so each thread gets its own synchronous SIGTRAPs and, for the pmu
 * source, its own ring buffer.  Both sources share this code; only the
 * pmu source maps a ring.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/agent/agent.h"
#include "lib/wire/perf_attr.h"

static size_t pmu_ring_len(void)
{
	return (1 + (size_t)agent_g.cfg.ring_pages) * (size_t)getpagesize();
}

int pmu_open(struct agent_thread *t, int i, uint64_t period)
{
	const struct agent_event *ev = &agent_g.cfg.ev[i];
	struct perf_event_attr a;
	int fd;

	perf_attr_init(ev, &a);
	a.sample_period = period;
	a.sig_data = SIGDATA_MAGIC | SIGDATA_SAMPLE | (uint64_t)i;
	/* A tool that takes ticks wants the overflow, not its record. */
	if (agent_g.cfg.source == SRC_PMU && !agent_g.tool->tick) {
		a.sample_type = PERF_ATTR_SAMPLE_TYPE;
		a.wakeup_events = 1;
	}
	fd = agent_perf_open(&a, 0, -1, &t->ev_id[i]);
	if (fd < 0)
		return fd;
	t->ev_fd[i] = fd;
	if (agent_g.cfg.source == SRC_PMU && !agent_g.tool->tick) {
		void *ring = mmap(NULL, pmu_ring_len(), PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, 0);

		if (ring == MAP_FAILED) {
			int err = -errno;

			agent_perf_close(&t->ev_fd[i], t->ev_id[i]);
			return err;
		}
		t->ev_ring[i] = ring;
	}
	return 0;
}

void pmu_close(struct agent_thread *t, int i)
{
	if (t->ev_ring[i]) {
		munmap(t->ev_ring[i], pmu_ring_len());
		t->ev_ring[i] = NULL;
	}
	agent_perf_close(&t->ev_fd[i], t->ev_id[i]);
}

/* Layout of PERF_RECORD_SAMPLE for PERF_ATTR_SAMPLE_TYPE, in the kernel's order. */
struct pmu_sample {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint32_t cpu, res;
	uint64_t weight;
	uint64_t data_src;
};

static void pmu_emit(struct agent_thread *t, const struct pmu_sample *ps, int i)
{
	struct rec_sample s = { 0 };
	struct decode_regs regs = { 0 };
	struct insn_access acc;
	unsigned char code[16];
	size_t n;

	s.h.size = sizeof(s);
	s.h.type = REC_SAMPLE;
	s.pid = ps->pid;
	s.tid = ps->tid;
	s.time = ps->time;
	s.ip = ps->ip;
	s.addr = ps->addr;
	s.cpu = ps->cpu;
	s.kind = (uint8_t)agent_g.cfg.ev[i].kind;
	s.source = SRC_PMU;
	s.weight = ps->weight;
	s.data_src = ps->data_src;
	if (ps->addr) {
		s.flags |= SAMPLE_F_ADDR;
		objects_on_sample(t, ps->addr);
	}
	/* The precise IP gives the instruction; its operand gives the size. */
	regs.rip = ps->ip;
	n = agent_read_code(ps->ip, code, 15, 0);
	if (n && decode_access(code, n, &regs, &acc) == 1) {
		s.size = acc.size;
		if (acc.kind == MEM_RMW)
			s.kind = MEM_RMW;
		if (acc.flags & ACC_F_STACK)
			s.flags |= SAMPLE_F_STACK;
	}
	t->st.mem_samples++;
	if (agent_g.tool->sample)
		agent_g.tool->sample(t, &s);
}

void pmu_on_sample(struct agent_thread *t, int i, uint64_t t0)
{
	struct perf_event_mmap_page *pg = t->ev_ring[i];
	unsigned char *data;
	uint64_t head, tail, size;

	t->st.samples++;
	if (!pg)
		return;
	data = (unsigned char *)pg + pg->data_offset;
	size = pg->data_size;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (tail < head) {
		struct perf_event_header eh;
		union {
			struct pmu_sample s;
			unsigned char b[256];
		} rec;
		uint64_t off = tail % size;

		/* Records may wrap around the ring's end: copy them out. */
		for (size_t k = 0; k < sizeof(eh); k++)
			((unsigned char *)&eh)[k] = data[(off + k) % size];
		if (eh.size < sizeof(eh))
			break;
		if (eh.type == PERF_RECORD_SAMPLE && eh.size >= sizeof(rec.s) &&
		    eh.size <= sizeof(rec)) {
			for (size_t k = 0; k < eh.size; k++)
				rec.b[k] = data[(off + k) % size];
			pmu_emit(t, &rec.s, i);
		} else if (eh.type == PERF_RECORD_LOST) {
			t->st.dropped++;
		}
		tail += eh.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	t->st.handler_ns += agent_now() - t0;
}

size_t agent_read_code(uint64_t addr, void *buf, size_t len, int mapped)
{
	uint64_t page = (uint64_t)getpagesize();
	size_t first = (size_t)(page - (addr & (page - 1)));
	struct iovec local, remote;
	ssize_t n;

	if (!addr)
		return 0;
	if (mapped && first >= len) {
		memcpy(buf, (const void *)addr, len);
		return len;
	}
	/* Crossing into a page that may be unmapped: let the kernel check. */
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)addr;
	remote.iov_len = len;
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n > 0)
		return (size_t)n;
	if (!mapped)
		return 0;
	memcpy(buf, (const void *)addr, first);
	return first;
}
