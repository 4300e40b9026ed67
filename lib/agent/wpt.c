// SPDX-License-Identifier: GPL-2.0-only
/*
 * The watchpoint manager: the four debug registers of a thread as perf
 * breakpoint events.  A slot's event is opened on first use and afterwards
 * retargeted with PERF_EVENT_IOC_MODIFY_ATTRIBUTES (one ioctl, no new fd);
 * disarming disables it.  The thread a set belongs to may be the caller or
 * a sibling: the event is opened for set->tid and traps there.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/agent/agent.h"

void wpt_init(struct wpt_set *s, pid_t tid)
{
	s->tid = tid;
	atomic_store(&s->busy, 0);
	for (int i = 0; i < WPT_SLOTS; i++) {
		s->slot[i].fd = -1;
		s->slot[i].armed = 0;
	}
}

static int wpt_attr(struct perf_event_attr *a, int slot, uint64_t addr,
		    unsigned len, enum wpt_type type)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->sample_period = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = SIGDATA_MAGIC | SIGDATA_WPT | (uint64_t)slot;
	a->bp_addr = addr;
	switch (type) {
	case WPT_X:
		a->bp_type = HW_BREAKPOINT_X;
		a->bp_len = sizeof(long);
		return 0;
	case WPT_W:
		a->bp_type = HW_BREAKPOINT_W;
		break;
	case WPT_R:
	case WPT_RW:
		a->bp_type = HW_BREAKPOINT_RW;
		break;
	default:
		return -EINVAL;
	}
	if (len != 1 && len != 2 && len != 4 && len != 8)
		return -EINVAL;
	if (addr & (len - 1))
		return -EINVAL; /* x86 debug registers need natural alignment */
	a->bp_len = len;
	return 0;
}

static int wpt_lock(struct wpt_set *s)
{
	int expect = 0;

	return atomic_compare_exchange_strong(&s->busy, &expect, 1) ? 0 : -EBUSY;
}

static void wpt_unlock(struct wpt_set *s)
{
	atomic_store(&s->busy, 0);
}

int wpt_arm(struct wpt_set *s, int slot, uint64_t addr, unsigned len,
	    enum wpt_type type, uint64_t cookie)
{
	struct perf_event_attr a;
	struct wpt_slot *w;
	int err;

	if (slot < 0 || slot >= WPT_SLOTS)
		return -EINVAL;
	err = wpt_attr(&a, slot, addr, len, type);
	if (err)
		return err;
	err = wpt_lock(s);
	if (err)
		return err;
	w = &s->slot[slot];
	/* Disable the old target before the cookie changes under a trap. */
	w->armed = 0;
	if (w->fd >= 0) {
		if (ioctl(w->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) < 0)
			err = -errno;
	} else {
		int fd = agent_perf_open(&a, s->tid, -1, &w->id);

		if (fd < 0)
			err = fd;
		else
			w->fd = fd;
	}
	if (!err) {
		w->addr = addr;
		w->len = (uint8_t)a.bp_len;
		w->type = (uint8_t)type;
		w->cookie = cookie;
		w->armed = 1;
	}
	wpt_unlock(s);
	return err;
}

int wpt_disarm(struct wpt_set *s, int slot)
{
	int err;

	if (slot < 0 || slot >= WPT_SLOTS)
		return -EINVAL;
	err = wpt_lock(s);
	if (err)
		return err;
	if (s->slot[slot].armed && ioctl(s->slot[slot].fd, PERF_EVENT_IOC_DISABLE, 0) < 0)
		err = -errno;
	s->slot[slot].armed = 0;
	wpt_unlock(s);
	return err;
}

