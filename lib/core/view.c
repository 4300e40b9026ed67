// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>


const char *view_thread_col(const struct profile *p, const char *name_r, const char *name)
{
	return p->merge ? name : name_r;
}

const struct view *view_find(const struct view *views, const char *name)
{
	for (const struct view *v = views; name && v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

#define KV(key, ...) (table_row(t) || table_cell(t, "%s", key) || table_cell(t, __VA_ARGS__))

int view_summary_run(const struct profile *p, struct table *t)
{
	uint64_t samples = 0, ns = 0, steps = 0, traps = 0, trap_ns = 0, stray = 0, async = 0;
	int err = 0;

	for (size_t i = 0; i < p->ntasks; i++) {
		samples += p->tasks[i].st.samples;
		steps += p->tasks[i].st.steps;
		ns += p->tasks[i].st.handler_ns;
		traps += p->tasks[i].st.traps;
		trap_ns += p->tasks[i].st.trap_ns;
		stray += p->tasks[i].tr.stray;
		async += p->tasks[i].tr.async;
	}
	for (size_t i = 0; i < p->nmeta && !err; i++)
		err = KV(p->meta[i].key, "%s", p->meta[i].value);
	if (!err && p->have_run) {
		double secs = (double)(p->run.end_ns - p->run.start_ns) / 1e9;

		err = KV("duration_s", "%.3f", secs) ||
		      KV("exit_status", "%d", p->run.exit_status) ||
		      KV("ended", "%s", p->run.term_signal ? "killed by a signal" :
				       p->run.incomplete ? "interrupted" : "normally") ||
		      KV("dropped_records", "%" PRIu64, p->run.dropped_records) ||
		      KV("rejected_records", "%" PRIu64, p->run.rejected[REJ_TYPE] +
			 p->run.rejected[REJ_SIZE] + p->run.rejected[REJ_FIELD] +
			 p->run.rejected[REJ_FRAME]);
	}
	if (!err)
		err = KV("processes", "%zu", p->nprocs) || KV("threads", "%zu", p->ntasks) ||
		      KV("samples_taken", "%" PRIu64, samples) ||
		      KV("single_steps", "%" PRIu64, steps) ||
		      KV("us_per_sample", "%.2f", samples ? (double)ns / (double)samples / 1000.0 : 0) ||
		      KV("traps_taken", "%" PRIu64, traps) ||
		      KV("us_per_trap", "%.2f", traps ? (double)trap_ns / (double)traps / 1000.0 : 0) ||
		      KV("stray_traps", "%" PRIu64, stray) || KV("async_traps", "%" PRIu64, async);
	return err ? -ENOMEM : 0;
}

int view_summary_errors(const struct profile *p, struct table *t)
{
	int err = 0;

	for (size_t i = 0; i < p->nerrors && !err; i++)
		err = KV("agent_error", "%s (%s) x%u", p->errors[i].msg,
			 strerror(p->errors[i].err), p->errors[i].count);
	return err ? -ENOMEM : 0;
}
#undef KV
