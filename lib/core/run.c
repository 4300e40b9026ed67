// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/run.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/cliopt.h"
#include "lib/core/clockcal.h"
#include "lib/core/dbtrap.h"
#include "lib/core/ingest.h"
#include "lib/core/datafile.h"
#include "lib/core/view.h"
#include "lib/wire/arena.h"
#include "output/textesc.h"

extern const unsigned char cdt_agent_blob[], cdt_agent_blob_end[];

#define DRAIN_MS 50
#define RUN_BUSY_RECORDS 4096 /* records in one drain that make the next one sooner */

struct run_ctx {
	const struct run_opts *o;
	struct profile *p;
	struct arena arena;
	struct ingest in;
	int agent_fd, sig_fd;
	pid_t child;
	uint64_t records, samples, traps;
	uint64_t t0;
	uint64_t cost_checked; /* when the sampling cost was last looked at */
	int live_line;
	int cost_warned;
	int attach_failed;
};

static uint64_t run_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the program: find it, and refuse what the agent cannot enter ---- */

int run_find(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	int eacces = 0;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, F_OK) ? -ENOENT : 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		int n = (int)(end - path);
		struct stat st;

		snprintf(out, len, "%.*s%s%s", n, n ? path : ".", "/", name);
		if (!stat(out, &st) && S_ISREG(st.st_mode)) {
			if (!access(out, X_OK))
				return 0;
			eacces = 1;
		}
		path = *end ? end + 1 : end;
	}
	return eacces ? -EACCES : -ENOENT;
}

static int run_vet(const char *path)
{
	Elf64_Ehdr eh;
	struct stat st;
	int fd, interp = 0, err = 0;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cdt: %s: is a directory\n", path);
		return -EISDIR;
	}
	if (access(path, X_OK) < 0) {
		fprintf(stderr, "cdt: %s: %s\n", path, strerror(errno));
		return -EACCES;
	}
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
		fprintf(stderr, "cdt: %s is set-user-ID or set-group-ID: the dynamic loader "
			"ignores LD_PRELOAD for it, so the agent cannot load.\n"
			"cdt: profile a copy without the setuid bit, or run cdt as its owner\n",
			path);
		return -EPERM;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* exec will say why */
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out; /* a script or another format: its interpreter is vetted by exec */
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			interp = 1;
	}
	if (!interp) {
		fprintf(stderr, "cdt: %s is statically linked: no dynamic loader runs, so "
			"LD_PRELOAD cannot load the agent.\n"
			"cdt: rebuild it dynamically linked to profile it\n", path);
		err = -ENOEXEC;
	}
out:
	close(fd);
	return err;
}

/* ---- the agent and the environment ---- */

static int run_agent_fd(void)
{
	size_t len = (size_t)(cdt_agent_blob_end - cdt_agent_blob);
	const unsigned char *p = cdt_agent_blob;
	int fd = memfd_create("cdt-agent.so", 0); /* inherited: LD_PRELOAD names it */

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		p += n;
		len -= (size_t)n;
	}
	return fd;
}

/*
 * The two descriptors the program inherits (the agent's memfd, which
 * LD_PRELOAD names, and the arena) move high, out of the way of programs
 * that dup2 onto, or close, low numbers they take to be free: 1000 and up
 * under the usual limit of 1024 (select() sets reach no higher), just
 * under a smaller limit.  Returns the new fd, the old one closed.
 */
static int run_fd_high(int fd)
{
	struct rlimit rl;
	long base = 1000;
	int nfd;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < 1024)
		base = (long)rl.rlim_cur - 8;
	if (base <= fd)
		return fd;
	nfd = fcntl(fd, F_DUPFD, (int)base);
	if (nfd < 0)
		return fd; /* the limit moved: low, but it works */
	close(fd);
	return nfd;
}

static int run_env(int agent_fd, int arena_fd)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[PATH_MAX + 64], num[16];

	if (old && *old)
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d:%s", agent_fd, old);
	else
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d", agent_fd);
	snprintf(num, sizeof(num), "%d", arena_fd);
	if (setenv("LD_PRELOAD", buf, 1) || setenv(AGENT_ENV_FD, num, 1))
		return -errno;
	return 0;
}

/* ---- draining ---- */

static int run_take(const struct rec_hdr *r, void *arg)
{
	struct run_ctx *c = arg;
	int err = profile_add(c->p, r);

	if (err == -EBADMSG) {
		/* ingest checked it against the same types: a bug, not the program */
		fprintf(stderr, "cdt: internal error: a checked record was refused: %s\n",
			c->p->why);
		return 0;
	}
	c->records++;
	if (r->type == REC_SAMPLE)
		c->samples++;
	else if (r->type == REC_TRAP)
		c->traps++;
	return err;
}

/* What the run could have done, with a second's slack for the clocks. */
static uint64_t run_wall_bound(const struct run_ctx *c)
{
	return run_now(CLOCK_MONOTONIC) - c->t0 + 1000000000ull;
}

/*
 * The threads' agent statistics came through the arena, which the program
 * can write: those past what the run could have done are left out (and
 * said so at the end), never printed or stored as figures.
 */
