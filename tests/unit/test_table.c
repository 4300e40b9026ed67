// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text tables (output/table.c) at a width: cells cut from the end at a
 * list or word boundary with "...", columns left out (and named) rather
 * than every one cut short, but never all but the first; numbers never
 * cut, no trailing spaces, "none" for an empty table; and the escaping of
 * what would drive a terminal (output/textesc.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/table.h"
#include "output/textesc.h"

static char *render(const struct table *t, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	table_print_text(t, f, width);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void no_trailing_spaces(const char *s)
{
	for (const char *nl = strchr(s, '\n'); nl; nl = strchr(nl + 1, '\n'))
		assert_true(nl == s || nl[-1] != ' ');
}

static void test_cut_at_boundary(void **state)
{
	static const char *const cols[] = { "name", "n:r", "threads", NULL };
	struct table t;
	char *out;

	(void)state;
	table_init(&t, "T", cols);
	assert_int_equal(table_row(&t), 0);
	table_cell(&t, "%s", "x");
	table_cell(&t, "%d", 123456);
	table_cell(&t, "%s", "0:0-7w 1:8-15w 2:16-23w 3:24-31w 4:32-39w");
	out = render(&t, 45);
	/* The start is kept, cut after a whole item, with an ellipsis. */
	assert_non_null(strstr(out, "0:0-7w 1:8-15w 2:16-23w...\n"));
	assert_non_null(strstr(out, "123456"));
	assert_null(strstr(out, "3:24"));
	no_trailing_spaces(out);
	free(out);
	out = render(&t, 0);
	assert_non_null(strstr(out, "4:32-39w\n"));
	free(out);
	table_free(&t);
}

static void test_drop_columns(void **state)
{
	static const char *const cols[] = { "line", "all:r", "threads", "code", NULL };
	struct table t;
	char *out, *l;

	(void)state;
	table_init(&t, NULL, cols);
	assert_int_equal(table_row(&t), 0);
	table_cell(&t, "%s", "0x55d54048b400");
	table_cell(&t, "%d", 2490);
	table_cell(&t, "%s", "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11");
	table_cell(&t, "%s", "run (comm_falseshare.c:67), run (comm_falseshare.c:70)");
	out = render(&t, 40);
	/* Cut to two thirds they would not fit: the text columns go from the
	 * right; the first and the numbers stay whole. */
	assert_non_null(strstr(out, "(not shown at 40 columns: threads, code;\n--width full "
				    "shows them)\n"));
	assert_non_null(strstr(out, "0x55d54048b400"));
	assert_non_null(strstr(out, "2490"));
	for (l = out; *l; l = strchr(l, '\n') + 1)
		assert_true(strchr(l, '\n') - l <= 40);
	no_trailing_spaces(out);
	free(out);
	table_free(&t);
}

/* A key and a long value: the value is cut, not left out, for a first
 * column alone would show keys without what they say. */
static void test_keep_second_column(void **state)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct table t;
	char *out;

	(void)state;
	table_init(&t, NULL, cols);
	assert_int_equal(table_row(&t), 0);
	table_cell(&t, "%s", "source_why");
	table_cell(&t, "%s", "no hardware PMU (bhyve guest): using soft sampling at 2 kHz at most "
			     "(fewer to keep a 5% overhead budget: --max-overhead)");
	assert_int_equal(table_row(&t), 0);
	table_cell(&t, "%s", "threads");
	table_cell(&t, "%s", "4");
	out = render(&t, 80);
	assert_null(strstr(out, "not shown"));
	assert_non_null(strstr(out, "source_why no hardware PMU (bhyve guest): using soft sampling"));
	assert_non_null(strstr(out, "...\n"));
	assert_non_null(strstr(out, "threads    4\n"));
	for (char *l = out; *l; l = strchr(l, '\n') + 1)
		assert_true(strchr(l, '\n') - l <= 80);
	no_trailing_spaces(out);
	free(out);
	table_free(&t);
}

static void test_empty_and_padding(void **state)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct table t;
	char *out;

	(void)state;
	table_init(&t, "Findings", cols);
	out = render(&t, 80);
	assert_string_equal(out, "Findings\nnone\n");
	free(out);
	assert_int_equal(table_row(&t), 0);
	table_cell(&t, "%s", "a_long_key");
	table_cell(&t, "%s", "1");
	assert_int_equal(table_row(&t), 0);
	table_cell(&t, "%s", "k");
	table_cell(&t, "%s", "");
	out = render(&t, 80);
	assert_string_equal(out, "Findings\nkey         value\na_long_key  1\nk\n");
	free(out);
	table_free(&t);
}

static void test_escape(void **state)
{
	static const char *const cols[] = { "name", "n:r", NULL };
	struct table t;
	char *e, *out;

	(void)state;
	e = textesc_dup("a\033[7mb\nc\x7f\xc2\x85 w\xc3\xb6rker \xff");
	/* ESC, newline, DEL, C1 NEL (U+0085) and a stray byte escaped;
	 * valid UTF-8 kept. */
	assert_string_equal(e, "a\\x1b[7mb\\x0ac\\x7f\\xc2\\x85 w\xc3\xb6rker \\xff");
	assert_int_equal(textesc_cols("w\xc3\xb6rker"), 6);
	assert_int_equal(textesc_prefix("w\xc3\xb6rker", 2), 3);
	free(e);
	table_init(&t, NULL, cols);
	assert_int_equal(table_row(&t), 0);
	table_cell(&t, "%s", "x\ny");
	table_cell(&t, "%d", 1);
	out = render(&t, 80);
	assert_string_equal(out, "name    n\nx\\x0ay  1\n");
	free(out);
	table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_at_boundary),
		cmocka_unit_test(test_drop_columns),
		cmocka_unit_test(test_keep_second_column),
		cmocka_unit_test(test_empty_and_padding),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
