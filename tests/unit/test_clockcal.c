// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample clock's calibration (lib/core/clockcal.c): a measurement
 * gives figures of the right order on any Linux machine (a tick of 1 to
 * 10 ms, a signal and a sample under 10 ms); the cache file round-trips,
 * is used while it is fresh, and any file that is truncated, corrupt,
 * garbage, of another machine, too old or from the future is measured
 * again, never trusted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/core/clockcal.h"

#define MS 1000000ull

static char dir[64], path[4096], good[1024];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cdt-clockcal-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	setenv("XDG_CACHE_HOME", dir, 1);
	return clockcal_path(path, sizeof(path));
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void measured_and_kept(void **state)
{
	struct clockcal a, b;
	int measured;
	FILE *f;
	size_t n;

	(void)state;
	unlink(path);
	assert_int_equal(clockcal_get(&a, NULL, &measured), 0);
	assert_int_equal(measured, 1);
	assert_in_range(a.tick_ns, 1 * MS, 10 * MS);
	assert_in_range(a.posix_sig_ns, 1, 10 * MS);
	assert_true(a.perf_sig_ns <= 10 * MS);
	assert_true(a.switch_ns <= 10 * MS);
	/* Kept, and read back as it was. */
	assert_int_equal(clockcal_get(&b, NULL, &measured), 0);
	assert_int_equal(measured, 0);
	assert_memory_equal(&a, &b, sizeof(a));
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(good, 1, sizeof(good) - 1, f);
	fclose(f);
	good[n] = '\0';
	assert_int_equal(clockcal_parse(good, (int64_t)time(NULL), &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
}

/* good with the line starting `field` replaced by `line` ("" drops it). */
static void edited(const char *field, const char *line, char *out, size_t len)
{
	const char *at = strstr(good, field), *end;

	assert_non_null(at);
	end = strchr(at, '\n');
	assert_non_null(end);
	snprintf(out, len, "%.*s%s%s", (int)(at - good), good, line, end + 1);
}

static void bad_files(void **state)
{
	static const char *const edits[][2] = {
		{ "key", "key 0000000000000000\n" },  /* another machine */
		{ "when", "when 1000\n" },            /* too old */
		{ "when", "when 99999999999\n" },     /* the future */
		{ "when", "when -5\n" },
		{ "tick_ns", "" },                     /* missing */
		{ "tick_ns", "tick_ns 0\n" },
		{ "tick_ns", "tick_ns 4x\n" },
		{ "perf_sig_ns", "perf_sig_ns 99999999999999999999999\n" },
		{ "switch_ns", "switch_ns -1\n" },
		{ "posix_sig_ns", "posix_sig_ns\n" },
		{ "posix_sig_ns", "posix_sig_ns 1000000000000\n" }, /* over the bound */
		{ "switch_ns", "bogus line\n" },
	};
	char text[1200];
	struct clockcal c;

	(void)state;
	assert_true(good[0]);
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		edited(edits[i][0], edits[i][1], text, sizeof(text));
		assert_int_equal(clockcal_parse(text, (int64_t)time(NULL), &c), -EINVAL);
	}
	assert_int_equal(clockcal_parse("", (int64_t)time(NULL), &c), -EINVAL);
	assert_int_equal(clockcal_parse("\x01\x02garbage\xff", (int64_t)time(NULL), &c), -EINVAL);
	/* Truncated anywhere: refused, or (cut after the last number's first
	 * digits) a smaller number that still parses; never a crash. */
	for (size_t n = 0; n < strlen(good); n++) {
		snprintf(text, sizeof(text), "%.*s", (int)n, good);
		(void)clockcal_parse(text, (int64_t)time(NULL), &c);
	}
}

static void bad_file_measured_again(void **state)
{
	struct clockcal c;
	int measured;

	(void)state;
	write_file("key 12\ngarbage\n");
	assert_int_equal(clockcal_get(&c, NULL, &measured), 0);
	assert_int_equal(measured, 1);
	assert_int_equal(clockcal_get(&c, NULL, &measured), 0);
	assert_int_equal(measured, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(measured_and_kept),
		cmocka_unit_test(bad_files),
		cmocka_unit_test(bad_file_measured_again),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