static void run_bound_tasks(struct run_ctx *c, int final)
{
	uint64_t wall = run_wall_bound(c);
	size_t forged = 0;
	uint32_t tid = 0;

	for (size_t i = 0; i < c->p->ntasks; i++) {
		ingest_task_bound(&c->p->tasks[i], wall);
		if ((c->p->tasks[i].flags & THREAD_F_FORGED) && !forged++)
			tid = c->p->tasks[i].tid;
	}
	if (final && forged)
		fprintf(stderr, "cdt: the agent statistics of %zu thread%s (thread %u%s) were "
			"overwritten by the program: left out\n", forged, forged == 1 ? "" : "s",
			tid, forged == 1 ? "" : " and others");
}

static void run_live(struct run_ctx *c, int final)
{
	uint64_t el = run_now(CLOCK_MONOTONIC) - c->t0;

	if (c->o->quiet || !isatty(2))
		return;
	if (final) {
		if (c->live_line)
			fprintf(stderr, "\r\033[K");
		return;
	}
	if (el < 1000000000ull)
		return;
	fprintf(stderr, "\r\033[Kcdt %s: %.1f s, %llu samples, %llu traps", c->o->tool_name,
		(double)el / 1e9, (unsigned long long)c->samples,
		(unsigned long long)c->traps);
	c->live_line = 1;
}

/*
 * Say once, as soon as the stats show it, that sampling slows the program
 * down (a rate whose handler cost nears the period), and at the end if
 * the run was too short to tell before.
 */
static void run_cost(struct run_ctx *c, int final)
{
	uint64_t now = run_now(CLOCK_MONOTONIC);
	struct prof_cost cost;
	char buf[320];

	if (c->o->quiet || c->cost_warned || (!final && now - c->cost_checked < 1000000000ull))
		return;
	c->cost_checked = now;
	run_bound_tasks(c, 0);
	profile_cost(c->p, final ? 0 : now, &cost);
	if (!view_cost_warning(&cost, buf, sizeof(buf)))
		return;
	if (c->live_line)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "cdt %s: warning: %s\n", c->o->tool_name, buf);
	c->cost_warned = 1;
}

static int run_drain(struct run_ctx *c, int final)
{
	return ingest_drain(&c->in, final, run_now(CLOCK_MONOTONIC), run_take, c);
}

/* What ingest refused, in one line (and the first reason of each kind). */
static void run_rejected(const struct run_ctx *c)
{
	static const char *const what[REJ_N] = {
		[REJ_TYPE] = "of a type the agent does not write",
		[REJ_SIZE] = "too short for their type",
		[REJ_FIELD] = "with a field out of range",
		[REJ_FRAME] = "unframed",
	};
	const struct ingest *in = &c->in;
	char buf[512];
	size_t n = 0;

	if (in->unfinished_bytes)
		fprintf(stderr, "cdt: %llu bytes of records were left unfinished by a "
			"process that died while writing them\n",
			(unsigned long long)in->unfinished_bytes);
	if (!ingest_rejected(in))
		return;
	for (int i = 0; i < REJ_N; i++)
		if (in->rejected[i])
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%llu %s", n ? ", " : "",
					      (unsigned long long)in->rejected[i], what[i]);
	fprintf(stderr, "cdt: refused %llu record%s of the shared buffer, which the program "
		"wrote over: %s; %llu bytes skipped%s\n", (unsigned long long)ingest_rejected(in),
		ingest_rejected(in) == 1 ? "" : "s", buf, (unsigned long long)in->skipped_bytes,
		c->o->verbose ? "" : " (-v says why)");
	for (int i = 0; i < REJ_N && c->o->verbose; i++)
		if (in->rejected[i])
			fprintf(stderr, "cdt:   first %s: %s\n", what[i], in->why[i]);
}

/* ---- signals ---- */

static void run_sigset(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGINT);
	sigaddset(s, SIGTERM);
	sigaddset(s, SIGHUP);
	sigaddset(s, SIGQUIT);
	sigaddset(s, SIGCHLD);
}

