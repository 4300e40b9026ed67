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

/* A handler's share of a thread's time from which a run is said to be
 * slowed, and the share a suggested rate aims at. */
#define COST_WARN_SHARE 0.2
#define COST_GOOD_SHARE 0.05

int view_cost_warning(const struct prof_cost *c, char *buf, size_t len)
{
	double ok;
	uint64_t hz, mag = 1;

	if (c->share < COST_WARN_SHARE || c->all_ns <= 0)
		return 0;
	/* The rate whose samples would take COST_GOOD_SHARE of a busy thread,
	 * rounded down to two significant digits. */
	ok = COST_GOOD_SHARE * 1e9 / c->all_ns;
	hz = ok < 1 ? 1 : (uint64_t)ok;
	while (hz >= 100 * mag)
		mag *= 10;
	hz = hz / mag * mag;
	snprintf(buf, len, "a sample costs %.0f us of %s with the traps it leads to; at %" PRIu64
		 " samples/s cdt's handlers took %.0f%% of the busiest thread's time, so the "
		 "program ran about %.1fx slower; -F %" PRIu64 " or lower keeps it near %.0f%%",
		 c->all_ns / 1000,
		 c->cpu ? "CPU time" : "wall time", c->rate, c->share * 100,
		 c->share >= 0.99 ? 100.0 : 1 / (1 - c->share), hz, COST_GOOD_SHARE * 100);
	return 1;
}

int view_summary_run(const struct profile *p, struct table *t)
{
	uint64_t samples = 0, steps = 0, traps = 0, stray = 0, async = 0, forged = 0, own = 0;
	struct prof_cost cost;
	char warn[320];
	int err = 0;

	for (size_t i = 0; i < p->ntasks; i++) {
		samples += p->tasks[i].st.samples;
		steps += p->tasks[i].st.steps;
		traps += p->tasks[i].st.traps;
		stray += p->tasks[i].ext.stray;
		async += p->tasks[i].ext.async;
		forged += !!(p->tasks[i].flags & THREAD_F_FORGED);
		own += p->tasks[i].ext.own;
	}
	profile_cost(p, 0, &cost);
	for (size_t i = 0; i < p->nmeta && !err; i++)
		err = KV(p->meta[i].key, "%s", p->meta[i].value);
	if (!err && p->have_run) {
		double secs = (double)(p->run.end_ns - p->run.start_ns) / 1e9;

		err = KV("duration_s", "%.3f", secs) ||
		      KV("exit_status", "%d", p->run.exit_status) ||
		      KV("ended", "%s", p->run.term_signal ? "killed by a signal" :
				       p->run.incomplete ? "interrupted" : "normally") ||
		      (p->run.flags & RUN_F_DROPS_FORGED ?
		       KV("dropped_records", "%s", "overwritten by the program") :
		       KV("dropped_records", "%" PRIu64, p->run.dropped_records)) ||
		      KV("rejected_records", "%" PRIu64, p->run.rejected[REJ_TYPE] +
			 p->run.rejected[REJ_SIZE] + p->run.rejected[REJ_FIELD] +
			 p->run.rejected[REJ_FRAME]);
	}
	if (!err)
		err = KV("processes", "%zu", p->nprocs) || KV("threads", "%zu", p->ntasks) ||
		      KV("samples_taken", "%" PRIu64, samples) ||
		      KV("single_steps", "%" PRIu64, steps) ||
		      KV("us_per_sample", "%.2f", cost.sample_ns / 1000) ||
		      KV("traps_taken", "%" PRIu64, traps) ||
		      KV("us_per_trap", "%.2f", cost.trap_ns / 1000) ||
		      KV("cost_clock", "%s", cost.cpu ? "cpu" : "wall") ||
		      KV("sampling_share", "%.3f", cost.share) ||
		      KV("stray_traps", "%" PRIu64, stray) || KV("async_traps", "%" PRIu64, async) ||
		      KV("samples_in_cdt", "%" PRIu64, own);
	/* Their statistics are not in the counts above. */
	if (!err && forged)
		err = KV("threads_overwritten", "%" PRIu64 " (agent statistics overwritten by the "
			 "program: left out)", forged);
	if (!err && cost.cpu_s > 0)
		err = KV("sample_rate_hz", "%.0f", cost.rate_used) ||
		      KV("sample_clock_posix", "%.2f", cost.posix_n + cost.perf_n ?
			 (double)cost.posix_n / (double)(cost.posix_n + cost.perf_n) : 0);
	if (!err && cost.cpu_s > 0 && cost.have_est) {
		double all = cost.est_handler_ns + cost.est_kernel_ns + cost.est_switch_ns;
		double prog = cost.cpu_s * 1e9 - all;

		/* Of the CPU time the program would have had without cdt. */
		if (prog > 0)
			err = KV("overhead_est", "%.1f%% (handlers %.1f%% + kernel %.1f%% + switches "
				 "%.1f%%)", all / prog * 100, cost.est_handler_ns / prog * 100,
				 cost.est_kernel_ns / prog * 100, cost.est_switch_ns / prog * 100);
	}
	if (!err && view_cost_warning(&cost, warn, sizeof(warn)))
		err = KV("warning", "%s", warn);
	return err ? -ENOMEM : 0;
}

int view_processes(const struct profile *p, const struct view_opts *o, struct table *t)
{
	static const char *const cols[] = { "pid:r", "ppid:r", "execs:r", "ended", "status:r",
					    "exe", NULL };
	static const char *const how[] = {
		[0] = "ended", /* a 1.0 file: nothing more is known */
		[PROC_END_EXIT] = "exit", [PROC_END__EXIT] = "_exit",
		[PROC_END_SIGNAL] = "signal", [PROC_END_ALIVE] = "running",
	};
	int err = 0;

	(void)o;
	table_init(t, "Processes", cols);
	for (size_t i = 0; i < p->nprocs && !err; i++) {
		const struct prof_proc *pr = &p->procs[i];
		const char *end = pr->end_how <= PROC_END_MAX ? how[pr->end_how] : "?";

		if (!pr->ended && pr->end_how != PROC_END_SIGNAL && pr->end_how != PROC_END_ALIVE)
			/* killed, or a raw exit system call; or after an exec
			 * no agent followed, not seen at all */
			end = pr->flags & PROC_F_UNSEEN ? "unseen" : "no exit";
		err = table_row(t) || table_cell(t, "%u", pr->pid) || table_cell(t, "%u", pr->ppid) ||
		      table_cell(t, "%u", pr->nexec) || table_cell(t, "%s", end) ||
		      (pr->ended || pr->end_how == PROC_END_SIGNAL ?
		       table_cell(t, "%d", pr->end_status) : table_cell(t, "%s", "")) ||
		      table_cell(t, "%s", pr->exe ? pr->exe : "");
	}
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

int view_items_text(int (*build)(const struct profile *p, const struct view_opts *o,
				 struct table *t),
		    const struct profile *p, const struct view_opts *o, FILE *f, int width)
{
	struct table t = { 0 };
	int err = build(p, o, &t);

	if (!err)
		table_print_items(&t, f, width);
	table_free(&t);
	return err ? err : ferror(f) ? -EIO : 0;
}
