// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's file descriptors live among the program's, which may close
 * or reuse any number (closefrom, close_range, a dup2 onto it).  So:
 *   - perf events are opened close-on-exec (an exec'd image opens its
 *     own) and moved above the arena's descriptor, which the front end
 *     put high, away from the low numbers programs take to be free (or
 *     in the upper half below it when every number above is taken); one
 *     that cannot go there is closed, never kept low;
 *   - a program that lowers RLIMIT_NOFILE below them is seen first
 *     (setrlimit, prlimit): what live threads open lazily is opened then;
 *   - an event is closed only while its number still holds that event,
 *     told by its perf id: the agent never closes a file of the program's;
 *   - before exec, the two descriptors the next image needs (the agent's
 *     memfd that LD_PRELOAD names, and the arena) are checked, and a
 *     process that will run unprofiled is named, once, in the profile.
 * Async-signal-safe throughout: watchpoints open from trap handlers, and
 * exec may be called from a signal handler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/agent/agent.h"

/* What the next image needs, as found at start: fd, device and inode. */
static struct fds_keep {
	int fd;
	dev_t dev;
	ino_t ino;
} fds_keep[2] = { { -1, 0, 0 }, { -1, 0, 0 } };

/* Once per process: what cdt gives up rather than take a low number. */
static void fds_say_low(void)
{
	static atomic_int said;

	atomic_store(&agent_g.fds_low, 1);
	if (atomic_exchange(&said, 1))
		return;
	agent_error(EMFILE, "agent: the program's descriptor limit (RLIMIT_NOFILE) is below "
			    "cdt's descriptors, and cdt takes none of the program's low numbers: "
			    "what it had not opened by then stays closed (threads started since "
			    "sample on the POSIX clock, with no watchpoints or counters; none "
			    "with a PMU)");
}

int agent_perf_open(struct perf_event_attr *a, pid_t tid, int group, uint64_t *id)
{
	int base = agent_g.arena.fd + 1, fd, nfd;

	/* Not even for a moment: the kernel gives the lowest free number,
	 * the one the program may be about to open. */
	if (atomic_load(&agent_g.fds_low))
		return -EMFILE;
	fd = (int)syscall(SYS_perf_event_open, a, tid, -1, group, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (base > 1 && fd < base) {
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, base);
		/* Every number above is taken (a thread-heavy program under a
		 * limit of 1024 leaves 22): the upper half below, still far
		 * from the low numbers programs take. */
		if (nfd < 0 && errno == EMFILE)
			nfd = fcntl(fd, F_DUPFD_CLOEXEC, base / 2);
		/* EINVAL: the program's limit is at or below cdt's descriptors
		 * (lowered without setrlimit).  Refuse rather than keep a
		 * number the program counts on. */
		else if (nfd < 0)
			fds_say_low();
		close(fd);
		if (nfd < 0)
			return -EMFILE;
		fd = nfd;
	}
	*id = 0;
	ioctl(fd, PERF_EVENT_IOC_ID, id);
	return fd;
}

/*
 * The program is about to set RLIMIT_NOFILE to `cur`.  At or below cdt's
 * descriptors no new one of cdt's could be placed high any more: the
 * debug-register events that live threads open on first use are opened
 * now, while they still can be, and kept disabled until armed.
 */
static void fds_before_limit(uint64_t cur)
{
	if (cur > (uint64_t)agent_g.arena.fd + 1 || !agent_g.active || atomic_load(&agent_g.fds_low))
		return;
	/* Threads that start meanwhile open their events high, still. */
	if (agent_g.tool->trap)
		for (int i = 0, n = atomic_load(&agent_g.nthr); i < n; i++)
			if (atomic_load(&agent_g.thr[i].used))
				wpt_prepare(&agent_g.thr[i].wp);
	fds_say_low();
}

/*
 * setrlimit and prlimit, as the one system call glibc makes for each (on
 * x86-64 struct rlimit and rlimit64 are the same), with the limit's drop
 * seen first.  Never changed: cdt does not raise a program's limit.
 */
