// SPDX-License-Identifier: GPL-2.0-only
/*
 * cdt membound's calibration: the cache file's round trip, files that are
 * truncated, corrupt, garbage, of another version, key or age (rejected,
 * never a crash), the level boundaries found in synthetic latency curves
 * (the topology agrees; it claims a far too big L3, as this project's VM
 * does; an L3 that is not there; a disturbed point), and the key's
 * stability.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/tools/membound/calib.h"
#include "lib/tools/membound/events.h"

#define KEY "0123456789abcdef"
#define NOW 1790000000

static void calib_fill(struct calib *c)
{
	memset(c, 0, sizeof(*c));
	c->version = CALIB_VERSION;
	snprintf(c->key, sizeof(c->key), KEY);
	snprintf(c->cpu, sizeof(c->cpu), "Test CPU\n@ 3.0GHz"); /* a newline is not kept */
	c->time = NOW - 3600;
	c->tsc_hz = 2096046974.5205023;
	c->nthreads = 2;
	c->quick = 1;
	snprintf(c->isa, sizeof(c->isa), "avx512");
	c->ops_ns_alone = 20.215583333333335;
	snprintf(c->note, sizeof(c->note), "L3: the topology says 508 MiB");
	snprintf(c->events_why, sizeof(c->events_why), "no hardware PMU");
	for (int k = 0; k < MB_NLEVELS - 1; k++) {
		struct calib_level *L = &c->lvl[k];

		L->size = k < MB_DRAM ? 49152ull << (5 * k) : 0;
		L->work = L->size ? L->size / 2 : 1ull << 28;
		L->topo_size = L->size;
		L->origin = k < MB_DRAM ? CALIB_ORIGIN_TOPO : CALIB_ORIGIN_SWEEP;
		L->rd_bw1 = 4e11 / (k + 1) + 0.123456789;
		L->wr_bw1 = 2e11 / (k + 1);
		L->rd_bwN = 8e11 / (k + 1);
		L->wr_bwN = 4e11 / (k + 1);
		L->lat_ns = 1.1 * pow(5, k);
		L->probe_p10 = 21 * (uint64_t)k;
		L->probe_p50 = 42 * (uint64_t)k;
		L->probe_p90 = 63 * (uint64_t)k;
		L->probe_ns_p50 = 20.0 * k;
		L->ops_ns_indep = 5 + k;
		L->ops_ns_chain = 25 + k;
	}
	c->npoints = 3;
	for (size_t i = 0; i < c->npoints; i++)
		c->pt[i] = (struct calib_point){ 16384ull << i, 4e11 / (double)(i + 1), 2e11, 1.1 + (double)i };
	c->nevents = 1;
	snprintf(c->ev[0].name, sizeof(c->ev[0].name), "L2_TRANS:DEMAND_DATA_RD");
	c->ev[0].level = MB_L2;
	c->ev[0].rate = 1.546e9;
}

static char *calib_text(const struct calib *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(calib_write(f, c), 0);
	fclose(f);
	return buf;
}

static void test_round_trip(void **state)
{
	struct calib a, b;
	char why[160], *t;

	(void)state;
	calib_fill(&a);
	t = calib_text(&a);
	assert_int_equal(calib_parse(t, &b, why, sizeof(why)), 0);
	assert_string_equal(b.key, a.key);
	assert_string_equal(b.cpu, "Test CPU @ 3.0GHz");
	assert_string_equal(b.note, a.note);
	assert_string_equal(b.isa, "avx512");
	assert_true(b.time == a.time && b.nthreads == 2 && b.quick == 1);
	assert_true(b.tsc_hz == a.tsc_hz && b.ops_ns_alone == a.ops_ns_alone);
	/* Exactly: %.17g round-trips a double. */
	assert_memory_equal(b.lvl, a.lvl, sizeof(a.lvl));
	assert_int_equal(b.npoints, 3);
	assert_memory_equal(b.pt, a.pt, 3 * sizeof(a.pt[0]));
	assert_int_equal(b.nevents, 1);
	assert_string_equal(b.ev[0].name, a.ev[0].name);
	assert_true(b.ev[0].rate == a.ev[0].rate && b.ev[0].level == MB_L2);
	free(t);
}

