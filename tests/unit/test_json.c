// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON renderer (output/json.c): strings escaped as RFC 8259 asks,
 * bytes that are not UTF-8 kept as \u00XX, numbers typed only in numeric
 * columns and only when JSON's grammar takes them as they stand, empty
 * cells null, and the document's exact shape (cdt-report(1)).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/json.h"

/* What json_string writes for s. */
static char *quoted(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	json_string(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void check_quoted(const char *s, const char *want)
{
	char *got = quoted(s);

	assert_string_equal(got, want);
	free(got);
}

static void test_escapes(void **state)
{
	(void)state;
	check_quoted("", "\"\"");
	check_quoted("plain text, 1.5", "\"plain text, 1.5\"");
	check_quoted("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	check_quoted("\n\t\r", "\"\\n\\t\\r\"");
	/* Other control characters: \u00XX; DEL needs no escape. */
	check_quoted("\x01\x1b[31m\x1f\x7f", "\"\\u0001\\u001b[31m\\u001f\x7f\"");
}

static void test_utf8(void **state)
{
	(void)state;
	/* Valid UTF-8 of 2, 3 and 4 bytes, and the largest code point, as is. */
	check_quoted("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf",
		     "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\"");
	/* A stray byte, a cut sequence, an overlong '/', a surrogate, past
	 * U+10FFFF: every byte as \u00XX, the valid rest kept. */
	check_quoted("\xff", "\"\\u00ff\"");
	check_quoted("a\xc3", "\"a\\u00c3\"");
	check_quoted("\xc3z", "\"\\u00c3z\"");
	check_quoted("\xc0\xaf", "\"\\u00c0\\u00af\"");
	check_quoted("\xe0\x80\xaf", "\"\\u00e0\\u0080\\u00af\"");
	check_quoted("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"");
	check_quoted("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"");
	check_quoted("\xe2\x82", "\"\\u00e2\\u0082\"");
}

static void test_numbers(void **state)
{
	static const char *const yes[] = { "0", "-0", "7", "12", "1.5", "0.25", "-3.75", "1e3",
					   "2.5E-7", "1e+2", "18446744073709551615", NULL };
	static const char *const no[] = { "", "-", "01", "1.", ".5", "+1", " 1", "1 ",
					  "0x10", "1e", "1e+", "inf", "nan", "-inf", "1e999",
					  "12%", "1.2.3", "1,5", "3 KiB", "0.1.2", NULL };

	(void)state;
	for (const char *const *s = yes; *s; s++)
		assert_true(json_is_number(*s));
	for (const char *const *s = no; *s; s++) {
		if (json_is_number(*s))
			fail_msg("'%s' must not be a JSON number", *s);
	}
}

static void test_document(void **state)
{
	static const char *const cols[] = { "name", "count:r", "share:r", NULL };
	static const char *const want =
		"{\n"
		"  \"version\": 1,\n"
		"  \"meta\": {\n"
		"    \"tool\": \"t\\\"1\",\n"
		"    \"none\": null\n"
		"  },\n"
		"  \"views\": {\n"
		"    \"one\": {\n"
		"      \"title\": \"One table\",\n"
		"      \"columns\": [\"name\", \"count\", \"share\"],\n"
		"      \"rows\": [\n"
		"        {\"name\": \"12\", \"count\": 12, \"share\": 1.5},\n"
		"        {\"name\": null, \"count\": \"0x10\", \"share\": null},\n"
		"        {\"name\": \"a,b\", \"count\": \"n/a\", \"share\": \"1e999\"}\n"
		"      ],\n"
		"      \"hidden\": 3\n"
		"    },\n"
		"    \"empty\": {\n"
		"      \"title\": null,\n"
		"      \"columns\": [\"name\", \"count\", \"share\"],\n"
		"      \"rows\": [],\n"
		"      \"hidden\": 0\n"
		"    }\n"
		"  }\n"
		"}\n";
	struct table t, e;
	struct json_doc d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	table_init(&t, "One table", cols);
	assert_int_equal(table_row(&t), 0);
	assert_int_equal(table_cell(&t, "12"), 0); /* a text column stays text */
	assert_int_equal(table_cell(&t, "%d", 12), 0);
	assert_int_equal(table_cell(&t, "1.5"), 0);
	assert_int_equal(table_row(&t), 0);
	assert_int_equal(table_cell(&t, "%s", ""), 0); /* empty: null */
	assert_int_equal(table_cell(&t, "0x10"), 0);   /* not JSON's grammar */
	/* The third cell is never set: null as well. */
	assert_int_equal(table_row(&t), 0);
	assert_int_equal(table_cell(&t, "a,b"), 0);
	assert_int_equal(table_cell(&t, "n/a"), 0);
	assert_int_equal(table_cell(&t, "1e999"), 0); /* infinite: kept as text */
	t.hidden = 3;
	table_init(&e, NULL, cols);

	json_begin(&d, f);
	json_meta(&d, "tool", "t\"1");
	json_meta(&d, "none", NULL);
	json_table(&d, "one", &t);
	json_table(&d, "empty", &e);
	assert_int_equal(json_end(&d), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, want);
	free(buf);
	table_free(&t);
	table_free(&e);
}

static void test_empty_document(void **state)
{
	struct json_doc d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	json_begin(&d, f);
	assert_int_equal(json_end(&d), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "{\n  \"version\": 1,\n  \"meta\": {},\n  \"views\": {}\n}\n");
	free(buf);
}

/* A write that fails is reported, not lost. */
static void test_write_error(void **state)
{
	struct json_doc d;
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	json_begin(&d, f);
	json_meta(&d, "k", "v");
	assert_int_not_equal(json_end(&d), 0);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_empty_document),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
