// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event encoding (libpfm4), the memory-sampling table, host detection.
 */
#include <linux/perf_event.h> /* before libpfm4's copy, which then steps aside */

#include <perfmon/pfmlib_perf_event.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "lib/core/pmu_events.h"
#include "lib/wire/perf_attr.h"
#include "lib/wire/record.h"

/*
 * Precise memory-sampling events per libpfm4 PMU.  Names verified with
 * libpfm4 4.13 under LIBPFM_FORCE_PMU (see tests/unit/test_events.c);
 * adl_glc and the Zen 5 row need a newer libpfm4 and were not.
 */
#define UOPS(pmu) { pmu, EV_ROUTE_PFM, "MEM_UOPS_RETIRED:ALL_LOADS:precise=2", \
		    "MEM_UOPS_RETIRED:ALL_STORES:precise=2", NULL }
#define INST(pmu) { pmu, EV_ROUTE_PFM, "MEM_INST_RETIRED:ALL_LOADS:precise=2", \
		    "MEM_INST_RETIRED:ALL_STORES:precise=2", NULL }

static const struct ev_row ev_table[] = {
	UOPS("snb"), UOPS("snb_ep"), UOPS("ivb"), UOPS("ivb_ep"),
	UOPS("hsw"), UOPS("hsw_ep"), UOPS("bdw"), UOPS("bdw_ep"),
	UOPS("glm"), UOPS("tmt"), UOPS("knl"), UOPS("knm"),
	INST("skl"), INST("skx"), INST("clx"), INST("icl"), INST("icx"),
	INST("spr"), INST("adl_glc"),
	/* Zen: IBS op tags every op; the kernel fills in the data address. */
	{ "amd64_fam17h*", EV_ROUTE_IBS, NULL, NULL, "ibs_op" },
	{ "amd64_fam19h*", EV_ROUTE_IBS, NULL, NULL, "ibs_op" },
	{ "amd64_fam1ah*", EV_ROUTE_IBS, NULL, NULL, "ibs_op" },
	{ "arm_*", EV_ROUTE_SPE, NULL, NULL, "arm_spe_0" },
	{ NULL, 0, NULL, NULL, NULL },
};

/*
 * libpfm4 lags behind new CPUs (4.13 does not know Zen 5), but the kernel
 * PMU that carries the samples is what matters for IBS and SPE.
 */
static const struct ev_row ev_sysfs_rows[] = {
	{ "ibs_op", EV_ROUTE_IBS, NULL, NULL, "ibs_op" },
	{ "arm_spe_0", EV_ROUTE_SPE, NULL, NULL, "arm_spe_0" },
};

const struct ev_row *events_table(void)
{
	return ev_table;
}

const struct ev_row *events_table_lookup(const char *pmu)
{
	if (!pmu || !*pmu)
		return NULL;
	for (const struct ev_row *r = ev_table; r->pmu; r++) {
		size_t n = strlen(r->pmu);

		if (n && r->pmu[n - 1] == '*') {
			if (!strncmp(pmu, r->pmu, n - 1))
				return r;
		} else if (!strcmp(pmu, r->pmu)) {
			return r;
		}
	}
	return NULL;
}

int events_init(void)
{
	return pfm_initialize() == PFM_SUCCESS ? 0 : -EIO;
}

void events_pfm_version(char *buf, size_t len)
{
	static const char soname[] = "libpfm.so.";
	char path[PATH_MAX];
	const char *base;
	Dl_info info;
	int v;

	/*
	 * pfm_get_version() gives the API version (4.0) for every release;
	 * the release is in the shared object's file name.
	 */
	if (dladdr((void *)pfm_initialize, &info) && info.dli_fname &&
	    realpath(info.dli_fname, path)) {
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		if (!strncmp(base, soname, sizeof(soname) - 1) && base[sizeof(soname) - 1]) {
			snprintf(buf, len, "%s", base + sizeof(soname) - 1);
			return;
		}
	}
	v = pfm_get_version();
	if (v < 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "API %d.%d", PFM_MAJ_VERSION(v), PFM_MIN_VERSION(v));
}