/* Every strict prefix lacks "end": rejected. */
static void test_truncated(void **state)
{
	struct calib a, b;
	char why[160], *t;
	size_t n;

	(void)state;
	calib_fill(&a);
	t = calib_text(&a);
	n = strlen(t);
	for (size_t cut = 0; cut + 1 < n; cut++) {
		char save = t[cut];

		t[cut] = '\0';
		assert_int_not_equal(calib_parse(t, &b, why, sizeof(why)), 0);
		t[cut] = save;
	}
	free(t);
}

static int parse_edit(const char *from, const char *to)
{
	struct calib a, b;
	char why[160], *t = NULL, *p, *s;
	int r;

	calib_fill(&a);
	t = calib_text(&a);
	p = strstr(t, from);
	assert_non_null(p);
	s = malloc(strlen(t) + strlen(to) + 1);
	assert_non_null(s);
	memcpy(s, t, (size_t)(p - t));
	strcpy(s + (p - t), to);
	strcat(s, p + strlen(from));
	r = calib_parse(s, &b, why, sizeof(why));
	free(s);
	free(t);
	return r;
}

static void test_corrupt(void **state)
{
	char longline[2000];

	(void)state;
	assert_int_equal(parse_edit("calibration 1", "calibration 0"), -ESTALE);
	assert_int_equal(parse_edit("calibration 1", "calibratio 1"), -EINVAL);
	assert_int_equal(parse_edit("level 1 ", "level 0 "), -EINVAL);  /* repeated */
	assert_int_equal(parse_edit("level 1 ", "level 9 "), -EINVAL);  /* unknown */
	assert_int_equal(parse_edit("level 1 ", "levl 1 "), -EINVAL);
	assert_int_equal(parse_edit("tsc_hz 2", "tsc_hz nan2"), -EINVAL);
	assert_int_equal(parse_edit("tsc_hz 2", "tsc_hz -2"), -EINVAL);
	assert_int_equal(parse_edit("threads 2", "threads 0"), -EINVAL);
	assert_int_equal(parse_edit("threads 2", "threads 2x"), -EINVAL);
	assert_int_equal(parse_edit("point 32768", "point 16384"), -EINVAL); /* order */
	assert_int_equal(parse_edit("point 16384 4", "point 16384 inf"), -EINVAL);
	assert_int_equal(parse_edit("event 1", "event 7"), -EINVAL);
	assert_int_equal(parse_edit("end\n", "end\nmore\n"), -EINVAL);
	assert_int_equal(parse_edit("key " KEY, "key 0123"), -EINVAL);
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	assert_int_equal(parse_edit("quick 1", longline), -EINVAL);
	/* Too many points. */
	{
		char *s = malloc(100000), *p = s, why[160];
		struct calib b;

		assert_non_null(s);
		p += sprintf(p, "cdt-membound-calibration 1\n");
		for (int i = 0; i < CALIB_MAX_POINTS + 5; i++)
			p += sprintf(p, "point %d 1 1 1\n", 1000 + i);
		assert_int_equal(calib_parse(s, &b, why, sizeof(why)), -EINVAL);
		free(s);
	}
}

/* Random bytes and random flips of a good file: never a crash. */
static void test_garbage(void **state)
{
	struct calib a, b;
	char why[160], *t, buf[4096];
	uint64_t s = 42;
	size_t n;

	(void)state;
	for (int i = 0; i < 2000; i++) {
		size_t len = (size_t)(i % (int)sizeof(buf));

		for (size_t j = 0; j < len; j++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			buf[j] = (char)((s >> 33) % 255 + 1);
		}
		buf[len] = '\0';
		assert_int_not_equal(calib_parse(buf, &b, why, sizeof(why)), 0);
	}
	calib_fill(&a);
	t = calib_text(&a);
	n = strlen(t);
	for (int i = 0; i < 5000; i++) {
		char *u = strdup(t);

		assert_non_null(u);
		for (int k = 0; k < 1 + i % 4; k++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			u[(s >> 33) % n] = (char)((s >> 17) % 255 + 1);
		}
		(void)calib_parse(u, &b, why, sizeof(why));
		free(u);
	}
	free(t);
}