int wpt_pause(struct wpt_set *s)
{
	/* A sibling arming one of ours holds the set for a few system
	 * calls, and never waits on this thread; but it may be preempted
	 * meanwhile (a busy neighbour: a few ms).  Bounded all the same. */
	for (int spin = 0; wpt_lock(s); spin++)
		if (spin >= 100000)
			return -EBUSY;
		else
			sched_yield();
	for (int i = 0; i < WPT_SLOTS; i++)
		if (s->slot[i].armed)
			ioctl(s->slot[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	return 0;
}

void wpt_resume(struct wpt_set *s)
{
	for (int i = 0; i < WPT_SLOTS; i++)
		if (s->slot[i].armed)
			ioctl(s->slot[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	wpt_unlock(s);
}

int wpt_armed(const struct wpt_set *s)
{
	for (int i = 0; i < WPT_SLOTS; i++)
		if (s->slot[i].armed)
			return 1;
	return 0;
}

void wpt_prepare(struct wpt_set *s)
{
	static const uint64_t spot; /* any user address: the event stays disabled */
	struct perf_event_attr a;

	/* A sibling arming a slot now opens it itself. */
	if (wpt_lock(s))
		return;
	for (int i = 0; i < WPT_SLOTS; i++) {
		int fd;

		if (s->slot[i].fd >= 0 || wpt_attr(&a, i, (uint64_t)(uintptr_t)&spot, 8, WPT_W))
			continue;
		/* Arming later changes only what MODIFY_ATTRIBUTES may change. */
		a.disabled = 1;
		fd = agent_perf_open(&a, s->tid, -1, &s->slot[i].id);
		if (fd >= 0)
			s->slot[i].fd = fd;
	}
	wpt_unlock(s);
}

void wpt_close(struct wpt_set *s)
{
	for (int i = 0; i < WPT_SLOTS; i++) {
		agent_perf_close(&s->slot[i].fd, s->slot[i].id);
		s->slot[i].armed = 0;
	}
}

void wpt_on_trap(struct agent_thread *t, int slot, siginfo_t *si, ucontext_t *uc,
		 uint64_t t0)
{
	struct wpt_slot *w;
	struct rec_trap tr = { 0 };
	struct decode_regs regs;
	struct insn_access acc;
	unsigned char code[96];
	size_t before, n;

	if (slot < 0 || slot >= WPT_SLOTS) {
		t->st.traps++;
		return;
	}
	w = &t->wp.slot[slot];
	tr.h.size = sizeof(tr);
	tr.h.type = REC_TRAP;
	tr.pid = (uint32_t)agent_g.pid;
	tr.tid = (uint32_t)t->tid;
	tr.time = t0;
	tr.wp_addr = (uint64_t)si->si_addr;
	tr.cpu = (uint32_t)sched_getcpu();
	tr.slot = (uint8_t)slot;
	tr.cookie = w->cookie;
	decode_regs_from_ucontext(&regs, uc, t->fs_base, 0);
	tr.ip = regs.rip;
	/* An execute breakpoint stops at its address.  Anywhere else it
	 * was raised in cdt's handler and came at its return. */
	if (w->type == WPT_X && regs.rip != tr.wp_addr) {
		t->ext.stray++;
		tr.flags = TRAP_F_EXEC | TRAP_F_LATE;
	} else if (agent_g.tool->flags & AGENT_TOOL_RAW_TRAPS) {
		t->st.traps++;
		tr.insn_ip = regs.rip;
		tr.flags = w->type == WPT_X ? TRAP_F_EXEC : 0;
	} else if (w->type == WPT_X) {
		/* Execute breakpoints trap before the instruction runs. */
		t->st.traps++;
		tr.insn_ip = regs.rip;
		tr.flags = TRAP_F_EXEC | TRAP_F_INSN;
	} else {
		/* Data breakpoints trap after the access: decode backwards. */
		t->st.traps++;
		before = 64;
		n = agent_read_code(regs.rip - before, code, sizeof(code) - 16,
				    (regs.rip & 4095) >= before);
		if (!n) {
			/* The page before is unmapped: decode from the IP's page. */
			before = regs.rip & 4095;
			n = agent_read_code(regs.rip - before, code, before + 16, 1);
		}
		if (n > before &&
		    decode_prev_access(code, before, n - before, &regs, &acc) == 1) {
			tr.insn_ip = acc.ip;
			tr.size = acc.size;
			tr.kind = acc.kind;
			tr.flags = TRAP_F_INSN;
			if (acc.flags & ACC_F_ADDR) {
				tr.acc_addr = acc.addr;
				tr.flags |= TRAP_F_ADDR;
			}
		}
	}
	if (agent_g.tool->trap)
		agent_g.tool->trap(t, &tr, uc);
	t->st.trap_ns += agent_now() - t0;
}