/* Returns 1 when the child has ended (status in *wst). */
static int run_signals(struct run_ctx *c, int *wst, struct run_result *res)
{
	struct signalfd_siginfo si;

	while (read(c->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		/* The terminal already sent it to the program's process group. */
		if (si.ssi_code != SI_KERNEL)
			kill(c->child, (int)si.ssi_signo);
		res->interrupted = (int)si.ssi_signo;
	}
	return waitpid(c->child, wst, WNOHANG) == c->child;
}

static int run_poll(struct run_ctx *c, int final)
{
	const struct run_ops *ops = c->o->ops;

	return ops && ops->poll ? ops->poll(c->o, c->p, final) : 0;
}

static int run_loop(struct run_ctx *c, int *wst, struct run_result *res)
{
	struct pollfd pfd = { .fd = c->sig_fd, .events = POLLIN };
	uint64_t before = 0;
	int err, wait = 1;

	for (;;) {
		/* Bursts of records (a program allocating its data as it starts)
		 * would fill the ring within 50 ms: come back after 1 ms while
		 * they last, then back off to DRAIN_MS. */
		if (poll(&pfd, 1, wait) < 0 && errno != EINTR)
			return -errno;
		before = c->records;
		err = run_drain(c, 0);
		if (!err)
			err = run_poll(c, 0);
		if (err < 0)
			return err;
		wait = err || c->records - before > RUN_BUSY_RECORDS ? 1 :
		       wait * 2 < DRAIN_MS ? wait * 2 : DRAIN_MS;
		if (run_signals(c, wst, res))
			return 0;
		run_cost(c, 0);
		run_live(c, 0);
	}
}

/* ---- how it ended ---- */

static void run_meta(const struct run_opts *o, struct profile *p, const char *why,
		     const struct agent_cfg *cfg, const char *traps)
{
	char buf[4096], host[256] = "";
	struct utsname u;
	size_t n = 0;
	time_t now = time(NULL);
	struct tm tm;

	for (char **a = o->argv; *a && n < sizeof(buf) - 1; a++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", a == o->argv ? "" : " ", *a);
	profile_set_meta(p, "tool", o->tool_name);
	profile_set_meta(p, "command", buf);
	gethostname(host, sizeof(host) - 1);
	profile_set_meta(p, "host", host);
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	profile_set_meta(p, "time", buf);
	if (!uname(&u))
		profile_set_meta(p, "kernel", u.release);
	profile_set_meta(p, "cdt_version", CDT_VERSION);
	profile_set_meta(p, "source", cfg->source == SRC_PMU ? "pmu" :
				      cfg->source == SRC_SOFT ? "soft" : "none");
	profile_set_meta(p, "source_why", why);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)cfg->ev[0].period);
	profile_set_meta(p, "period", buf);
	profile_set_meta(p, "period_unit", cfg->source == SRC_PMU ? "events" : "ns");
	profile_set_meta(p, "objects", cfg->flags & AGENT_F_OBJECTS ? "on" : "off");
	if (traps)
		profile_set_meta(p, "debug_traps", traps);
	if (!cfg->nevents)
		return;
	if (cfg->clock.budget_ppm)
		snprintf(buf, sizeof(buf), "%g%%", cfg->clock.budget_ppm / 1e4);
	else
		snprintf(buf, sizeof(buf), "none (%s)", o->src.freq || o->src.period ?
			 "the rate was given" : !o->budget_ppm ? "--max-overhead 0" :
			 "no calibration");
	profile_set_meta(p, "overhead_budget", buf);
	profile_set_meta(p, "sample_clock", cfg->clock.kind == CLOCK_K_PERF ? "perf" :
				     cfg->clock.kind == CLOCK_K_POSIX ? "posix" : "auto");
	if (!cfg->clock.tick_ns)
		return;
	/* What the summary's overhead estimate weighs the counts with. */
	snprintf(buf, sizeof(buf), "tick %llu perf %llu posix %llu switch %llu",
		 (unsigned long long)cfg->clock.tick_ns, (unsigned long long)cfg->clock.perf_sig_ns,
		 (unsigned long long)cfg->clock.posix_sig_ns,
		 (unsigned long long)cfg->clock.switch_ns);
	profile_set_meta(p, "clock_costs_ns", buf);
}

/*
 * The sample clock and the budget (agent_cfg.clock), from this machine's
 * calibration; `why` (the banner) says how the rate is set.  Without a
 * calibration the rate asked for is used, as before there was a budget.
 */
static void run_clock(const struct run_opts *o, struct agent_cfg *cfg, char *why, size_t len)
{
	struct agent_clock *k = &cfg->clock;
	int fixed = o->src.freq || o->src.period, measured, r;
	size_t n = strlen(why);
	struct clockcal cal;

	k->kind = (uint32_t)o->clock;
	k->handler_ns = RUN_HANDLER_PRIOR_NS;
	if (!cfg->nevents)
		return;
	r = clockcal_get(&cal, o->quiet ? NULL : stderr, &measured);
	if (r) {
		fprintf(stderr, "cdt %s: warning: cannot measure what a sample costs on this machine "
			"(%s): no overhead budget, samples at the rate asked\n", o->tool_name,
			strerror(-r));
		return;
	}
	clockcal_to_cfg(&cal, k);
	if (!fixed) {
		k->budget_ppm = o->budget_ppm;
		if (k->budget_ppm)
			snprintf(why + n, len - n, " at most (fewer to keep a %g%% overhead budget: "
				 "--max-overhead)", k->budget_ppm / 1e4);
		return;
	}
	if (cfg->source == SRC_SOFT && o->budget_ppm && !o->quiet) {
		/* What the rate asked for costs, switches aside. */
		uint64_t p = cfg->ev[0].period;
		int posix = k->kind == CLOCK_K_POSIX || (k->kind == CLOCK_K_AUTO && p >= k->tick_ns);
		double each = (double)k->handler_ns + (double)(posix ? k->posix_sig_ns : k->perf_sig_ns);
		double share = each / (double)(posix && p < k->tick_ns ? k->tick_ns : p);

		if (share * 1e6 > o->budget_ppm)
			fprintf(stderr, "cdt %s: warning: at this rate samples cost about %.0f%% of "
				"each thread's CPU time here (%.0f us each, about %.0f us of it the "
				"kernel's and the hypervisor's), over the %g%% overhead budget; the rate "
				"given overrides it\n", o->tool_name, share * 100, each / 1000,
				(each - (double)k->handler_ns) / 1000, o->budget_ppm / 1e4);
	}
	if (o->budget_given && !o->quiet)
		fprintf(stderr, "cdt %s: --max-overhead is not kept: -F or -c fixes the rate\n",
			o->tool_name);
}