int events_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

void events_attr(const struct agent_event *ev, struct perf_event_attr *attr)
{
	perf_attr_init(ev, attr);
	attr->disabled = 1;
	if (ev->period)
		attr->sample_type = PERF_ATTR_SAMPLE_TYPE;
}

int events_try_open(const struct agent_event *ev)
{
	struct perf_event_attr attr;
	int fd;

	events_attr(ev, &attr);
	fd = events_perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Read a small sysfs/procfs file into buf, trailing newline removed. */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int events_sysfs_type(const char *dir, const char *pmu)
{
	char path[512], buf[32], *end;
	long v;
	int r;

	snprintf(path, sizeof(path), "%s/%s/type", dir ? dir : EVENTS_SYSFS_DIR, pmu);
	r = read_small(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v < 0 || v > INT32_MAX)
		return -EINVAL;
	return (int)v;
}

/*
 * Set the bit a sysfs format file names ("config:19", "config2:0") in ev.
 * Only single bits: the flags IBS and SPE need are all one bit wide.
 */
static int sysfs_format_bit(const char *dir, const char *pmu, const char *fmt,
			    struct agent_event *ev)
{
	char path[512], buf[64], *colon, *end;
	unsigned long bit;
	uint64_t *word;
	int r;

	snprintf(path, sizeof(path), "%s/%s/format/%s", dir, pmu, fmt);
	r = read_small(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (!strcmp(buf, "config"))
		word = &ev->config;
	else if (!strcmp(buf, "config1"))
		word = &ev->config1;
	else if (!strcmp(buf, "config2"))
		word = &ev->config2;
	else
		return -EINVAL;
	errno = 0;
	bit = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || bit > 63)
		return -EINVAL;
	*word |= 1ull << bit;
	return 0;
}

/* The first present core PMU libpfm4 knows, preferring one the table has. */
static void host_pfm_pmu(char *name, size_t nlen, char *desc, size_t dlen)
{
	pfm_pmu_info_t info;
	int found = 0, p;

	name[0] = '\0';
	if (desc)
		desc[0] = '\0';
	if (events_init() < 0)
		return;
	pfm_for_all_pmus(p) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS)
			continue;
		if (!info.is_present || info.type != PFM_PMU_TYPE_CORE)
			continue;
		if (found && !events_table_lookup(info.name))
			continue;
		snprintf(name, nlen, "%s", info.name);
		if (desc)
			snprintf(desc, dlen, "%s", info.desc ? info.desc : "");
		if (events_table_lookup(info.name))
			return;
		found = 1;
	}
}

