// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/records.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int bad(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/* A string from byte `off` of the record must end inside it, within max. */
static int str_check(const struct rec_hdr *h, size_t off, size_t max, const char *what,
		     char *why, size_t whylen)
{
	size_t n = h->size - off;

	if (n > max)
		n = max;
	if (!memchr((const char *)h + off, 0, n))
		return bad(why, whylen, "%s is not NUL-terminated", what);
	return 0;
}

static int proc_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	return str_check(h, offsetof(struct rec_proc, exe), SIZE_MAX, "exe", why, whylen);
}

static int thread_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	return str_check(h, offsetof(struct rec_thread, name), 16, "thread name", why, whylen);
}

static int thread_end_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	return str_check(h, offsetof(struct rec_thread_end, name), 16, "thread name", why,
			 whylen);
}

static int task_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	return str_check(h, offsetof(struct rec_task, name), 16, "task name", why, whylen);
}

static int proc_end_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_proc_end *e = (const struct rec_proc_end *)h;

	if (h->size >= offsetof(struct rec_proc_end, how) + sizeof(e->how) &&
	    e->how > PROC_END_MAX)
		return bad(why, whylen, "process end kind %u is unknown", e->how);
	return 0;
}

static int error_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	return str_check(h, offsetof(struct rec_error, msg), SIZE_MAX, "message", why, whylen);
}

static int mmap_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_mmap *m = (const struct rec_mmap *)h;

	if (m->start >= m->end)
		return bad(why, whylen, "mapping 0x%llx-0x%llx is empty", (unsigned long long)m->start,
			   (unsigned long long)m->end);
	if (m->build_id_len > sizeof(m->build_id))
		return bad(why, whylen, "build_id_len %u is above %zu", m->build_id_len,
			   sizeof(m->build_id));
	return str_check(h, offsetof(struct rec_mmap, path), SIZE_MAX, "path", why, whylen);
}

/* Enumerations index tables downstream: only known values pass. */
static int sample_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_sample *s = (const struct rec_sample *)h;

	if (s->kind > MEM_RMW)
		return bad(why, whylen, "sample kind %u is unknown", s->kind);
	if (s->source > SRC_PMU)
		return bad(why, whylen, "sample source %u is unknown", s->source);
	return 0;
}

static int trap_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_trap *t = (const struct rec_trap *)h;

	if (t->kind > MEM_RMW)
		return bad(why, whylen, "trap kind %u is unknown", t->kind);
	if (t->slot >= 4)
		return bad(why, whylen, "trap slot %u is not a debug register", t->slot);
	return 0;
}

static int meta_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const char *p = (const char *)h + offsetof(struct rec_meta, kv);
	const char *end = (const char *)h + h->size;

	for (int i = 0; i < 2; i++) {
		const char *z = memchr(p, 0, (size_t)(end - p));

		if (!z)
			return bad(why, whylen, "meta %s is not NUL-terminated",
				   i ? "value" : "key");
		p = z + 1;
	}
	for (; p < end; p++)
		if (*p)
			return bad(why, whylen, "meta holds more than a key and a value");
	return 0;
}

/* CPU numbers index per-CPU tables (Linux has at most 8192 CPUs); core,
 * socket and node are ids, -1 when unknown. */
#define REC_CPU_MAX 65536

static int cpu_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_cpu *c = (const struct rec_cpu *)h;

	if (c->cpu < 0 || c->cpu >= REC_CPU_MAX || c->core < -1 || c->core >= REC_CPU_MAX ||
	    c->socket < -1 || c->socket >= REC_CPU_MAX || c->node < -1 || c->node >= REC_CPU_MAX)
		return bad(why, whylen, "CPU %d (core %d, socket %d, node %d) is out of range",
			   c->cpu, c->core, c->socket, c->node);
	return 0;
}

static int sym_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_sym *s = (const struct rec_sym *)h;
	const char *str = s->str;
	uint64_t total = (uint64_t)s->name_len + s->file_len + s->module_len;

	if (!s->name_len || !s->module_len)
		return bad(why, whylen, "symbol %s is 0", s->name_len ? "module_len" : "name_len");
	if (REC_SIZE(sizeof(*s) + total) != h->size || sizeof(*s) + total > h->size)
		return bad(why, whylen, "symbol string lengths %u+%u+%u do not match the size",
			   s->name_len, s->file_len, s->module_len);
	if (str[s->name_len - 1] || (s->file_len && str[s->name_len + s->file_len - 1]) ||
	    str[total - 1])
		return bad(why, whylen, "a symbol string is not NUL-terminated");
	return 0;
}

/* The frames that follow must fill the record exactly. */
static int alloc_check(const struct rec_hdr *h, char *why, size_t whylen)
{
	const struct rec_alloc *a = (const struct rec_alloc *)h;

	if (a->depth > ALLOC_MAX_DEPTH)
		return bad(why, whylen, "allocation depth %u is above %u", a->depth,
			   ALLOC_MAX_DEPTH);
	if (h->size != sizeof(*a) + a->depth * sizeof(a->frames[0]))
		return bad(why, whylen, "allocation record size %u does not match its %u frames",
			   h->size, a->depth);
	if (!a->kind || a->kind > ALLOC_KIND_MAX)
		return bad(why, whylen, "allocation kind %u is unknown", a->kind);
	return 0;
}

