// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target for the cdt.data reader.  The callback copies each record
 * into an allocation of exactly rec->size bytes and reads every field and
 * string of the copy, so a record the reader should have refused shows up
 * as an ASan overread instead of passing silently.
 *
 * The libFuzzer build (tests/fuzz/fuzz.mk) links the custom mutator of
 * mutator.c, so mutations reach the record checks instead of dying in
 * zlib's checksum.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/datafile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct touched {
	uint64_t records;
	uint64_t sum;
};

static void check(int ok)
{
	if (!ok)
		abort();
}

/* A string that must end before `max` bytes; strlen runs off the copy if not. */
static uint64_t str_touch(const char *s, size_t max)
{
	size_t n = strlen(s);

	check(n < max);
	return n;
}

static uint64_t stats_touch(const struct agent_stats *st)
{
	return st->samples + st->mem_samples + st->nomem + st->decode_fail +
	       st->steps + st->traps + st->handler_ns + st->trap_ns +
	       st->dropped + st->chained;
}

static uint64_t fields_touch(const struct rec_hdr *h)
{
	const char *end = (const char *)h + h->size;
	uint64_t s = 0;

	switch (h->type) {
	case REC_PROC: {
		const struct rec_proc *r = (const void *)h;

		s = r->pid + r->ppid + r->time + r->flags;
		s += str_touch(r->exe, (size_t)(end - r->exe));
		break;
	}
	case REC_PROC_END: {
		const struct rec_proc_end *r = (const void *)h;

		s = r->pid + r->time;
		break;
	}
	case REC_THREAD: {
		const struct rec_thread *r = (const void *)h;

		s = r->pid + r->tid + r->time + r->cpu + r->flags;
		s += str_touch(r->name, sizeof(r->name));
		break;
	}
	case REC_THREAD_END:
	case REC_THREAD_STATS: {
		const struct rec_thread_end *r = (const void *)h;

		s = r->pid + r->tid + r->time + stats_touch(&r->st);
		s += str_touch(r->name, sizeof(r->name));
		break;
	}
	case REC_MMAP: {
		const struct rec_mmap *r = (const void *)h;
		uint32_t i;

		check(r->build_id_len <= sizeof(r->build_id));
		for (i = 0; i < r->build_id_len; i++)
			s += r->build_id[i];
		s += r->pid + r->time + r->start + r->end + r->pgoff;
		s += str_touch(r->path, (size_t)(end - r->path));
		break;
	}
	case REC_SAMPLE: {
		const struct rec_sample *r = (const void *)h;

		s = r->pid + r->tid + r->time + r->ip + r->addr + r->cpu +
		    r->size + r->kind + r->source + r->flags + r->weight;
		break;
	}
	case REC_TRAP: {
		const struct rec_trap *r = (const void *)h;

		s = r->pid + r->tid + r->time + r->wp_addr + r->ip + r->insn_ip +
		    r->acc_addr + r->cpu + r->slot + r->size + r->kind +
		    r->flags + r->cookie;
		break;
	}
	case REC_ALLOC: {
		const struct rec_alloc *r = (const void *)h;

		check(r->depth <= ALLOC_MAX_DEPTH && r->kind && r->kind <= ALLOC_KIND_MAX);
		check((const char *)(r->frames + r->depth) == end);
		s = r->pid + r->tid + r->time + r->addr + r->size + r->site + r->flags;
		for (uint32_t i = 0; i < r->depth; i++)
			s += r->frames[i];
		break;
	}
	case REC_FREE: {
		const struct rec_free *r = (const void *)h;

		s = r->pid + r->tid + r->time + r->addr + r->len;
		break;
	}
	case REC_ERROR: {
		const struct rec_error *r = (const void *)h;

		s = r->pid + r->tid + (uint64_t)(int64_t)r->err;
		s += str_touch(r->msg, (size_t)(end - r->msg));
		break;
	}
	case REC_META: {
		const struct rec_meta *r = (const void *)h;
		size_t k = str_touch(r->kv, (size_t)(end - r->kv));

		s = k + str_touch(r->kv + k + 1, (size_t)(end - r->kv - k - 1));
		break;
	}
	case REC_CPU: {
		const struct rec_cpu *r = (const void *)h;

		s = (uint64_t)r->cpu + (uint64_t)r->core + (uint64_t)r->socket +
		    (uint64_t)r->node;
		break;
	}
	case REC_SYM: {
		const struct rec_sym *r = (const void *)h;
		const char *file = r->str + r->name_len;
		const char *module = file + r->file_len;

		check(r->name_len > 0 && r->module_len > 0);
		check(module + r->module_len <= end);
		s = r->pid + r->kind + r->addr + r->sym_start + r->sym_size + r->line;
		s += str_touch(r->str, r->name_len);
		if (r->file_len)
			s += str_touch(file, r->file_len);
		s += str_touch(module, r->module_len);
		break;
	}
	case REC_TASK: {
		const struct rec_task *r = (const void *)h;

		s = r->index + r->pid + r->tid + r->ppid + r->start + r->end +
		    r->flags + stats_touch(&r->st);
		s += str_touch(r->name, sizeof(r->name));
		break;
	}
	case REC_RUNSTATS: {
		const struct rec_runstats *r = (const void *)h;

		s = r->start_ns + r->end_ns + r->records + r->dropped_records +
		    r->dropped_bytes + (uint64_t)r->exit_status +
		    (uint64_t)r->term_signal +
		    r->procs + r->threads + r->incomplete;
		break;
	}
	default:
		/* REC_PAD and tool records: opaque */
		check(h->type == REC_PAD || h->type >= REC_TOOL_BASE);
		break;
	}
	return s;
}

static int touch(const struct rec_hdr *rec, void *arg)
{
	struct touched *t = arg;
	struct rec_hdr *copy;
	const unsigned char *b;
	uint32_t i;

	check(rec->type != REC_END);
	check(record_validate(rec) == 0);
	check((uintptr_t)rec % 8 == 0);
	copy = malloc(rec->size);
	check(copy != NULL);
	memcpy(copy, rec, rec->size);
	b = (const unsigned char *)copy;
	for (i = 0; i < copy->size; i++)
		t->sum += b[i];
	t->sum += fields_touch(copy);
	free(copy);
	t->records++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct touched t = { 0, 0 };
	char err[256];
	int ret;

	err[0] = 'x';
	ret = df_read_mem(data, size, touch, &t, err, sizeof(err));
	check(ret == 0 || ret == -EBADMSG || ret == -EPROTO || ret == -ENOMEM);
	/* every failure explains itself, success leaves the message empty */
	check(ret ? strlen(err) > 0 : err[0] == '\0');
	return 0;
}