/* Value of the first "key<spaces>: value" line of /proc/cpuinfo. */
static void cpuinfo_field(const char *text, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = text;

	out[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, key, klen) && (p[klen] == ' ' || p[klen] == '\t' || p[klen] == ':')) {
			const char *v = strchr(p, ':');
			const char *eol = strchr(p, '\n');
			size_t n;

			if (!v || (eol && v > eol))
				return;
			v++;
			while (*v == ' ' || *v == '\t')
				v++;
			n = eol ? (size_t)(eol - v) : strlen(v);
			if (n >= len)
				n = len - 1;
			memcpy(out, v, n);
			out[n] = '\0';
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

static void host_cpu(struct events_host *h)
{
	char text[8192], vendor[16], fam[8], model[8];
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	h->cpu_model[0] = h->cpu_id[0] = '\0';
	if (fd < 0)
		return;
	/* The first CPU's block is enough; it sits at the start. */
	while (got < (ssize_t)sizeof(text) - 1 &&
	       (n = read(fd, text + got, sizeof(text) - 1 - got)) > 0)
		got += n;
	close(fd);
	text[got] = '\0';

	cpuinfo_field(text, "model name", h->cpu_model, sizeof(h->cpu_model));
	cpuinfo_field(text, "vendor_id", vendor, sizeof(vendor));
	cpuinfo_field(text, "cpu family", fam, sizeof(fam));
	cpuinfo_field(text, "model", model, sizeof(model));
	if (vendor[0]) {
		snprintf(h->cpu_id, sizeof(h->cpu_id), "%s family %s model %s",
			 vendor, fam, model);
		return;
	}
	/* Arm: implementer and part number identify the core. */
	cpuinfo_field(text, "CPU implementer", vendor, sizeof(vendor));
	cpuinfo_field(text, "CPU part", model, sizeof(model));
	if (vendor[0])
		snprintf(h->cpu_id, sizeof(h->cpu_id), "implementer %s part %s",
			 vendor, model);
}

static void host_hypervisor(struct events_host *h)
{
	h->hypervisor[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	{
		static const struct { const char *sig, *name; } hv[] = {
			{ "KVMKVMKVM", "KVM" }, { "Microsoft Hv", "Hyper-V" },
			{ "VMwareVMware", "VMware" }, { "XenVMMXenVMM", "Xen" },
			{ "TCGTCGTCGTCG", "QEMU TCG" }, { "bhyve bhyve ", "bhyve" },
			{ "ACRNACRNACRN", "ACRN" }, { "VBoxVBoxVBox", "VirtualBox" },
			{ " lrpepyh  vr", "Parallels" },
		};
		unsigned int a, b, c, d;
		char sig[13];

		if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
			return;
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		sig[12] = '\0';
		snprintf(h->hypervisor, sizeof(h->hypervisor), "unknown hypervisor");
		for (size_t i = 0; i < sizeof(hv) / sizeof(hv[0]); i++) {
			if (!strncmp(sig, hv[i].sig, strlen(hv[i].sig))) {
				snprintf(h->hypervisor, sizeof(h->hypervisor), "%s", hv[i].name);
				break;
			}
		}
		return;
	}
#else
	{
		char buf[32];

		if (!read_small("/sys/hypervisor/type", buf, sizeof(buf)) && buf[0])
			snprintf(h->hypervisor, sizeof(h->hypervisor), "%s", buf);
	}
#endif
}

/* A sysfs core PMU: "cpu" (x86), "cpu_core"/"cpu_atom" (hybrid), armv8_* (Arm). */
static int host_sysfs_core_pmu(const char *dir, char *name, size_t len)
{
	static const char *const names[] = { "cpu", "cpu_core", "cpu_atom",
					     "armv8_pmuv3_0", "armv8_pmuv3" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (events_sysfs_type(dir, names[i]) >= 0) {
			snprintf(name, len, "%s", names[i]);
			return 1;
		}
	}
	return 0;
}

static void host_hw_pmu(struct events_host *h)
{
	struct agent_event cycles = { .type = PERF_TYPE_HARDWARE,
				      .config = PERF_COUNT_HW_CPU_CYCLES };
	struct perf_event_attr attr;
	char sysname[32] = "";
	int fd, sys;

	events_attr(&cycles, &attr);
	fd = events_perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	sys = host_sysfs_core_pmu(h->sysfs_dir, sysname, sizeof(sysname));
	if (fd >= 0) {
		close(fd);
		h->hw_pmu = 1;
		h->hw_err = 0;
		snprintf(h->hw_detail, sizeof(h->hw_detail),
			 "PERF_TYPE_HARDWARE cycles opens%s%s", sys ? "; sysfs PMU " : "",
			 sys ? sysname : "");
		return;
	}
	h->hw_err = -fd;
	if ((fd == -EACCES || fd == -EPERM) && sys) {
		/* perf_event_paranoid refused the test, but a driver is there. */
		h->hw_pmu = 1;
		snprintf(h->hw_detail, sizeof(h->hw_detail),
			 "sysfs PMU %s present; the cycles test open was refused (%s)",
			 sysname, strerror(-fd));
		return;
	}
	h->hw_pmu = 0;
	if (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV)
		snprintf(h->hw_detail, sizeof(h->hw_detail),
			 "no PMU driver: PERF_TYPE_HARDWARE cycles gives %s%s",
			 fd == -ENOENT ? "ENOENT" : strerror(-fd),
			 h->hypervisor[0] ? "; a VM without a virtual PMU" : "");
	else
		snprintf(h->hw_detail, sizeof(h->hw_detail),
			 "PERF_TYPE_HARDWARE cycles does not open: %s", strerror(-fd));
}

int events_host_detect(struct events_host *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->sysfs_dir, sizeof(h->sysfs_dir), "%s", EVENTS_SYSFS_DIR);
	host_pfm_pmu(h->pmu, sizeof(h->pmu), h->pmu_desc, sizeof(h->pmu_desc));
	host_cpu(h);
	host_hypervisor(h);
	host_hw_pmu(h);
	h->row = events_table_lookup(h->pmu);
	if (!h->row) {
		for (size_t i = 0; i < sizeof(ev_sysfs_rows) / sizeof(ev_sysfs_rows[0]); i++) {
			if (events_sysfs_type(h->sysfs_dir, ev_sysfs_rows[i].sysfs) >= 0) {
				h->row = &ev_sysfs_rows[i];
				break;
			}
		}
	}
	return 0;
}

/* "(libpfm4 PMU 'icl')" or why libpfm4 has no PMU for this CPU. */
static void pmu_phrase(char *buf, size_t len)
{
	struct events_host h;

	memset(&h, 0, sizeof(h));
	host_pfm_pmu(h.pmu, sizeof(h.pmu), NULL, 0);
	if (h.pmu[0]) {
		snprintf(buf, len, "libpfm4 PMU '%s'", h.pmu);
		return;
	}
	host_cpu(&h);
	snprintf(buf, len, "libpfm4 does not know this CPU%s%s; only generic perf events",
		 h.cpu_id[0] ? ", " : "", h.cpu_id);
}

int events_encode(const char *name, uint64_t period, struct agent_event *ev,
		  char *err, size_t errlen)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char phrase[160];
	int r;

	memset(ev, 0, sizeof(*ev));
	if (!name || !*name) {
		snprintf(err, errlen, "empty event name");
		return -EINVAL;
	}
	if (events_init() < 0) {
		snprintf(err, errlen, "event '%s': libpfm4 failed to initialize", name);
		return -EIO;
	}
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	r = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS) {
		pmu_phrase(phrase, sizeof(phrase));
		if (r == PFM_ERR_NOTFOUND) {
			snprintf(err, errlen, "event '%s' is unknown to this CPU (%s)",
				 name, phrase);
			return -ENOENT;
		}
		snprintf(err, errlen, "event '%s': %s (%s)", name, pfm_strerror(r), phrase);
		return r == PFM_ERR_NOMEM ? -ENOMEM : -EINVAL;
	}
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->precise_ip = attr.precise_ip;
	/* A ":period=N" modifier in the name counts when the caller gives none. */
	ev->period = period ? period : (attr.freq ? 0 : attr.sample_period);
	return 0;
}

