// SPDX-License-Identifier: GPL-2.0-only
/*
 * Symbols kept between runs (lib/core/symcache.c): records round-trip
 * with the debug file's identity; a changed or vanished debug file, a
 * file of another version or build of cdt, a torn one and a bad record
 * are refused; a name with a newline is never written; line records
 * stop at SYMCACHE_MAX_LINES.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/core/symcache.h"

static const uint8_t bid[] = { 0xab, 0xcd, 0x01, 0x02 };
static char dir[64], path[4096], debug[4096];

static int setup(void **state)
{
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cdt-symcache-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	setenv("XDG_CACHE_HOME", dir, 1);
	snprintf(path, sizeof(path), "%s/cdt/sym/abcd0102.txt", dir);
	snprintf(debug, sizeof(debug), "%s/prog.debug", dir);
	f = fopen(debug, "w");
	if (!f)
		return -1;
	fputs("debug information\n", f);
	return fclose(f);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void write_file(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void round_trip(void **state)
{
	struct symcache c = { 0 }, d = { 0 };

	(void)state;
	assert_int_equal(symcache_load(&d, bid, sizeof(bid)), -ENOENT);
	assert_int_equal(symcache_add(&c, SYMCACHE_CODE, 0x1130, 0x2f, "main"), 0);
	assert_int_equal(symcache_add(&c, SYMCACHE_DATA, 0x4010, 0, "a b"), 0);
	assert_int_equal(symcache_add(&c, SYMCACHE_LINE, 0x1138, 7, "/src/x y.c"), 0);
	assert_int_equal(symcache_add(&c, SYMCACHE_SITE, 0x1138, 0, NULL), 0);
	assert_int_equal(symcache_save(&c, bid, sizeof(bid), debug), 0);
	assert_int_equal(symcache_load(&d, bid, sizeof(bid)), 0);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.nlines, 2);
	assert_string_equal(d.debug, debug);
	assert_true(symcache_debug_same(&d));
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(d.v[i].kind, c.v[i].kind);
		assert_int_equal(d.v[i].a, c.v[i].a);
		assert_int_equal(d.v[i].b, c.v[i].b);
		if (c.v[i].text)
			assert_string_equal(d.v[i].text, c.v[i].text);
		else
			assert_null(d.v[i].text);
	}
	symcache_free(&d);

	/* The debug file changed (size), then gone. */
	write_file(debug, "other debug information\n");
	assert_int_equal(symcache_load(&d, bid, sizeof(bid)), 0);
	assert_false(symcache_debug_same(&d));
	symcache_free(&d);
	unlink(debug);
	assert_int_equal(symcache_load(&d, bid, sizeof(bid)), 0);
	assert_false(symcache_debug_same(&d));
	symcache_free(&d);

	/* Made without a debug file. */
	assert_int_equal(symcache_save(&c, bid, sizeof(bid), NULL), 0);
	assert_int_equal(symcache_load(&d, bid, sizeof(bid)), 0);
	assert_null(d.debug);
	assert_true(symcache_debug_same(&d));
	symcache_free(&d);
	symcache_free(&c);
}

static void refused(void **state)
{
	/* Whole files, then what follows this build's own first line. */
	static const char *const bad_files[] = {
		"",
		"garbage\n",
		"cdt-symcache 0 " CDT_VERSION " 00\ndebug -\n", /* another format */
		"cdt-symcache 1 0.0.0-other 00\ndebug -\n",    /* another cdt */
	};
	static const char *const bad_after_head[] = {
		"",                     /* no debug line */
		"debug -\nc 10 4 main", /* torn */
		"debug -\nc 10 4\n",    /* no name */
		"debug -\nc 10 -4 f\n",
		"debug -\nc 1x 4 f\n",
		"debug -\nl 10 100000000 f.c\n", /* line > 32 bits */
		"debug -\nq 10 4 f\n",
		"debug 10 20 relative/path\n",
		"debug -\nc 10000000000000000 4 f\n",
	};
	struct symcache c = { 0 };
	char head[256], text[512];
	FILE *f;

	(void)state;
	assert_int_equal(symcache_add(&c, SYMCACHE_CODE, 0x10, 4, "main"), 0);
	assert_int_equal(symcache_save(&c, bid, sizeof(bid), NULL), 0);
	symcache_free(&c);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(head, sizeof(head), f));
	fclose(f);
	/* The build's own identity follows the version. */
	assert_int_equal(strncmp(head, "cdt-symcache 1 " CDT_VERSION " ", 16 + strlen(CDT_VERSION)), 0);
	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		write_file(path, bad_files[i]);
		assert_int_equal(symcache_load(&c, bid, sizeof(bid)), -EINVAL);
		assert_null(c.v);
		assert_null(c.buf);
	}
	for (size_t i = 0; i < sizeof(bad_after_head) / sizeof(bad_after_head[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", head, bad_after_head[i]);
		write_file(path, text);
		assert_int_equal(symcache_load(&c, bid, sizeof(bid)), -EINVAL);
		assert_null(c.v);
		assert_null(c.buf);
	}
	/* The same head with good records loads: the cases above fail by them. */
	snprintf(text, sizeof(text), "%sdebug -\nc 10 4 main\nl 12 9\n", head);
	write_file(path, text);
	assert_int_equal(symcache_load(&c, bid, sizeof(bid)), 0);
	assert_int_equal(c.n, 2);
	symcache_free(&c);
	/* A newline would end a record early: not written. */
	assert_int_equal(symcache_add(&c, SYMCACHE_CODE, 0x10, 4, "two\nlines"), 0);
	assert_int_equal(symcache_save(&c, bid, sizeof(bid), NULL), -EINVAL);
	symcache_free(&c);
}

static void lines_capped(void **state)
{
	struct symcache c = { 0 };

	(void)state;
	for (uint64_t i = 0; i < SYMCACHE_MAX_LINES + 10; i++)
		assert_int_equal(symcache_add(&c, SYMCACHE_LINE, i, 1, "f.c"), 0);
	assert_int_equal(c.nlines, SYMCACHE_MAX_LINES);
	assert_int_equal(symcache_add(&c, SYMCACHE_CODE, 0x10, 4, "main"), 0);
	assert_int_equal(c.n, SYMCACHE_MAX_LINES + 1);
	symcache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(refused),
		cmocka_unit_test(lines_capped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