static void test_load_file(void **state)
{
	char dir[] = "/tmp/cdt-calib-XXXXXX", path[128], why[160];
	struct calib a, b;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/membound-" KEY ".txt", dir);
	assert_int_equal(calib_load_file(path, KEY, NOW, &b, why, sizeof(why)), -ENOENT);
	calib_fill(&a);
	assert_int_equal(calib_save_file(path, &a), 0);
	assert_int_equal(calib_load_file(path, KEY, NOW, &b, why, sizeof(why)), 0);
	assert_memory_equal(b.lvl, a.lvl, sizeof(a.lvl));
	assert_int_equal(calib_load_file(path, "fedcba9876543210", NOW, &b, why, sizeof(why)),
			 -ESTALE);
	assert_int_equal(calib_load_file(path, KEY, NOW + 31 * 86400, &b, why, sizeof(why)), -ESTALE);
	assert_int_equal(calib_load_file(path, KEY, NOW + 29 * 86400, &b, why, sizeof(why)), 0);
	/* A NUL byte inside. */
	f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, 40, SEEK_SET);
	fputc('\0', f);
	fclose(f);
	assert_int_equal(calib_load_file(path, KEY, NOW, &b, why, sizeof(why)), -EINVAL);
	/* Empty. */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(calib_load_file(path, KEY, NOW, &b, why, sizeof(why)), -EINVAL);
	unlink(path);
	rmdir(dir);
}

/*
 * A latency curve from level capacities cap[] (0: absent) and latencies:
 * the share served within the first k levels is min(1, (cap/s)^3), a
 * step as steep as a random cyclic chase shows here (64 KiB, 1.33x L1,
 * is at L2's latency already).
 */
static size_t curve(uint64_t *size, double *lat, const uint64_t cap[3], const double l[4], uint64_t end)
{
	size_t n = 0;

	for (uint64_t s = 16384; s <= end; s = (s & (s - 1)) ? s / 3 * 4 : s / 2 * 3) {
		double prev = 0, v = 0;

		for (int k = 0; k < 3; k++) {
			double f = cap[k] ? fmin(1, pow((double)cap[k] / (double)s, 3)) : prev;

			v += l[k] * (f - prev);
			prev = f;
		}
		v += l[3] * (1 - prev);
		size[n] = s;
		lat[n++] = v;
	}
	return n;
}

static void test_detect(void **state)
{
	static const double l[4] = { 1.1, 4, 15, 230 };
	uint64_t size[64], out[3];
	double lat[64];
	int origin[3];
	char note[320];
	size_t n;

	(void)state;
	/* The topology agrees. */
	{
		const uint64_t cap[3] = { 48 << 10, 1 << 20, 32 << 20 };

		n = curve(size, lat, cap, l, 1ull << 30);
		note[0] = '\0';
		calib_levels_detect(size, lat, n, cap, out, origin, note, sizeof(note));
		for (int k = 0; k < 3; k++) {
			assert_int_equal(origin[k], CALIB_ORIGIN_TOPO);
			assert_true(out[k] == cap[k]);
		}
		assert_string_equal(note, "");
	}
	/* The topology claims 508 MiB of L3; 16 MiB are there. */
	{
		const uint64_t cap[3] = { 48 << 10, 1 << 20, 16 << 20 };
		const uint64_t topo[3] = { 48 << 10, 1 << 20, 508ull << 20 };

		n = curve(size, lat, cap, l, 256 << 20);
		note[0] = '\0';
		calib_levels_detect(size, lat, n, topo, out, origin, note, sizeof(note));
		assert_int_equal(origin[0], CALIB_ORIGIN_TOPO);
		assert_int_equal(origin[1], CALIB_ORIGIN_TOPO);
		assert_int_equal(origin[2], CALIB_ORIGIN_MEASURED);
		assert_true(out[2] >= 12 << 20 && out[2] <= 16 << 20);
		assert_non_null(strstr(note, "508 MiB"));
		assert_non_null(strstr(note, "using"));
	}
	/* No L3 between L2 and DRAM, though the topology claims one. */
	{
		const uint64_t cap[3] = { 48 << 10, 1 << 20, 0 };
		const uint64_t topo[3] = { 48 << 10, 1 << 20, 508ull << 20 };

		n = curve(size, lat, cap, l, 256 << 20);
		note[0] = '\0';
		calib_levels_detect(size, lat, n, topo, out, origin, note, sizeof(note));
		assert_int_equal(origin[1], CALIB_ORIGIN_TOPO);
		assert_int_equal(origin[2], CALIB_ORIGIN_NONE);
		assert_true(out[2] == 0);
		assert_non_null(strstr(note, "no level"));
	}
	/* One disturbed point inside L2 does not end it; the topology is
	 * silent about L2 sizes here, so the knee is measured. */
	{
		const uint64_t cap[3] = { 32 << 10, 512 << 10, 8 << 20 };
		const uint64_t topo[3] = { 32 << 10, 0, 8 << 20 };

		n = curve(size, lat, cap, l, 256 << 20);
		for (size_t i = 0; i < n; i++)
			if (size[i] == 128 << 10)
				lat[i] *= 3;
		note[0] = '\0';
		calib_levels_detect(size, lat, n, topo, out, origin, note, sizeof(note));
		assert_int_equal(origin[1], CALIB_ORIGIN_MEASURED);
		assert_true(out[1] == 512 << 10);
		assert_int_equal(origin[2], CALIB_ORIGIN_TOPO);
	}
	/* The first point of L2 disturbed (2.5x, a busy neighbour): its P
	 * stays L2's, and L2 does not run on through L3 (15 ns is under 2 x 9). */
	{
		const uint64_t cap[3] = { 32 << 10, 1 << 20, 32 << 20 };

		n = curve(size, lat, cap, l, 1ull << 30);
		for (size_t i = 0; i < n; i++)
			if (size[i] >= 64 << 10) {
				lat[i] *= 2.5;
				break;
			}
		note[0] = '\0';
		calib_levels_detect(size, lat, n, cap, out, origin, note, sizeof(note));
		for (int k = 0; k < 3; k++) {
			assert_int_equal(origin[k], CALIB_ORIGIN_TOPO);
			assert_true(out[k] == cap[k]);
		}
	}
	/* Too short a curve: nothing found, nothing crashes. */
	{
		const uint64_t topo[3] = { 32 << 10, 1 << 20, 8 << 20 };

		note[0] = '\0';
		calib_levels_detect(size, lat, 1, topo, out, origin, note, sizeof(note));
		calib_levels_detect(size, lat, 0, topo, out, origin, note, sizeof(note));
		assert_int_equal(origin[0], CALIB_ORIGIN_NONE);
	}
}

