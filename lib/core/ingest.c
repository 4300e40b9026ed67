// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/ingest.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/array.h"
#include "lib/core/records.h"

void ingest_init(struct ingest *in, const struct arena *a, const struct prof_ops *tool)
{
	memset(in, 0, sizeof(*in));
	in->a = a;
	in->tool = tool;
	in->tail = atomic_load_explicit(&a->hdr->tail, memory_order_relaxed);
}

void ingest_free(struct ingest *in)
{
	free(in->buf);
	in->buf = NULL;
	in->bufcap = 0;
}

/* The description of a type the agent may write, or NULL. */
static const struct rec_desc *ingest_desc(const struct ingest *in, uint16_t type)
{
	const struct rec_desc *t = NULL;

	if (type < REC_TOOL_BASE) {
		t = rec_core(type);
	} else {
		for (size_t i = 0; in->tool && i < in->tool->ntypes; i++)
			if (in->tool->types[i].type == type)
				t = &in->tool->types[i];
	}
	return t && (t->flags & REC_T_AGENT) ? t : NULL;
}

static void ingest_reject(struct ingest *in, enum rec_reject why, uint64_t bytes,
			  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void ingest_reject(struct ingest *in, enum rec_reject why, uint64_t bytes,
			  const char *fmt, ...)
{
	va_list ap;

	if (!in->rejected[why]++) {
		va_start(ap, fmt);
		vsnprintf(in->why[why], sizeof(in->why[why]), fmt, ap);
		va_end(ap);
	}
	in->skipped_bytes += bytes;
}

/* Zero ring bytes [from, to) (positions ever), so that nothing consumed
 * looks like a finished record when the ring comes round again. */
static void ingest_clear(const struct ingest *in, uint64_t from, uint64_t to)
{
	uint64_t size = in->a->ring_size;

	if (to - from >= size) {
		memset(in->a->ring, 0, size);
		return;
	}
	while (from < to) {
		uint64_t off = from & (size - 1);
		uint64_t n = to - from < size - off ? to - from : size - off;

		memset(in->a->ring + off, 0, n);
		from += n;
	}
}

/* Everything up to head is lost: no record can be framed at the tail. */
static void ingest_unframed(struct ingest *in, uint64_t head)
{
	ingest_clear(in, in->tail, head);
	in->tail = head;
}

static int ingest_copy(struct ingest *in, const struct rec_hdr *h, const unsigned char *src)
{
	if (array_grow(&in->buf, &in->bufcap, h->size - 1, 1))
		return -ENOMEM;
	memcpy(in->buf, src, h->size);
	/* The header as checked, whatever the program wrote since. */
	memcpy(in->buf, h, sizeof(*h));
	((struct rec_hdr *)in->buf)->flags = 0;
	return 0;
}

/* Check the copy; 1 if it goes on to fn, 0 if it was refused. */
static int ingest_check(struct ingest *in, const struct rec_hdr *h)
{
	const struct rec_desc *t = ingest_desc(in, h->type);
	unsigned char buf[REC_FIXED_MAX] __attribute__((aligned(8)));
	char why[160];
	int short_rec;

	if (!t) {
		const struct rec_desc *c = rec_core(h->type);

		ingest_reject(in, REJ_TYPE, h->size, "type %u%s%s%s", h->type, c ? " (" : "",
			      c ? c->name : "", c ? ", written only to files)" :
			      " is not one the agent writes");
		return 0;
	}
	if (!rec_accept(t, h, buf, why, sizeof(why), &short_rec)) {
		ingest_reject(in, short_rec ? REJ_SIZE : REJ_FIELD, h->size, "%s", why);
		return 0;
	}
	return 1;
}

/* An unfinished record at the tail: 1 to wait for it, 0 if its writer is
 * gone (final) or it has been unfinished too long to be in a handler. */
static int ingest_wait(struct ingest *in, int final, uint64_t now)
{
	if (final)
		return 0;
	if (in->stuck_tail != in->tail + 1) {
		in->stuck_tail = in->tail + 1; /* + 1: 0 means none */
		in->stuck_since = now;
		return 1;
	}
	return now - in->stuck_since < INGEST_STUCK_NS;
}

int ingest_drain(struct ingest *in, int final, uint64_t now,
		 int (*fn)(const struct rec_hdr *r, void *arg), void *arg)
{
	const struct arena *a = in->a;
	uint64_t size = a->ring_size, mask = size - 1;
	/* Records are at most a quarter of the ring (arena_reserve). */
	uint32_t max = size / 4 < REC_MAX_SIZE ? (uint32_t)(size / 4) : REC_MAX_SIZE;
	uint64_t head = atomic_load_explicit(&a->hdr->head, memory_order_acquire);
	int err = 0;

	if (head < in->tail || head - in->tail > size || head % REC_ALIGN) {
		/* A forged head: nothing in the ring can be placed (records are
		 * whole multiples of 8, so no true head is misaligned either),
		 * and how much it held is unknown: no bytes are counted.  Start
		 * again from our tail; writers reserve from there. */
		ingest_reject(in, REJ_FRAME, 0, "the ring's head %llu cannot follow its tail %llu",
			      (unsigned long long)head, (unsigned long long)in->tail);
		memset(a->ring, 0, size);
		atomic_store_explicit(&a->hdr->head, in->tail, memory_order_release);
		head = in->tail;
	}
	while (in->tail < head && !err) {
		uint64_t off = in->tail & mask;
		const unsigned char *src = a->ring + off;
		uint16_t flags = atomic_load_explicit(
			(_Atomic uint16_t *)(src + offsetof(struct rec_hdr, flags)),
			memory_order_acquire);
		int committed = flags & REC_F_COMMITTED;
		struct rec_hdr h;
		char why[160] = "";

		if (!committed && ingest_wait(in, final, now))
			break;
		memcpy(&h, src, sizeof(h));
		if (rec_check_frame(&h, max, why, sizeof(why)) || off + h.size > size) {
			/* Nothing after it can be found: the rest of the ring is lost. */
			if (committed || !final)
				ingest_reject(in, REJ_FRAME, head - in->tail, "%s at ring offset %llu",
					      why[0] ? why : "a record past the ring's end",
					      (unsigned long long)off);
			else
				in->unfinished_bytes += head - in->tail; /* died before its size */
			ingest_unframed(in, head);
			break;
		}
		if (!committed) {
			if (final)
				in->unfinished_bytes += h.size; /* its writer died */
			else
				ingest_reject(in, REJ_FRAME, h.size, "the record at ring offset %llu "
					      "was never finished", (unsigned long long)off);
		} else if (h.type != REC_PAD) {
			err = ingest_copy(in, &h, src);
			if (!err && ingest_check(in, (const struct rec_hdr *)in->buf)) {
				err = fn((const struct rec_hdr *)in->buf, arg);
			}
		}
		ingest_clear(in, in->tail, in->tail + h.size);
		in->tail += h.size;
		/* Record by record: writers reuse the space as soon as it is free. */
		atomic_store_explicit(&a->hdr->tail, in->tail, memory_order_release);
	}
	atomic_store_explicit(&a->hdr->tail, in->tail, memory_order_release);
	return err;
}

void ingest_counters(const struct ingest *in, uint64_t wall_ns, unsigned ncpus,
		     struct ingest_counts *c)
{
	const struct arena_hdr *h = in->a->hdr;
	uint64_t most = (wall_ns / INGEST_DROP_MIN_NS + 1) * (ncpus ? ncpus : 1);

	c->dropped = atomic_load_explicit(&h->dropped_records, memory_order_relaxed);
	c->dropped_bytes = atomic_load_explicit(&h->dropped_bytes, memory_order_relaxed);
	c->agents = atomic_load_explicit(&h->agents, memory_order_relaxed);
	/* most < 2^40 or so: the products cannot wrap. */
	c->forged = c->dropped > most || c->dropped_bytes < c->dropped * REC_ALIGN ||
		    c->dropped_bytes > c->dropped * REC_MAX_SIZE;
	if (c->forged)
		c->dropped = c->dropped_bytes = 0;
}

int ingest_task_bound(struct rec_task *t, uint64_t wall_ns)
{
	const struct agent_stats *st = &t->st;
	const struct agent_ext *x = &t->ext;
	uint64_t events = wall_ns / INGEST_EVENT_MIN_NS + 1, drops = wall_ns / INGEST_DROP_MIN_NS + 1;
	int bad = st->samples > events || st->mem_samples > events || st->nomem > events ||
		  st->decode_fail > events || st->steps > events || st->traps > events ||
		  st->chained > events || x->stray > events || x->async > events ||
		  x->sample_cpu_n > events || x->trap_cpu_n > events || x->posix_n > events ||
		  x->perf_switches > events || x->clock_changes > events ||
		  x->in_syscall > events || x->own > events || st->handler_ns > wall_ns || st->trap_ns > wall_ns ||
		  x->sample_cpu_ns > wall_ns || x->trap_cpu_ns > wall_ns || x->cpu_ns > wall_ns ||
		  st->dropped > drops;

	if (!bad)
		return 0;
	memset(&t->st, 0, sizeof(t->st));
	memset(&t->ext, 0, sizeof(t->ext));
	t->flags |= THREAD_F_FORGED;
	return 1;
}

uint64_t ingest_rejected(const struct ingest *in)
{
	uint64_t n = 0;

	for (int i = 0; i < REJ_N; i++)
		n += in->rejected[i];
	return n;
}
