// SPDX-License-Identifier: GPL-2.0-only
/*
 * fvar's instance record, whose tail (a stack copy from the agent, a call
 * path in a file) the program could forge: the check accepts a record of
 * the size before call paths (zero tail) and a consistent tail, and
 * refuses counts the record's size does not hold, counts that overflow,
 * a stack and a path at once, or a path longer than FV_MAX_PATH.  After
 * the run, a stack that cannot be unwound (no modules known) leaves an
 * empty path and the record shrinks to its fixed part.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/core/profile.h"
#include "lib/core/records.h"
#include "lib/tools/fvar/fvar.h"
#include "lib/tools/fvar/parts.h"

static const struct rec_desc *inst_desc(void)
{
	for (size_t i = 0; i < fvar_prof.ntypes; i++)
		if (fvar_prof.types[i].type == REC_FVAR_INST)
			return &fvar_prof.types[i];
	fail_msg("no REC_FVAR_INST in fvar_prof");
	return NULL;
}

/* An instance record of size bytes (zeroed, header and counts set). */
static struct rec_fvar_inst *inst_new(uint32_t size, uint32_t nstack, uint32_t npath)
{
	struct rec_fvar_inst *r = calloc(1, size < sizeof(*r) ? sizeof(*r) : size);

	assert_non_null(r);
	r->h.size = size;
	r->h.type = REC_FVAR_INST;
	r->pid = 1;
	r->tid = 1;
	r->entry = 0x1000;
	r->ret = 0x2005;
	r->nmetrics = 2;
	if (size >= sizeof(*r)) {
		r->nstack = nstack;
		r->npath = npath;
	}
	return r;
}

/* Whether the check takes it; *out: the record to use. */
static int accepted(struct rec_fvar_inst *r, const struct rec_fvar_inst **out)
{
	static unsigned char buf[REC_FIXED_MAX] __attribute__((aligned(8)));
	char why[160] = "";
	const struct rec_hdr *h = rec_accept(inst_desc(), &r->h, buf, why, sizeof(why), NULL);

	if (out)
		*out = (const struct rec_fvar_inst *)h;
	return h != NULL;
}

static void test_old_size(void **state)
{
	struct rec_fvar_inst *r = inst_new(FV_INST_V1, 0, 0);
	const struct rec_fvar_inst *got;

	(void)state;
	/* Bytes past the old size are garbage: the copy must zero them. */
	memset((char *)r + FV_INST_V1, 0xff, sizeof(*r) - FV_INST_V1);
	assert_true(accepted(r, &got));
	assert_int_equal(got->h.size, sizeof(*got));
	assert_int_equal(got->nstack, 0);
	assert_int_equal(got->npath, 0);
	free(r);
}

static void test_tails(void **state)
{
	struct rec_fvar_inst *r;

	(void)state;
	r = inst_new(sizeof(*r) + 4 * 8, 4, 0); /* a stack of 4 words */
	assert_true(accepted(r, NULL));
	free(r);
	r = inst_new(sizeof(*r) + 3 * 8, 0, 3); /* a path of 3 */
	assert_true(accepted(r, NULL));
	free(r);
	r = inst_new(sizeof(*r) + 4 * 8, 5, 0); /* one word more than it holds */
	assert_false(accepted(r, NULL));
	free(r);
	r = inst_new(sizeof(*r) + 8 * 8, 2, 2); /* a stack and a path */
	assert_false(accepted(r, NULL));
	free(r);
	r = inst_new(sizeof(*r) + (FV_MAX_PATH + 1) * 8, 0, FV_MAX_PATH + 1);
	assert_false(accepted(r, NULL));
	free(r);
	/* 32-bit counts whose bytes would wrap a 32-bit size. */
	r = inst_new(sizeof(*r) + 8, UINT32_MAX, 0);
	assert_false(accepted(r, NULL));
	free(r);
	r = inst_new(sizeof(*r) + 8, (uint32_t)(1u << 29), 0);
	assert_false(accepted(r, NULL));
	free(r);
}

static void test_unwind_nothing(void **state)
{
	struct rec_fvar_inst *r = inst_new(sizeof(*r) + 16 * 8, 16, 0);
	struct rec_hdr *recs[1];
	struct profile p;

	(void)state;
	for (int i = 0; i < 16; i++)
		r->tail[i] = 0x2000 + (uint64_t)i * 0x10;
	r->slot = 0x7fff0000;
	profile_init(&p);
	recs[0] = &r->h;
	p.tool_recs = recs;
	p.ntool_recs = 1;
	assert_int_equal(fvar_paths(&p), 0);
	assert_int_equal(r->nstack, 0);
	assert_int_equal(r->npath, 0);
	assert_int_equal(r->h.size, sizeof(*r));
	assert_true(accepted(r, NULL));
	p.tool_recs = NULL;
	p.ntool_recs = 0;
	profile_free(&p);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_size),
		cmocka_unit_test(test_tails),
		cmocka_unit_test(test_unwind_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