/* A PMU host's peaks: each transfer role's terms under its level's kernel
 * (hsw_ep's L3 read is three OFFCORE_RESPONSE terms), summed per role; an
 * event of two roles counts under each role's own kernel only. */
static void test_event_peaks(void **state)
{
	const struct mb_event_row *row = mb_events_row("hsw_ep");
	struct calib_evspec spec[CALIB_MAX_EVENTS];
	struct calib c = { 0 };
	size_t n, l3 = 0;

	(void)state;
	assert_non_null(row);
	n = calib_event_specs("hsw_ep", spec, CALIB_MAX_EVENTS);
	assert_true(n > 0 && n <= CALIB_MAX_EVENTS);
	for (size_t i = 0; i < n; i++) {
		snprintf(c.ev[i].name, sizeof(c.ev[i].name), "%s", spec[i].name);
		c.ev[i].level = spec[i].level;
		c.ev[i].write = spec[i].write;
		c.ev[i].rate = 1e6;
		l3 += spec[i].level == MB_L3 && !spec[i].write;
	}
	c.nevents = n;
	assert_int_equal(l3, 3);
	assert_true(calib_peak(&c, row, MB_R_L3_RD) == 3e6);
	assert_true(calib_peak(&c, row, MB_R_L2_RD) == 2e6);
	/* L3_MISS_LOCAL is a term of L3_RD too, but DRAM's peak is its rate
	 * under the DRAM kernel alone. */
	assert_true(calib_peak(&c, row, MB_R_DRAM_RD) == 1e6);
	assert_true(calib_peak(&c, row, MB_R_CYCLES) == 0);
	assert_int_equal(calib_event_specs("no_such_pmu", spec, CALIB_MAX_EVENTS), 0);
}

static void test_key(void **state)
{
	char a[17], b[17], text[512];

	(void)state;
	assert_int_equal(calib_key(a, sizeof(a)), 0);
	assert_int_equal(calib_key(b, sizeof(b)), 0);
	assert_string_equal(a, b);
	assert_int_equal(strspn(a, "0123456789abcdef"), 16);
	assert_int_equal(calib_key_text(text, sizeof(text)), 0);
	assert_non_null(strstr(text, "family"));
	assert_non_null(strstr(text, "caches"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_event_peaks),
		cmocka_unit_test(test_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