static void run_report_end(const struct run_ctx *c, int wst, struct run_result *res)
{
	const char *prog = c->o->argv[0];

	if (WIFEXITED(wst)) {
		res->status = WEXITSTATUS(wst);
		/* It handled or ignored the signal: say how it really ended. */
		if (res->interrupted && !c->o->quiet)
			fprintf(stderr, "cdt: %s exited with status %d after cdt passed on SIG%s\n",
				prog, res->status, sigabbrev_np(res->interrupted) ?
				sigabbrev_np(res->interrupted) : "?");
	} else if (WIFSIGNALED(wst)) {
		res->term_signal = WTERMSIG(wst);
		res->status = 128 + res->term_signal;
		if (!c->o->quiet)
			fprintf(stderr, "cdt: %s was killed by signal %d (SIG%s); the profile "
				"holds what was collected until then\n", prog, res->term_signal,
				sigabbrev_np(res->term_signal) ? sigabbrev_np(res->term_signal) : "?");
	}
}

/* Text the program may have forged in the arena (an agent message, an
 * exe path), escaped so that it cannot drive the terminal. */
static void run_put_text(const char *s)
{
	char *e = textesc_dup(s);

	fputs(e ? e : "?", stderr);
	free(e);
}

/* A process of the program that has not ended: not a zombie. */
static int run_alive(pid_t pid)
{
	char path[64], buf[256], *s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	s = strrchr(buf, ')'); /* the name may hold anything */
	return s && s[1] == ' ' && s[2] && s[2] != 'Z' && s[2] != 'X';
}

/*
 * How each process of the program ended, with what the agent could not
 * record itself: the signal that killed the program, and processes still
 * running (a daemon that left the tree goes on unprofiled).  One line for
 * each that did not exit 0, and a count of the others.
 */
static void run_report_procs(struct run_ctx *c, const struct run_result *res)
{
	unsigned clean = 0, said = 0;

	for (size_t i = 0; i < c->p->nprocs; i++) {
		struct prof_proc *pr = &c->p->procs[i];
		const char *exe = pr->exe ? pr->exe : "?";

		if (!pr->ended && (pid_t)pr->pid == c->child && res->term_signal) {
			pr->end_how = PROC_END_SIGNAL;
			pr->end_status = res->term_signal;
		} else if (!pr->ended && run_alive((pid_t)pr->pid)) {
			pr->end_how = PROC_END_ALIVE;
		}
		if ((pid_t)pr->pid == c->child || c->o->quiet)
			continue; /* run_report_end said how the program ended */
		if (pr->ended && !pr->end_status) {
			clean++;
			continue;
		}
		if (said++ == 8)
			fprintf(stderr, "cdt: (more processes: --view processes lists them all)\n");
		if (said > 8)
			continue;
		fprintf(stderr, "cdt: process %u (", pr->pid);
		run_put_text(exe);
		if (pr->ended)
			fprintf(stderr, ") exited with status %d\n", pr->end_status);
		else if (pr->end_how == PROC_END_ALIVE)
			fprintf(stderr, ") still runs after the program ended (it left the "
				"program: a daemon?); it goes on unprofiled\n");
		else if (pr->flags & PROC_F_UNSEEN)
			fprintf(stderr, ") exec'd with cdt's descriptors closed and ran "
				"unprofiled from then on: how it ended was not seen\n");
		else
			fprintf(stderr, ") ended with no exit: killed by a signal, or a raw exit "
				"system call\n");
	}
	if (clean && !c->o->quiet)
		fprintf(stderr, "cdt: %u other process%s exited with status 0\n", clean,
			clean == 1 ? "" : "es");
}

static void run_errors(const struct profile *p, int quiet)
{
	for (size_t i = 0; i < p->nerrors; i++) {
		const struct prof_error *e = &p->errors[i];

		if (quiet && e->err != EBUSY)
			continue;
		fputs("cdt: ", stderr);
		run_put_text(e->msg);
		fprintf(stderr, " (%s)", strerror(e->err));
		if (e->count > 1)
			fprintf(stderr, " [%u times]", e->count);
		fputc('\n', stderr);
	}
}

