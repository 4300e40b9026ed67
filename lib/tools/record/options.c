// SPDX-License-Identifier: GPL-2.0-only
/* cdt record's command line: --watch, resolved before the run. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/cliopt.h"
#include "lib/core/dbtrap.h"
#include "lib/core/elfsym.h"
#include "lib/core/run.h"
#include "lib/tools/record/parts.h"
#include "lib/tools/record/record.h"

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: cdt record [options] [--] program [args...]\n"
		"\n"
		"Sample loads and stores in every thread of program and write a profile.\n"
		"\n"
		"      --watch SPEC      also trap every access to a variable or call of a\n"
		"                        function, in every thread: SYMBOL[:w|rw|x][:LEN] or\n"
		"                        0xADDR[:w|rw|x][:LEN] (default rw, the symbol's size)\n");
}

/* --watch: resolve the spec against the program before it runs; 0, or
 * -EINVAL after one line on stderr. */
static int record_watch(const char *spec, const char *prog, struct record_params *rp)
{
	char name[256], path[PATH_MAX];
	const char *type = "rw";
	uint64_t len = 0, addr;
	struct elfsym es = { 0 };
	char *p, *q;
	int err;

	snprintf(name, sizeof(name), "%s", spec);
	p = strchr(name, ':');
	if (p) {
		*p++ = '\0';
		q = strchr(p, ':');
		if (q) {
			*q++ = '\0';
			/* An explicit length is one a debug register takes. */
			if (cliopt_parse_u64(q, 0, &len) ||
			    (len != 1 && len != 2 && len != 4 && len != 8)) {
				fprintf(stderr, "cdt record: --watch %s: the length must be 1, 2, 4 "
					"or 8 (debug registers), not '%s'\n", spec, q);
				return -EINVAL;
			}
		}
		type = p;
	}
	if (!name[0]) {
		fprintf(stderr, "cdt record: --watch '%s': no symbol or address; give "
			"SYMBOL or 0xADDR, then :w, :rw or :x and :LEN\n", spec);
		return -EINVAL;
	}
	if (!strcmp(type, "x"))
		rp->watch_type = WPT_X;
	else if (!strcmp(type, "w"))
		rp->watch_type = WPT_W;
	else if (!strcmp(type, "rw") || !strcmp(type, "r"))
		rp->watch_type = WPT_RW;
	else {
		fprintf(stderr, "cdt record: --watch %s: the type must be w, rw or x, not '%s'\n",
			spec, type);
		return -EINVAL;
	}
	if (!strncmp(name, "0x", 2)) {
		addr = strtoull(name + 2, &p, 16);
		if (p == name + 2 || *p) {
			fprintf(stderr, "cdt record: --watch %s: bad address '%s'\n", spec, name);
			return -EINVAL;
		}
		es.value = addr;
		es.size = 8;
	} else {
		if (run_find(prog, path, sizeof(path)))
			return 0; /* the run reports a missing program */
		err = elfsym_lookup(path, name, &es);
		if (err) {
			fprintf(stderr, "cdt record: --watch: no symbol '%s' in %s%s\n", name, path,
				err == -ENOENT ? "" : " (cannot read its symbols)");
			return -EINVAL;
		}
		rp->watch_flags = es.pie ? WATCH_F_EXE_RELATIVE : 0;
	}
	/* Without a length: the symbol's size, if a debug register takes it. */
	if (!len)
		len = es.size > 8 || !es.size ? 8 : es.size;
	if (len != 1 && len != 2 && len != 4 && len != 8) {
		fprintf(stderr, "cdt record: --watch %s: '%s' is %llu bytes long; give a length "
			"of 1, 2, 4 or 8 (:LEN)\n", spec, name, (unsigned long long)len);
		return -EINVAL;
	}
	if (es.value & (len - 1)) {
		fprintf(stderr, "cdt record: --watch %s: %s is not %llu-byte aligned; debug "
			"registers need natural alignment\n", spec, name, (unsigned long long)len);
		return -EINVAL;
	}
	rp->watch_addr = es.value;
	rp->watch_len = (uint32_t)len;
	return 0;
}

/* --watch SPEC: kept until the program is known. */
static const char *record_watch_spec;

static int record_option(struct run_opts *o, int argc, char **argv, int *i)
{
	(void)o;
	return cliopt_match(argc, argv, i, NULL, "--watch", &record_watch_spec);
}

/*
 * Without debug-register traps --watch yields nothing; the run goes on
 * for its memory samples, the rest of what record gives, and says so (the
 * banner, the meta): failing would cost those for a feature the user can
 * drop (cdt-record(1)).
 */
static int record_prepare(struct run_opts *o)
{
	struct record_params *rp = (struct record_params *)o->params;
	struct dbtrap d;
	int err;

	if (!record_watch_spec)
		return 0;
	err = record_watch(record_watch_spec, o->argv[0], rp);
	if (!err && !dbtrap_check(&d))
		o->traps_lost = "--watch records no trap (the traps view stays empty); the "
				"memory samples are unaffected";
	return err;
}

const struct run_ops record_run = {
	/* What the objects view names is most of the point of a profile, and
	 * a block costs little (lib/agent/objects.c). */
	.objects = 1,
	.usage = record_usage,
	.option = record_option,
	.prepare = record_prepare,
};
