// SPDX-License-Identifier: GPL-2.0-only
#include "views.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "symbolize.h"

static const struct tool_views *const all_views[] = {
	&views_record,
	&views_comm,
};

const struct tool_views *views_for(const char *tool)
{
	for (size_t i = 0; tool && i < sizeof(all_views) / sizeof(all_views[0]); i++)
		if (!strcmp(all_views[i]->tool, tool))
			return all_views[i];
	return NULL;
}

int views_fold(struct profile *p, const struct rec_hdr *r)
{
	for (size_t i = 0; i < sizeof(all_views) / sizeof(all_views[0]); i++) {
		int err = all_views[i]->fold ? all_views[i]->fold(p, r) : 1;

		if (err <= 0)
			return err;
	}
	return 1;
}

const char *view_thread_col(const struct profile *p, const char *name_r, const char *name)
{
	return p->merge ? name : name_r;
}

const struct view *views_find(const struct tool_views *tv, const char *name)
{
	for (const struct view *v = tv->views; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

const char *view_kind_name(int kind)
{
	switch (kind) {
	case MEM_LOAD: return "load";
	case MEM_STORE: return "store";
	case MEM_RMW: return "rmw";
	default: return "none";
	}
}

static const char *view_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

void view_code_loc(const struct profile *p, uint32_t pid, uint64_t time, uint64_t ip,
		   char *buf, size_t len)
{
	const struct prof_sym *s = profile_sym(p, pid, time, SYM_CODE, ip);

	if (s && s->name && s->file)
		snprintf(buf, len, "%s (%s:%u)", s->name, view_base(s->file), s->line);
	else if (s && s->name)
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, ip - s->start);
	else if (s && s->module)
		snprintf(buf, len, "%s@0x%" PRIx64, view_base(s->module), ip);
	else
		snprintf(buf, len, "0x%" PRIx64, ip);
}

void view_data_obj(const struct profile *p, uint32_t pid, uint64_t time, uint64_t addr,
		   int stack, char *buf, size_t len, uint64_t *offset)
{
	const struct prof_sym *s = stack ? NULL : profile_sym(p, pid, time, SYM_DATA, addr);

	*offset = 0;
	if (stack)
		snprintf(buf, len, "[stack]");
	else if (s && s->name) {
		snprintf(buf, len, "%s", s->name);
		*offset = addr - s->start;
	} else if (s && s->module)
		snprintf(buf, len, "[%s]", view_base(s->module));
	else
		snprintf(buf, len, "[anon]");
}

#define KV(key, ...) (table_row(t) || table_cell(t, "%s", key) || table_cell(t, __VA_ARGS__))

int view_summary_run(const struct profile *p, struct table *t)
{
	uint64_t samples = 0, ns = 0, steps = 0, traps = 0, trap_ns = 0;
	int err = 0;

	for (size_t i = 0; i < p->ntasks; i++) {
		samples += p->tasks[i].st.samples;
		steps += p->tasks[i].st.steps;
		ns += p->tasks[i].st.handler_ns;
		traps += p->tasks[i].st.traps;
		trap_ns += p->tasks[i].st.trap_ns;
	}
	for (size_t i = 0; i < p->nmeta && !err; i++)
		err = KV(p->meta[i].key, "%s", p->meta[i].value);
	if (!err && p->have_run) {
		double secs = (double)(p->run.end_ns - p->run.start_ns) / 1e9;

		err = KV("duration_s", "%.3f", secs) ||
		      KV("exit_status", "%d", p->run.exit_status) ||
		      KV("ended", "%s", p->run.term_signal ? "killed by a signal" :
				       p->run.incomplete ? "interrupted" : "normally") ||
		      KV("dropped_records", "%" PRIu64, p->run.dropped_records);
	}
	if (!err)
		err = KV("processes", "%zu", p->nprocs) || KV("threads", "%zu", p->ntasks) ||
		      KV("samples_taken", "%" PRIu64, samples) ||
		      KV("single_steps", "%" PRIu64, steps) ||
		      KV("us_per_sample", "%.2f", samples ? (double)ns / (double)samples / 1000.0 : 0) ||
		      KV("traps_taken", "%" PRIu64, traps) ||
		      KV("us_per_trap", "%.2f", traps ? (double)trap_ns / (double)traps / 1000.0 : 0);
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
