// SPDX-License-Identifier: GPL-2.0-only
/* cdt record: sample the memory accesses of every thread of a program. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "cmds.h"
#include "elfsym.h"
#include "run.h"

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
	run_usage_common(f, SOFT_DEFAULT_HZ);
}

/* --watch: resolve the spec against the program before it runs. */
static int record_watch(const char *spec, const char *prog, struct run_opts *o)
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
			if (cliopt_u64("--watch length", q, 0, &len))
				return -EINVAL;
		}
		type = p;
	}
	if (!strcmp(type, "x"))
		o->tool_param[RECORD_P_WATCH_TYPE] = WPT_X;
	else if (!strcmp(type, "w"))
		o->tool_param[RECORD_P_WATCH_TYPE] = WPT_W;
	else if (!strcmp(type, "rw") || !strcmp(type, "r"))
		o->tool_param[RECORD_P_WATCH_TYPE] = WPT_RW;
	else {
		fprintf(stderr, "cdt: --watch: type must be w, rw or x, not '%s'\n", type);
		return -EINVAL;
	}
	if (!strncmp(name, "0x", 2)) {
		addr = strtoull(name, &p, 16);
		if (*p) {
			fprintf(stderr, "cdt: --watch: bad address '%s'\n", name);
			return -EINVAL;
		}
		es.value = addr;
		es.size = 8;
	} else {
		if (run_find(prog, path, sizeof(path)))
			return 0; /* the run reports a missing program */
		err = elfsym_lookup(path, name, &es);
		if (err) {
			fprintf(stderr, "cdt: --watch: no symbol '%s' in %s%s\n", name, path,
				err == -ENOENT ? "" : " (cannot read its symbols)");
			return -EINVAL;
		}
		o->tool_param[RECORD_P_WATCH_FLAGS] = es.pie ? WATCH_F_EXE_RELATIVE : 0;
	}
	if (!len)
		len = es.size > 8 || !es.size ? 8 : es.size;
	if (len != 1 && len != 2 && len != 4 && len != 8) {
		fprintf(stderr, "cdt: --watch: length must be 1, 2, 4 or 8 (debug registers)\n");
		return -EINVAL;
	}
	if (es.value & (len - 1)) {
		fprintf(stderr, "cdt: --watch: %s is not %llu-byte aligned; debug registers "
			"need natural alignment\n", name, (unsigned long long)len);
		return -EINVAL;
	}
	o->tool_param[RECORD_P_WATCH_ADDR] = es.value;
	o->tool_param[RECORD_P_WATCH_LEN] = len;
	return 0;
}

/* --watch SPEC: kept in ctx until the program is known. */
static int record_option(void *ctx, int argc, char **argv, int *i, struct run_opts *o)
{
	(void)o;
	return cliopt_match(argc, argv, i, NULL, "--watch", (const char **)ctx);
}

static int record_prepare(void *ctx, struct run_opts *o)
{
	const char *watch = *(const char **)ctx;

	return watch ? record_watch(watch, o->argv[0], o) : 0;
}

int cmd_record(int argc, char **argv)
{
	/* Objects on: what the objects view names is most of the point of a
	 * profile, and a block costs little (lib/agent/objects.c). */
	struct run_opts o = { .tool_name = "record", .tool = TOOL_RECORD, .objects = 1 };
	const char *watch = NULL;
	const struct run_tool t = { .usage = record_usage, .option = record_option,
				    .prepare = record_prepare, .ctx = &watch };

	return run_tool(argc, argv, &o, &t);
}