static int mem_encode_sysfs(const struct events_host *h, uint64_t period,
			    struct agent_event *ev, char *err, size_t errlen)
{
	const struct ev_row *row = h->row;
	const char *dir = h->sysfs_dir[0] ? h->sysfs_dir : EVENTS_SYSFS_DIR;
	int type = events_sysfs_type(dir, row->sysfs);
	int r;

	memset(ev, 0, sizeof(*ev));
	if (type < 0) {
		snprintf(err, errlen, "%s: the kernel exposes no '%s' PMU (%s/%s/type: %s)%s",
			 row->route == EV_ROUTE_IBS ? "AMD IBS op" : "Arm SPE",
			 row->sysfs, dir, row->sysfs, strerror(-type),
			 h->hypervisor[0] ? "; hypervisors rarely pass it through" : "");
		return -ENOENT;
	}
	ev->type = (uint32_t)type;
	ev->period = period;
	if (row->route == EV_ROUTE_IBS) {
		/* Count ops, not cycles, so samples follow the instruction mix. */
		r = sysfs_format_bit(dir, row->sysfs, "cnt_ctl", ev);
		/* Kernels that filter privilege in software want this bit for exclude_kernel. */
		if (!r || r == -ENOENT)
			r = sysfs_format_bit(dir, row->sysfs, "swfilt", ev);
	} else {
		r = sysfs_format_bit(dir, row->sysfs, "ts_enable", ev);
		if (!r || r == -ENOENT)
			r = sysfs_format_bit(dir, row->sysfs, "load_filter", ev);
		if (!r || r == -ENOENT)
			r = sysfs_format_bit(dir, row->sysfs, "store_filter", ev);
	}
	if (r < 0 && r != -ENOENT) {
		snprintf(err, errlen, "%s: unreadable format in %s/%s/format: %s",
			 row->sysfs, dir, row->sysfs, strerror(-r));
		return r;
	}
	return 0;
}