static void run_stats(struct run_ctx *c, struct run_result *res, uint64_t start_rt)
{
	struct rec_runstats *r = &c->p->run;
	struct ingest_counts n;
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	memset(r, 0, sizeof(*r));
	r->h.size = sizeof(*r);
	r->h.type = REC_RUNSTATS;
	r->start_ns = start_rt;
	r->end_ns = run_now(CLOCK_REALTIME);
	r->records = c->records;
	ingest_counters(&c->in, run_wall_bound(c), ncpus > 0 ? (unsigned)ncpus : 1, &n);
	r->dropped_records = n.dropped;
	r->dropped_bytes = n.dropped_bytes;
	if (n.forged)
		r->flags |= RUN_F_DROPS_FORGED;
	memcpy(r->rejected, c->in.rejected, sizeof(r->rejected));
	r->skipped_bytes = c->in.skipped_bytes;
	r->exit_status = res->status;
	r->term_signal = res->term_signal;
	r->procs = (uint32_t)c->p->nprocs;
	r->threads = (uint32_t)c->p->ntasks;
	/* Incomplete only if the program did not end by itself (1.0 files also
	 * set it when a signal was passed on: 'interrupted'). */
	r->incomplete = res->term_signal != 0;
	c->p->have_run = 1;
	if (n.forged)
		fprintf(stderr, "cdt: the record buffer's count of dropped records was "
			"overwritten by the program: how many were dropped is unknown\n");
	else if (r->dropped_records)
		fprintf(stderr, "cdt: the record buffer overflowed: %llu records (%llu bytes) "
			"were dropped; use a larger --buffer-size or a lower rate\n",
			(unsigned long long)r->dropped_records,
			(unsigned long long)r->dropped_bytes);
}

/*
 * Fork and exec the program.  With a tool's attach hook, the child waits
 * on a pipe until the hook has set up what watches it from outside; if
 * the hook fails, the child is killed before it execs.
 */
static pid_t run_spawn(struct run_ctx *c, const char *path, const sigset_t *oldmask,
		       int *exec_err)
{
	const struct run_ops *ops = c->o->ops;
	int pfd[2], go[2] = { -1, -1 }, e = 0;
	pid_t pid, parent = getpid();
	char b = 0;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	if (ops && ops->attach && pipe2(go, O_CLOEXEC) < 0) {
		e = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		e = -errno;
		goto out;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		/* The program dies with cdt rather than run on unprofiled: set
		 * before exec (kept across it), and too late if cdt is gone. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(EXIT_CDT_FAILED);
		if (go[0] >= 0 && read(go[0], &b, 1) != 1)
			_exit(EXIT_CDT_FAILED);
		execv(path, c->o->argv);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(EXIT_CANNOT_EXEC);
		_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
	}
	if (go[1] >= 0) {
		e = ops->attach(c->o, pid);
		c->attach_failed = !!e;
		if (e || write(go[1], &b, 1) != 1) {
			e = e ? e : -EPIPE;
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto out;
		}
	}
	close(pfd[1]);
	pfd[1] = -1;
	if (read(pfd[0], &e, sizeof(e)) == (ssize_t)sizeof(e))
		*exec_err = e;
	e = pid;
out:
	for (int i = 0; i < 2; i++) {
		if (pfd[i] >= 0)
			close(pfd[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
	return e;
}

int run_program(const struct run_opts *o, struct profile *p, struct run_result *res)
{
	struct run_ctx c = { .o = o, .p = p, .agent_fd = -1, .sig_fd = -1 };
	struct agent_cfg cfg = { 0 };
	char path[PATH_MAX], why[512], traps[320] = "";
	struct dbtrap dbt;
	sigset_t set, oldmask;
	uint64_t start_rt;
	struct ingest_counts n;
	int err, wst = 0, exec_err = 0, masked = 0;

	memset(res, 0, sizeof(*res));
	c.arena.fd = -1;
	res->status = EXIT_CDT_FAILED;
	err = run_find(o->argv[0], path, sizeof(path));
	if (err) {
		fprintf(stderr, "cdt: %s: %s\n", o->argv[0],
			err == -ENOENT ? "command not found" : strerror(-err));
		res->status = err == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
		return err;
	}
	err = run_vet(path);
	if (err) {
		if (err == -EISDIR || err == -EACCES)
			res->status = EXIT_CANNOT_EXEC;
		return err;
	}
	snprintf(cfg.tool, sizeof(cfg.tool), "%s", o->tool_name);
	memcpy(cfg.params, o->params, sizeof(cfg.params));
	memcpy(cfg.counter, o->counter, sizeof(cfg.counter));
	cfg.ncounters = o->ncounters;
	cfg.counter_interval_ns = o->counter_interval_ns;
	cfg.flags = o->verbose ? AGENT_F_VERBOSE : 0;
	if (dbtrap_int1() == DBTRAP_INT1_AT)
		cfg.flags |= AGENT_F_INT1_AT;
	if (o->objects)
		cfg.flags |= AGENT_F_OBJECTS;
	if (o->count_only) {
		/* No sampling event: the agent only counts (cfg.counter). */
		snprintf(why, sizeof(why), "counting only, no samples");
	} else {
		err = source_select(&o->src, &cfg, why, sizeof(why));
		if (err) {
			fprintf(stderr, "cdt: %s\n", why);
			return err;
		}
		run_clock(o, &cfg, why, sizeof(why));
	}
	if (!o->quiet)
		fprintf(stderr, "cdt %s: %s\n", o->tool_name, why);
	if (o->traps_lost) {
		/* The tool's prepare asked (the answer is kept): only the reason is new. */
		char line[1024];

		dbtrap_check(&dbt);
		dbtrap_say(&dbt, o->traps_lost, line, sizeof(line));
		if (!o->quiet)
			fprintf(stderr, "cdt %s: %s\n", o->tool_name, line);
		/* Short: the summary view shows it beside the other settings. */
		snprintf(traps, sizeof(traps), "not delivered (%s)", dbt.why);
	}
	err = arena_create(&c.arena, o->buffer_size ? o->buffer_size : RUN_DEFAULT_BUFFER, &cfg);
	if (err) {
		fprintf(stderr, "cdt: cannot create the shared record buffer: %s\n", strerror(-err));
		goto out;
	}
	ingest_init(&c.in, &c.arena, o->prof);
	p->ops = o->prof;
	c.agent_fd = run_agent_fd();
	if (c.agent_fd < 0) {
		err = c.agent_fd;
		fprintf(stderr, "cdt: cannot write the agent to a memfd: %s\n", strerror(-err));
		goto out;
	}
	c.agent_fd = run_fd_high(c.agent_fd);
	c.arena.fd = run_fd_high(c.arena.fd);
	err = run_env(c.agent_fd, c.arena.fd);
	if (err) {
		fprintf(stderr, "cdt: cannot set the environment: %s\n", strerror(-err));
		goto out;
	}
	if (topo_read(&p->topo))
		fprintf(stderr, "cdt: warning: cannot read the CPU topology\n");
	run_meta(o, p, why, &cfg, traps[0] ? traps : NULL);
	run_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, &oldmask);
	masked = 1;
	c.sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c.sig_fd < 0) {
		err = -errno;
		fprintf(stderr, "cdt: signalfd: %s\n", strerror(-err));
		goto out;
	}
	start_rt = run_now(CLOCK_REALTIME);
	c.t0 = run_now(CLOCK_MONOTONIC);
	res->t_spawn = c.t0;
	c.child = run_spawn(&c, path, &oldmask, &exec_err);
	if (c.child < 0) {
		err = c.child;
		/* A failed attach hook has said why. */
		if (!c.attach_failed)
			fprintf(stderr, "cdt: fork: %s\n", strerror(-err));
		goto out;
	}
	if (exec_err) {
		waitpid(c.child, NULL, 0);
		fprintf(stderr, "cdt: cannot execute %s: %s\n", path, strerror(exec_err));
		res->status = exec_err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
		err = -exec_err;
		goto out;
	}
	err = run_loop(&c, &wst, res);
	if (err) {
		fprintf(stderr, "cdt: collecting records failed: %s\n", strerror(-err));
		kill(c.child, SIGKILL);
		waitpid(c.child, &wst, 0);
		goto out;
	}
	/* The program is gone; what its processes left is final. */
	err = run_drain(&c, 1);
	if (!err) {
		err = run_poll(&c, 1);
		err = err > 0 ? 0 : err;
	}
	res->t_end = run_now(CLOCK_MONOTONIC);
	run_bound_tasks(&c, 1);
	run_live(&c, 1);
	run_cost(&c, 1);
	run_report_end(&c, wst, res);
	run_rejected(&c);
	ingest_counters(&c.in, run_wall_bound(&c), 1, &n);
	/* The program can zero the count: records are proof enough. */
	if (!c.records && !n.agents) {
		fprintf(stderr, "cdt: the agent never loaded into %s (does it clear "
			"LD_PRELOAD, or run a static binary?); nothing was profiled\n", path);
		res->no_agent = 1;
		res->status = EXIT_CDT_FAILED;
		err = -ENOEXEC;
		goto out;
	}
	run_errors(p, o->quiet);
	run_report_procs(&c, res);
	profile_number_tasks(p);
	run_stats(&c, res, start_rt);
