// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample-source selection: pmu when the hardware can sample memory
 * precisely and the kernel lets us, soft otherwise, and why.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/pmu_events.h"
#include "lib/wire/record.h"
#include "lib/core/source.h"

#define MAX_RATE_FILE "/proc/sys/kernel/perf_event_max_sample_rate"
#define DEFAULT_MAX_STEPS 16u
#define DEFAULT_RING_PAGES 8u

/* The kernel's cap on samples per second, or 0 if unknown. */
static uint64_t max_sample_rate(void)
{
	char buf[32];
	int fd = open(MAX_RATE_FILE, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

static void rate_text(uint64_t hz, char *buf, size_t len)
{
	if (hz >= 1000 && hz % 1000 == 0)
		snprintf(buf, len, "%llu kHz", (unsigned long long)(hz / 1000));
	else
		snprintf(buf, len, "%llu Hz", (unsigned long long)hz);
}

/*
 * Soft: task-clock sampling, period in ns.  `reason` says why pmu was not
 * taken ("" when the user asked for soft); `note` is appended.
 */
static int select_soft(const struct source_req *req, struct agent_cfg *cfg,
		       const char *reason, const char *note, char *why, size_t whylen)
{
	uint64_t maxrate = max_sample_rate();
	uint64_t period, hz;
	char rate[80], hztext[32];

	if (req->period && req->freq) {
		snprintf(why, whylen, "give either --period or --freq, not both");
		return -EINVAL;
	}
	if (req->period) {
		period = req->period;
		hz = 1000000000ull / period;
	} else {
		hz = req->freq ? req->freq : req->default_hz ? req->default_hz : SOFT_DEFAULT_HZ;
		period = 1000000000ull / hz;
	}
	/* The kernel throttles above its cap, and the result would lie about rate. */
	if (maxrate && (hz > maxrate || period == 0)) {
		if (req->period)
			snprintf(why, whylen, "--period %llu ns means %llu samples/s per thread, above "
				 "the kernel's limit of %llu (" MAX_RATE_FILE ")",
				 (unsigned long long)req->period, (unsigned long long)hz,
				 (unsigned long long)maxrate);
		else
			snprintf(why, whylen, "--freq %llu is above the kernel's limit of %llu "
				 "samples/s (" MAX_RATE_FILE ")",
				 (unsigned long long)hz, (unsigned long long)maxrate);
		return -EINVAL;
	}
	if (period == 0) {
		snprintf(why, whylen, "--freq %llu is too high", (unsigned long long)hz);
		return -EINVAL;
	}
	cfg->source = SRC_SOFT;
	cfg->nevents = 1;
	memset(&cfg->ev[0], 0, sizeof(cfg->ev[0]));
	cfg->ev[0].type = PERF_TYPE_SOFTWARE;
	cfg->ev[0].config = PERF_COUNT_SW_TASK_CLOCK;
	cfg->ev[0].period = period;
	cfg->ev[0].kind = 0; /* the decoder tells loads from stores */

	rate_text(hz, hztext, sizeof(hztext));
	if (req->period)
		snprintf(rate, sizeof(rate), "every %llu ns (%s)", (unsigned long long)period, hztext);
	else
		snprintf(rate, sizeof(rate), "at %s", hztext);
	snprintf(why, whylen, "%s%susing soft sampling %s%s", reason, *reason ? ": " : "", rate, note);
	return 0;
}

/*
 * 0 with cfg filled and `reason` the banner, or a negative errno with
 * `reason` saying why pmu cannot be used; the caller fails or falls back.
 */
static int try_pmu(const struct source_req *req, struct agent_cfg *cfg,
		   char *reason, size_t rlen, char *detail, size_t dlen)
{
	struct events_host h;
	struct agent_event ev[AGENT_MAX_EVENTS];
	uint64_t period = req->period ? req->period : PMU_DEFAULT_PERIOD;
	char err[256], names[128];
	uint32_t nev = 0;
	int r;

	events_host_detect(&h);
	snprintf(detail, dlen, "%s%s%s", h.hypervisor, h.hypervisor[0] ? " guest; " : "",
		 h.hw_detail);
	if (!h.hw_pmu) {
		if (h.hypervisor[0])
			snprintf(reason, rlen, "no hardware PMU (%s guest)", h.hypervisor);
		else
			snprintf(reason, rlen, "no hardware PMU (%s)", h.hw_detail);
		return -ENODEV;
	}
	if (req->pmu_sample) {
		/* The tool's events have defaults of their own: 0 asks for them. */
		r = req->pmu_sample(&h, req->period, ev, &nev, names, sizeof(names), err,
				    sizeof(err));
		if (!r)
			period = ev[0].period;
	} else {
		r = events_mem_encode(&h, period, ev, &nev, err, sizeof(err));
		/* SPE records arrive in the AUX area, which the agent does not read. */
		if (!r && h.row->route == EV_ROUTE_SPE) {
			snprintf(reason, rlen, "Arm SPE is present but cdt cannot read SPE records yet");
			return -EOPNOTSUPP;
		}
		if (!r)
			events_mem_name(h.row, names, sizeof(names));
	}
	if (r < 0) {
		snprintf(reason, rlen, "%s", err);
		return r;
	}
	r = events_try_open(&ev[0]);
	if (r < 0) {
		snprintf(reason, rlen, "%s does not open (%s)", names, strerror(-r));
		return r;
	}
	cfg->source = SRC_PMU;
	cfg->nevents = nev;
	memset(cfg->ev, 0, sizeof(cfg->ev));
	memcpy(cfg->ev, ev, nev * sizeof(ev[0]));
	snprintf(reason, rlen, "pmu: %s on %s, period %llu", names,
		 h.pmu[0] ? h.pmu : h.row ? h.row->sysfs : "?", (unsigned long long)period);
	return 0;
}

int source_select(const struct source_req *req, struct agent_cfg *cfg,
		  char *why, size_t whylen)
{
	char reason[384], detail[256];
	int r;

	cfg->max_steps = DEFAULT_MAX_STEPS;
	cfg->ring_pages = DEFAULT_RING_PAGES;
	switch (req->source) {
	case SRC_SOFT:
		return select_soft(req, cfg, "", "", why, whylen);
	case SRC_PMU:
		if (req->freq) {
			snprintf(why, whylen, "--freq applies to soft sampling; "
				 "give --period (events between samples) with --source pmu");
			return -EINVAL;
		}
		r = try_pmu(req, cfg, reason, sizeof(reason), detail, sizeof(detail));
		if (!r) {
			snprintf(why, whylen, "%s", reason);
			return 0;
		}
		if (r == -ENODEV)
			snprintf(why, whylen, "--source pmu: the kernel exposes no hardware PMU "
				 "(%s); use --source soft", detail);
		else
			snprintf(why, whylen, "--source pmu: %s; use --source soft", reason);
		return r;
	case SRC_NONE:
		/* Only soft sampling has a frequency: --freq chooses it. */
		if (req->freq)
			return select_soft(req, cfg, "--freq given", "", why, whylen);
		r = try_pmu(req, cfg, reason, sizeof(reason), detail, sizeof(detail));
		if (!r) {
			snprintf(why, whylen, "%s", reason);
			return 0;
		}
		if (req->period) {
			/* A period counted in events would be misread as ns. */
			struct source_req soft = *req;

			soft.period = 0;
			return select_soft(&soft, cfg, reason, " (--period ignored: without "
					   "--source it counts pmu events; give --source soft "
					   "for a period in ns)", why, whylen);
		}
		return select_soft(req, cfg, reason, "", why, whylen);
	default:
		snprintf(why, whylen, "unknown sample source %d", req->source);
		return -EINVAL;
	}
}