static int fds_prlimit(pid_t pid, int res, const struct rlimit *nl, struct rlimit *ol)
{
	int self = res == RLIMIT_NOFILE && nl && (!pid || pid == getpid()), ret;

	if (self)
		fds_before_limit(nl->rlim_cur);
	ret = (int)syscall(SYS_prlimit64, pid, res, nl, ol);
	/* Raised again above cdt's descriptors: they can go high again. */
	if (self && !ret && nl->rlim_cur > (uint64_t)agent_g.arena.fd + 1)
		atomic_store(&agent_g.fds_low, 0);
	return ret;
}

AGENT_API int setrlimit(__rlimit_resource_t res, const struct rlimit *rl)
{
	return fds_prlimit(0, (int)res, rl, NULL);
}

AGENT_API int setrlimit64(__rlimit_resource_t res, const struct rlimit64 *rl)
{
	return fds_prlimit(0, (int)res, (const struct rlimit *)rl, NULL);
}

AGENT_API int prlimit(pid_t pid, __rlimit_resource_t res, const struct rlimit *nl,
		      struct rlimit *ol)
{
	return fds_prlimit(pid, (int)res, nl, ol);
}

AGENT_API int prlimit64(pid_t pid, __rlimit_resource_t res, const struct rlimit64 *nl,
			struct rlimit64 *ol)
{
	return fds_prlimit(pid, (int)res, (const struct rlimit *)nl, (struct rlimit *)ol);
}

void agent_perf_close(int *fd, uint64_t id)
{
	uint64_t now = 0;

	if (*fd >= 0 && ioctl(*fd, PERF_EVENT_IOC_ID, &now) == 0 && now == id)
		close(*fd);
	*fd = -1;
}

static void fds_note(struct fds_keep *k, int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return;
	k->fd = fd;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
}

void fds_init(void)
{
	Dl_info info;
	const char *s;
	long n = 0;

	fds_note(&fds_keep[0], agent_g.arena.fd);
	/* Loaded as /proc/self/fd/N (run.c): N is the agent's memfd. */
	if (!dladdr((void *)fds_init, &info) || !info.dli_fname ||
	    strncmp(info.dli_fname, "/proc/self/fd/", 14))
		return;
	for (s = info.dli_fname + 14; *s >= '0' && *s <= '9' && n < 1 << 24; s++)
		n = n * 10 + (*s - '0');
	if (!*s)
		fds_note(&fds_keep[1], (int)n);
}

static int fds_intact(const struct fds_keep *k)
{
	struct stat st;

	return k->fd < 0 || (!fstat(k->fd, &st) && st.st_dev == k->dev && st.st_ino == k->ino);
}

/* Appends s to buf (len bytes in all) at *n, as far as it fits. */
static void fds_cat(char *buf, size_t len, size_t *n, const char *s)
{
	while (*s && *n + 1 < len)
		buf[(*n)++] = *s++;
	buf[*n] = '\0';
}

int fds_check_exec(const char *path)
{
	char msg[512], num[16];
	size_t n = 0, k = sizeof(num);
	unsigned pid = (unsigned)getpid();

	if (fds_intact(&fds_keep[0]) && fds_intact(&fds_keep[1]))
		return 0;
	num[--k] = '\0';
	do
		num[--k] = (char)('0' + pid % 10);
	while ((pid /= 10) && k);
	fds_cat(msg, sizeof(msg), &n, "process ");
	fds_cat(msg, sizeof(msg), &n, num + k);
	fds_cat(msg, sizeof(msg), &n, " runs ");
	fds_cat(msg, sizeof(msg), &n, path ? path : "?");
	fds_cat(msg, sizeof(msg), &n, " unprofiled: it closed cdt's descriptors before exec "
		"(closefrom or close_range?), so the agent cannot load into it");
	agent_error(EBADF, msg);
	return 1;
}