out:
	if (c.sig_fd >= 0)
		close(c.sig_fd);
	if (masked)
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (c.agent_fd >= 0)
		close(c.agent_fd);
	ingest_free(&c.in);
	if (c.arena.hdr)
		arena_destroy(&c.arena);
	unsetenv("LD_PRELOAD");
	unsetenv(AGENT_ENV_FD);
	return err;
}

const char *run_default_output(char *buf, size_t len)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
					    "PMI_RANK", "SLURM_PROCID", "MV2_COMM_WORLD_RANK" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *r = getenv(vars[i]);

		if (r && *r && strspn(r, "0123456789") == strlen(r)) {
			snprintf(buf, len, "cdt.data.%s", r);
			return buf;
		}
	}
	return "cdt.data";
}

/*
 * The closing line, one wording for every tool, with the figures of the
 * summary view: samples and traps the agent took (whatever the tool kept
 * of them), threads and processes.
 */
static void run_say_wrote(const struct run_opts *o, const struct profile *p, const char *path)
{
	uint64_t samples = 0, traps = 0;

	for (size_t i = 0; i < p->ntasks; i++) {
		samples += p->tasks[i].st.samples;
		traps += p->tasks[i].st.traps;
	}
	fprintf(stderr, "cdt %s: wrote %s: %" PRIu64 " sample%s, %" PRIu64 " trap%s, %zu thread%s "
		"in %zu process%s\n", o->tool_name, path, samples, samples == 1 ? "" : "s", traps,
		traps == 1 ? "" : "s", p->ntasks, p->ntasks == 1 ? "" : "s", p->nprocs,
		p->nprocs == 1 ? "" : "es");
}