int events_mem_encode(const struct events_host *h, uint64_t period,
		      struct agent_event ev[2], uint32_t *nev,
		      char *err, size_t errlen)
{
	const struct ev_row *row = h->row;
	int r;

	*nev = 0;
	if (!period) {
		snprintf(err, errlen, "memory sampling needs a period > 0");
		return -EINVAL;
	}
	if (!row) {
		if (h->pmu[0])
			snprintf(err, errlen, "no precise memory-sampling events are known for "
				 "this CPU (libpfm4 PMU '%s')", h->pmu);
		else
			snprintf(err, errlen, "no precise memory-sampling events are known for "
				 "this CPU (%s%s%s; libpfm4 does not know it)",
				 h->cpu_model[0] ? h->cpu_model : "unknown model",
				 h->cpu_id[0] ? ", " : "", h->cpu_id);
		return -ENOENT;
	}
	if (row->route != EV_ROUTE_PFM) {
		r = mem_encode_sysfs(h, period, &ev[0], err, errlen);
		if (r < 0)
			return r;
		*nev = 1;
		return 0;
	}
	r = events_encode(row->load, period, &ev[0], err, errlen);
	if (r < 0)
		return r;
	ev[0].kind = MEM_LOAD;
	r = events_encode(row->store, period, &ev[1], err, errlen);
	if (r < 0)
		return r;
	ev[1].kind = MEM_STORE;
	*nev = 2;
	return 0;
}

/* Copy "EVENT:UMASK" of a libpfm4 name, dropping modifiers such as ":precise=2". */
static void name_base(const char *name, char *out, size_t len)
{
	const char *c1 = strchr(name, ':');
	const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	size_t n = c2 ? (size_t)(c2 - name) : strlen(name);

	if (n >= len)
		n = len - 1;
	memcpy(out, name, n);
	out[n] = '\0';
}

void events_mem_name(const struct ev_row *row, char *buf, size_t len)
{
	char l[96], s[96];
	const char *lc, *sc;

	if (!row) {
		snprintf(buf, len, "none");
		return;
	}
	if (row->route == EV_ROUTE_IBS) {
		snprintf(buf, len, "%s (AMD IBS op)", row->sysfs);
		return;
	}
	if (row->route == EV_ROUTE_SPE) {
		snprintf(buf, len, "%s (Arm SPE)", row->sysfs);
		return;
	}
	name_base(row->load, l, sizeof(l));
	name_base(row->store, s, sizeof(s));
	lc = strchr(l, ':');
	sc = strchr(s, ':');
	/* Same event, two unit masks: "EV:ALL_LOADS+ALL_STORES". */
	if (lc && sc && lc - l == sc - s && !strncmp(l, s, (size_t)(lc - l)))
		snprintf(buf, len, "%s+%s", l, sc + 1);
	else
		snprintf(buf, len, "%s+%s", l, s);
}