#define FIXED(t, s, f, chk) { t, f, sizeof(struct s), sizeof(struct s), #t, chk }
/* A fixed record that grew at its end: field new is the first it lacked. */
#define GROWN(t, s, new, f, chk) { t, f, offsetof(struct s, new), sizeof(struct s), #t, chk }
#define VAR(t, s, f, chk) { t, (f) | REC_T_VAR, sizeof(struct s), sizeof(struct s), #t, chk }

/* Indexed by type; a hole has type 0 (only REC_PAD is type 0). */
static const struct rec_desc core_types[] = {
	[REC_PAD] = FIXED(REC_PAD, rec_hdr, REC_T_AGENT, NULL),
	[REC_PROC] = VAR(REC_PROC, rec_proc, REC_T_AGENT, proc_check),
	[REC_PROC_END] = GROWN(REC_PROC_END, rec_proc_end, how, REC_T_AGENT, proc_end_check),
	[REC_THREAD] = FIXED(REC_THREAD, rec_thread, REC_T_AGENT, thread_check),
	[REC_THREAD_END] = GROWN(REC_THREAD_END, rec_thread_end, ext, REC_T_AGENT, thread_end_check),
	[REC_MMAP] = VAR(REC_MMAP, rec_mmap, REC_T_AGENT, mmap_check),
	[REC_SAMPLE] = GROWN(REC_SAMPLE, rec_sample, data_src, REC_T_AGENT, sample_check),
	[REC_TRAP] = FIXED(REC_TRAP, rec_trap, REC_T_AGENT, trap_check),
	[REC_ERROR] = VAR(REC_ERROR, rec_error, REC_T_AGENT, error_check),
	[REC_ALLOC] = VAR(REC_ALLOC, rec_alloc, REC_T_AGENT, alloc_check),
	[REC_FREE] = FIXED(REC_FREE, rec_free, REC_T_AGENT, NULL),
	[REC_THREAD_STATS] = GROWN(REC_THREAD_STATS, rec_thread_end, ext, REC_T_AGENT,
				   thread_end_check),
	[REC_META] = VAR(REC_META, rec_meta, 0, meta_check),
	[REC_CPU] = FIXED(REC_CPU, rec_cpu, 0, cpu_check),
	[REC_SYM] = VAR(REC_SYM, rec_sym, 0, sym_check),
	[REC_TASK] = GROWN(REC_TASK, rec_task, ext, 0, task_check),
	/* 1.0 files end it after `pad`; 1.1 added the rejection counts. */
	[REC_RUNSTATS] = { REC_RUNSTATS, 0, offsetof(struct rec_runstats, rejected),
			   sizeof(struct rec_runstats), "REC_RUNSTATS", NULL },
	[REC_END] = FIXED(REC_END, rec_end, 0, NULL),
};

_Static_assert(sizeof(struct rec_runstats) <= REC_FIXED_MAX &&
	       sizeof(struct rec_task) <= REC_FIXED_MAX, "REC_FIXED_MAX holds every fixed record");

const struct rec_desc *rec_core(uint16_t type)
{
	if (type >= sizeof(core_types) / sizeof(core_types[0]))
		return NULL;
	if (type != REC_PAD && core_types[type].type != type)
		return NULL;
	return &core_types[type];
}

int rec_check_frame(const struct rec_hdr *h, uint32_t max, char *why, size_t whylen)
{
	if (h->size < sizeof(*h))
		return bad(why, whylen, "size %u is below the header size %zu", h->size,
			   sizeof(*h));
	if (h->size % REC_ALIGN)
		return bad(why, whylen, "size %u is not a multiple of %u", h->size, REC_ALIGN);
	if (h->size > max)
		return bad(why, whylen, "size %u is above the maximum %u", h->size, max);
	return 0;
}

/*
 * The record as this cdt's struct of type t: h itself when it has at
 * least t->size bytes (or t is REC_T_VAR), else a copy in buf with the
 * fields it lacks zero and size t->size.  A longer fixed record keeps its
 * size; readers use the fields they know.
 */
static const struct rec_hdr *rec_normalize(const struct rec_desc *t, const struct rec_hdr *h,
					   void *buf)
{
	struct rec_hdr *c = buf;

	if (h->size >= t->size || (t->flags & REC_T_VAR) || t->size > REC_FIXED_MAX)
		return h;
	memcpy(c, h, h->size);
	memset((char *)c + h->size, 0, t->size - h->size);
	c->size = t->size;
	return c;
}

const struct rec_hdr *rec_accept(const struct rec_desc *t, const struct rec_hdr *h, void *buf,
				 char *why, size_t whylen, int *short_rec)
{
	int is_short = h->size < t->min;

	if (short_rec)
		*short_rec = is_short;
	if (is_short) {
		bad(why, whylen, "size %u is below the minimum %u of %s", h->size, t->min, t->name);
		return NULL;
	}
	h = rec_normalize(t, h, buf);
	return t->check && t->check(h, why, whylen) ? NULL : h;
}

int record_validate(const struct rec_hdr *rec)
{
	unsigned char buf[REC_FIXED_MAX] __attribute__((aligned(8)));
	const struct rec_desc *t;

	if (rec_check_frame(rec, REC_MAX_SIZE, NULL, 0))
		return -EBADMSG;
	t = rec_core(rec->type);
	if (!t)
		return rec->type >= REC_TOOL_BASE ? 0 : -EBADMSG;
	return rec_accept(t, rec, buf, NULL, 0, NULL) ? 0 : -EBADMSG;
}