int run_save(const struct run_opts *o, struct profile *p, const char *path)
{
	uint64_t t0 = run_now(CLOCK_MONOTONIC), t1;
	char warn[512];
	int err = profile_symbolize(p, warn, sizeof(warn));

	t1 = run_now(CLOCK_MONOTONIC);
	if (err)
		fprintf(stderr, "cdt: symbolization failed (%s); addresses stay raw\n",
			strerror(-err));
	else if (warn[0])
		fprintf(stderr, "cdt: %s\n", warn);
	err = profile_write(p, path);
	if (err) {
		fprintf(stderr, "cdt: cannot write %s: %s (an earlier file of that name "
			"is untouched)\n", path, strerror(-err));
		return err;
	}
	if (!o->quiet)
		run_say_wrote(o, p, path);
	if (o->verbose)
		fprintf(stderr, "cdt %s: after the program: symbols %.1f ms, the profile %.1f ms\n",
			o->tool_name, (double)(t1 - t0) / 1e6,
			(double)(run_now(CLOCK_MONOTONIC) - t1) / 1e6);
	return 0;
}

/* The options every profiling tool takes: 1 if argv[*i] was one of them
 * (*i advanced past its argument), 0 if not, or a negative errno (said). */
static int run_parse_common(int argc, char **argv, int *i, struct run_opts *o,
			    const char **output)
{
	const char *v = NULL;
	uint64_t n;
	int r;

	if ((r = cliopt_match(argc, argv, i, "-o", "--output", output)))
		return r < 0 ? -EINVAL : 1;
	if ((r = cliopt_match(argc, argv, i, NULL, "--source", &v))) {
		if (r < 0)
			return -EINVAL;
		if (!strcmp(v, "auto"))
			o->src.source = SRC_NONE;
		else if (!strcmp(v, "pmu"))
			o->src.source = SRC_PMU;
		else if (!strcmp(v, "soft"))
			o->src.source = SRC_SOFT;
		else {
			fprintf(stderr, "cdt: --source takes auto, pmu or soft, not '%s'\n", v);
			return -EINVAL;
		}
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, "-F", "--freq", &v))) {
		if (r < 0 || cliopt_u64("--freq", v, 0, &o->src.freq) || !o->src.freq)
			return -EINVAL;
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--max-overhead", &v))) {
		char *end;
		double pct;

		if (r < 0)
			return -EINVAL;
		errno = 0;
		pct = strtod(v, &end);
		if (errno || end == v || *end || !(pct >= 0 && pct <= 100)) {
			fprintf(stderr, "cdt: --max-overhead takes a percentage from 0 (none) to "
				"100, not '%s'\n", v);
			return -EINVAL;
		}
		o->budget_ppm = (uint32_t)(pct * 1e4 + 0.5);
		o->budget_given = 1;
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--clock", &v))) {
		if (r < 0)
			return -EINVAL;
		if (!strcmp(v, "auto"))
			o->clock = CLOCK_K_AUTO;
		else if (!strcmp(v, "perf"))
			o->clock = CLOCK_K_PERF;
		else if (!strcmp(v, "posix"))
			o->clock = CLOCK_K_POSIX;
		else {
			fprintf(stderr, "cdt: --clock takes auto, perf or posix, not '%s'\n", v);
			return -EINVAL;
		}
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, "-c", "--period", &v))) {
		if (r < 0 || cliopt_u64("--period", v, 0, &o->src.period) || !o->src.period)
			return -EINVAL;
		return 1;
	}
	/* Every tool that names data objects takes these; its default is its own. */
	if (cliopt_match(argc, argv, i, NULL, "--objects", NULL)) {
		o->objects = 1;
		return 1;
	}
	if (cliopt_match(argc, argv, i, NULL, "--no-objects", NULL)) {
		o->objects = 0;
		return 1;
	}
	if ((r = cliopt_match(argc, argv, i, NULL, "--buffer-size", &v))) {
		if (r < 0 || cliopt_u64("--buffer-size", v, 1, &n))
			return -EINVAL;
		if (n < 64 * 1024 || n > (1ull << 32) || (n & (n - 1))) {
			fprintf(stderr, "cdt: --buffer-size must be a power of two from 64K to 4G\n");
			return -EINVAL;
		}
		o->buffer_size = (size_t)n;
		return 1;
	}
	if (cliopt_match(argc, argv, i, "-q", "--quiet", NULL)) {
		o->quiet = 1;
		return 1;
	}
	if (cliopt_match(argc, argv, i, "-v", "--verbose", NULL)) {
		o->verbose = 1;
		return 1;
	}
	return 0;
}

