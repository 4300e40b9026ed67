// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's table of functions (lib/agent/functab.c), which fvar's
 * handler asks which function an address is in: a function of this
 * program is found from its first byte to its last; a library dlopened,
 * dlclosed and dlopened again 200 times (each module's table is read
 * once and kept by the file's identity, the index of modules made again
 * at each load) still gives its exported functions exactly, wherever it
 * was loaded; and an address in no function is in none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "lib/agent/agent.h"

static const struct agent_tool test_tool = { .flags = AGENT_TOOL_FUNCS };

__attribute__((noinline)) int functab_probe(int x)
{
	return x * 3 + 1;
}

static int setup(void **state)
{
	struct agent_cfg cfg = { .tool = "test", .source = SRC_SOFT };

	(void)state;
	memset(&agent_g, 0, sizeof(agent_g));
	assert_int_equal(arena_create(&agent_g.arena, 1 << 22, &cfg), 0);
	agent_g.cfg = cfg;
	agent_g.pid = getpid();
	agent_g.tool = &test_tool;
	agent_g.active = 1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	arena_destroy(&agent_g.arena);
	agent_g.active = 0;
	return 0;
}

/* addr's function is [start, start + more) for some more > 0. */
static void assert_in(uint64_t addr, uint64_t start)
{
	uint64_t s = 0, e = 0;

	assert_int_equal(functab_find(addr, &s, &e), 1);
	assert_int_equal(s, start);
	assert_true(e > s && addr < e);
}

static void test_own(void **state)
{
	uint64_t f = (uint64_t)(uintptr_t)functab_probe, s, e;

	(void)state;
	functab_update();
	assert_in(f, f);
	assert_in(f + 1, f);
	assert_int_equal(functab_find(f, &s, &e), 1);
	assert_in(e - 1, f);
	/* The stack is in no function. */
	assert_int_equal(functab_find((uint64_t)(uintptr_t)&s, &s, &e), 0);
	assert_int_equal(functab_probe(1), 4);
}

static void test_reload(void **state)
{
	(void)state;
	for (int i = 0; i < 200; i++) {
		void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
		void *crc, *adler;

		if (!h) {
			print_message("skip: no libz.so.1 to load (%s)\n", dlerror());
			skip();
		}
		crc = dlsym(h, "crc32");
		adler = dlsym(h, "adler32");
		assert_non_null(crc);
		assert_non_null(adler);
		assert_in((uint64_t)(uintptr_t)crc, (uint64_t)(uintptr_t)crc);
		assert_in((uint64_t)(uintptr_t)adler + 2, (uint64_t)(uintptr_t)adler);
		/* This program's own functions are still there. */
		assert_in((uint64_t)(uintptr_t)functab_probe, (uint64_t)(uintptr_t)functab_probe);
		dlclose(h);
	}
}

__attribute__((noinline)) pid_t functab_via_plt(void)
{
	return getppid();
}

/*
 * A PLT stub is no function (ld gives .plt an unwind entry all the same):
 * a caller above one must not end the chain of its callee.
 */
static void test_plt(void **state)
{
	const unsigned char *p = (const unsigned char *)(uintptr_t)functab_via_plt;
	uint64_t target, s, e;
	int32_t rel;

	(void)state;
	functab_update();
	if (!memcmp(p, "\xf3\x0f\x1e\xfa", 4))
		p += 4; /* endbr64 */
	if (*p != 0xe8 && *p != 0xe9) {
		print_message("skip: functab_via_plt does not start with a call of getppid\n");
		skip();
	}
	memcpy(&rel, p + 1, sizeof(rel));
	target = (uint64_t)(uintptr_t)p + 5 + (uint64_t)(int64_t)rel;
	assert_int_equal(functab_find(target, &s, &e), 0);
	assert_in((uint64_t)(uintptr_t)functab_via_plt, (uint64_t)(uintptr_t)functab_via_plt);
	assert_true(functab_via_plt() > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_plt),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