/* The options every profiling tool takes, and the exit statuses. */
static void run_usage_common(FILE *f, uint64_t soft_hz, uint64_t pmu_period)
{
	fprintf(f,
		"  -o, --output FILE     profile to write (default cdt.data, cdt.data.RANK under MPI;\n"
		"                        - for stdout, after the program's output)\n"
		"      --source SRC      auto, pmu or soft (default auto)\n"
		"  -F, --freq HZ         soft: samples per second per thread, fixed (default: at\n"
		"                        most %llu, as the overhead budget allows)\n"
		"  -c, --period N        pmu: sampled events between samples (default %llu);\n"
		"                        soft: nanoseconds of CPU time between samples\n"
		"      --max-overhead PCT  keep samples within PCT%% of each thread's CPU time\n"
		"                        by sampling less (default %g; 0: no budget); -F or -c\n"
		"                        fix the rate instead\n"
		"      --clock CLK       soft: auto, perf (a task-clock event) or posix (a CPU-time\n"
		"                        timer, at most one sample a tick) (default auto)\n"
		"      --objects         name heap blocks, anonymous mappings and thread stacks,\n"
		"                        by allocation call path (default)\n"
		"      --no-objects      static variables only: less overhead in malloc-heavy\n"
		"                        programs\n"
		"      --buffer-size N   shared record buffer, a power of two (default 8M)\n"
		"  -q, --quiet           only errors on stderr\n"
		"  -v, --verbose         more detail on stderr\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: the program's, 128+N if signal N killed it, 125 if cdt failed,\n"
		"126 if the program cannot be executed, 127 if it is not found.\n",
		(unsigned long long)soft_hz, (unsigned long long)pmu_period,
		RUN_DEFAULT_BUDGET_PPM / 1e4);
}

static void run_usage(FILE *f, const struct run_ops *ops)
{
	ops->usage(f);
	run_usage_common(f, ops->soft_hz ? ops->soft_hz : SOFT_DEFAULT_HZ,
			 ops->pmu_period ? ops->pmu_period : PMU_DEFAULT_PERIOD);
}

int run_tool(const char *name, const struct run_ops *ops, const struct prof_ops *prof,
	     int argc, char **argv)
{
	struct run_opts o = { .tool_name = name, .ops = ops, .prof = prof, .objects = ops->objects,
			      .budget_ppm = RUN_DEFAULT_BUDGET_PPM,
			      .src = { .default_hz = ops->soft_hz, .pmu_sample = ops->pmu_sample,
				       .pmu_period = ops->pmu_period } };
	const char *output = NULL;
	uint64_t begin = run_now(CLOCK_MONOTONIC);
	struct run_result res;
	struct profile p;
	char outbuf[64];
	int i = 1, r;

	if (ops->defaults)
		ops->defaults(&o);
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			run_usage(stdout, ops);
			return 0;
		}
		r = run_parse_common(argc, argv, &i, &o, &output);
		if (!r && ops->option)
			r = ops->option(&o, argc, argv, &i);
		if (r < 0)
			return EXIT_CDT_FAILED;
		if (r)
			continue;
		fprintf(stderr, "cdt %s: unknown option '%s' (cdt %s --help lists them)\n", name,
			argv[i], name);
		return EXIT_CDT_FAILED;
	}
	if (i >= argc) {
		fprintf(stderr, "cdt %s: no program to run (cdt %s --help)\n", name, name);
		return EXIT_CDT_FAILED;
	}
	o.argv = argv + i;
	if (ops->prepare && ops->prepare(&o))
		return EXIT_CDT_FAILED;
	if (!output)
		output = run_default_output(outbuf, sizeof(outbuf));
	/* Before the program runs, not after: a run cannot be had again. */
	r = df_check(output);
	if (r) {
		fprintf(stderr, "cdt %s: cannot write the profile to '%s': %s; the program "
			"was not started (-o names the file)\n", name, output,
			r == -EINVAL ? "empty file name" :
			r == -ENOTTY ? "it is a terminal (redirect it to a file or a pipe)" :
			r == -EBADF ? "that descriptor is not open for writing" :
			r == -EPERM ? "the directory is sticky and neither it nor the file is "
				      "yours, so the file cannot be replaced" : strerror(-r));
		return EXIT_CDT_FAILED;
	}
	profile_init(&p);
	if (run_program(&o, &p, &res))
		goto out;
	if (o.verbose)
		fprintf(stderr, "cdt %s: before the program: %.1f ms (calibration, agent, shared "
			"buffer); the program under the agent: %.1f ms\n", name,
			(double)(res.t_spawn - begin) / 1e6, (double)(res.t_end - res.t_spawn) / 1e6);
	if ((ops->finish && ops->finish(&o, &p)) || run_save(&o, &p, output)) {
		/* 125 says cdt failed; the program's own end is said here, or
		 * it would be lost with it (a full disk after a good run). */
		if (res.term_signal)
			fprintf(stderr, "cdt %s: the program was killed by signal %d (%s); cdt "
				"exits %d as its profile was not written\n", name, res.term_signal,
				strsignal(res.term_signal), EXIT_CDT_FAILED);
		else
			fprintf(stderr, "cdt %s: the program exited %d; cdt exits %d as its "
				"profile was not written\n", name, res.status, EXIT_CDT_FAILED);
		res.status = EXIT_CDT_FAILED;
		goto out;
	}
	/* The report goes to stderr, as perf stat's and time's: stdout is the
	 * program's (`cdt comm pigz -c f > f.gz`). */
	if (ops->report && !o.quiet && (ops->report(&p) || fflush(stderr))) {
		fprintf(stderr, "cdt %s: cannot print the report\n", name);
		res.status = EXIT_CDT_FAILED;
	}
out:
	profile_free(&p);
	return res.status;
}
