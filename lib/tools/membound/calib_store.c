// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calibration's cache file: $XDG_CACHE_HOME/cdt/membound-KEY.txt
 * (default ~/.cache/cdt), KEY a hash of what identifies the machine's
 * memory hierarchy: CPU vendor, family, model, stepping and name, the
 * numbers of CPUs, cores, sockets and nodes, the cache sizes.
 *
 * A versioned line format, one record a line, "end" last (a truncated
 * file has none).  The file is input: anything malformed makes the whole
 * file count as missing, and nothing in it can overrun a buffer.  It is
 * written to a temporary file and renamed, so a reader never sees half
 * of one.
 */
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/cache.h"
#include "lib/core/hash.h"
#include "lib/core/topo.h"
#include "lib/tools/membound/calib_parts.h"

#define MSG "cdt membound: "
#define MAGIC "cdt-membound-calibration"
#define FILE_MAX (256u << 10) /* far more than a real file */

int calib_key_text(char *buf, size_t len)
{
	unsigned a, b, c, d, fam, model;
	char vendor[13] = "", name[96];
	uint64_t caches[CALIB_CACHE_LEVELS];
	struct topo t;
	int r;

	if (__get_cpuid(0, &a, &b, &c, &d)) {
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &d, 4);
		memcpy(vendor + 8, &c, 4);
	}
	if (!__get_cpuid(1, &a, &b, &c, &d))
		a = 0;
	fam = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		model |= ((a >> 16) & 0xf) << 4;
	if (__get_cpuid_max(0x80000000, NULL) >= 0x80000004) {
		unsigned v[12];

		for (unsigned i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
		memcpy(name, v, 48);
		name[48] = '\0';
	} else {
		snprintf(name, sizeof(name), "unknown");
	}
	if ((r = topo_read(&t)) < 0)
		return r;
	calib_topo_caches(caches);
	snprintf(buf, len, "%s family %u model %u stepping %u '%s' cpus %d cores %d sockets %d "
		 "nodes %d caches %" PRIu64 " %" PRIu64 " %" PRIu64, vendor, fam, model, a & 0xf,
		 name, t.ncpus, t.ncores, t.nsockets, t.nnodes, caches[0], caches[1], caches[2]);
	topo_free(&t);
	return 0;
}

int calib_key(char *buf, size_t len)
{
	char text[512];
	int r = calib_key_text(text, sizeof(text));

	if (r < 0)
		return r;
	snprintf(buf, len, "%016" PRIx64, hash_bytes(text, strlen(text)));
	return 0;
}

int calib_path(char *buf, size_t len)
{
	char name[64], key[17];
	int r = calib_key(key, sizeof(key));

	if (r < 0)
		return r;
	snprintf(name, sizeof(name), "membound-%s.txt", key);
	return cache_path(name, buf, len);
}

/* ---- the text form ---- */

/* A string to the end of the line: no control characters. */
static void put_clean(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < ' ' ? ' ' : *s, f);
	fputc('\n', f);
}

static void put_str(FILE *f, const char *tag, const char *s)
{
	fprintf(f, "%s ", tag);
	put_clean(f, s);
}

int calib_write(FILE *f, const struct calib *c)
{
	fprintf(f, MAGIC " %d\n", CALIB_VERSION);
	put_str(f, "key", c->key);
	put_str(f, "cpu", c->cpu);
	fprintf(f, "time %" PRId64 "\ntsc_hz %.17g\nthreads %u\nquick %d\n", c->time, c->tsc_hz,
		c->nthreads, c->quick);
	put_str(f, "isa", c->isa);
	fprintf(f, "ops_alone %.17g\n", c->ops_ns_alone);
	put_str(f, "note", c->note);
	put_str(f, "events_why", c->events_why);
	fprintf(f, "# level index size work topo_size origin rd_bw1 wr_bw1 rd_bwN wr_bwN lat_ns "
		   "probe_p10 probe_p50 probe_p90 probe_ns_p50 ops_ns_indep ops_ns_chain\n");
	for (int k = 0; k < MB_NLEVELS; k++) {
		const struct calib_level *L = &c->lvl[k];

		fprintf(f, "level %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %.17g %.17g %.17g %.17g "
			"%.17g %" PRIu64 " %" PRIu64 " %" PRIu64 " %.17g %.17g %.17g\n",
			k, L->size, L->work, L->topo_size, L->origin, L->rd_bw1, L->wr_bw1, L->rd_bwN,
			L->wr_bwN, L->lat_ns, L->probe_p10, L->probe_p50, L->probe_p90,
			L->probe_ns_p50, L->ops_ns_indep, L->ops_ns_chain);
	}
	for (size_t i = 0; i < c->npoints; i++)
		fprintf(f, "point %" PRIu64 " %.17g %.17g %.17g\n", c->pt[i].size, c->pt[i].rd_bw,
			c->pt[i].wr_bw, c->pt[i].lat_ns);
	for (size_t i = 0; i < c->nevents; i++) {
		fprintf(f, "event %d %d %.17g ", c->ev[i].level, c->ev[i].write, c->ev[i].rate);
		put_clean(f, c->ev[i].name);
	}
	fprintf(f, "end\n");
	return ferror(f) ? -EIO : 0;
}

/* A figure: finite and not negative. */
static int ok_num(double v)
{
	return isfinite(v) && v >= 0;
}

/* The rest of the line after "tag ", into dst (cut to dlen). */
static int get_str(const char *line, const char *tag, char *dst, size_t dlen)
{
	size_t t = strlen(tag);

	if (strncmp(line, tag, t) || (line[t] != ' ' && line[t] != '\0'))
		return 0;
	snprintf(dst, dlen, "%s", line[t] ? line + t + 1 : "");
	return 1;
}

#define BAD(...) do { snprintf(why, whylen, __VA_ARGS__); r = -EINVAL; goto out; } while (0)

int calib_parse(const char *text, struct calib *c, char *why, size_t whylen)
{
	char line[512];
	const char *p = text;
	unsigned seen_lvl = 0, lineno = 0;
	int r = 0, ended = 0, version;

	memset(c, 0, sizeof(*c));
	snprintf(why, whylen, "ok");
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int pos = 0;

		lineno++;
		if (n >= sizeof(line))
			BAD("line %u is too long", lineno);
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (e ? 1 : 0);
		if (memchr(line, '\0', n))
			BAD("line %u holds a NUL byte", lineno);
		if (ended)
			BAD("line %u follows 'end'", lineno);
		if (lineno == 1) {
			if (sscanf(line, MAGIC " %d%n", &version, &pos) != 1 || line[pos])
				BAD("not a cdt membound calibration");
			c->version = version;
			if (version != CALIB_VERSION) {
				snprintf(why, whylen, "format version %d, not %d", version, CALIB_VERSION);
				return -ESTALE;
			}
			continue;
		}
		if (line[0] == '#' || !line[0])
			continue;
		if (!strcmp(line, "end")) {
			ended = 1;
		} else if (get_str(line, "key", c->key, sizeof(c->key)) ||
			   get_str(line, "cpu", c->cpu, sizeof(c->cpu)) ||
			   get_str(line, "isa", c->isa, sizeof(c->isa)) ||
			   get_str(line, "note", c->note, sizeof(c->note)) ||
			   get_str(line, "events_why", c->events_why, sizeof(c->events_why))) {
			;
		} else if (sscanf(line, "time %" SCNd64 "%n", &c->time, &pos) == 1 && !line[pos]) {
			if (c->time <= 0)
				BAD("line %u: bad time", lineno);
		} else if (sscanf(line, "tsc_hz %lf%n", &c->tsc_hz, &pos) == 1 && !line[pos]) {
			if (!ok_num(c->tsc_hz))
				BAD("line %u: bad tsc_hz", lineno);
		} else if (sscanf(line, "threads %u%n", &c->nthreads, &pos) == 1 && !line[pos]) {
			if (c->nthreads < 1 || c->nthreads > 65536)
				BAD("line %u: bad threads", lineno);
		} else if (sscanf(line, "quick %d%n", &c->quick, &pos) == 1 && !line[pos]) {
			if (c->quick != 0 && c->quick != 1)
				BAD("line %u: bad quick", lineno);
		} else if (sscanf(line, "ops_alone %lf%n", &c->ops_ns_alone, &pos) == 1 && !line[pos]) {
			if (!ok_num(c->ops_ns_alone))
				BAD("line %u: bad ops_alone", lineno);
		} else if (!strncmp(line, "level ", 6)) {
			struct calib_level L;
			int k;

			memset(&L, 0, sizeof(L));
			if (sscanf(line, "level %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %d %lf %lf %lf %lf "
				   "%lf %" SCNu64 " %" SCNu64 " %" SCNu64 " %lf %lf %lf%n",
				   &k, &L.size, &L.work, &L.topo_size, &L.origin, &L.rd_bw1, &L.wr_bw1,
				   &L.rd_bwN, &L.wr_bwN, &L.lat_ns, &L.probe_p10, &L.probe_p50,
				   &L.probe_p90, &L.probe_ns_p50, &L.ops_ns_indep, &L.ops_ns_chain,
				   &pos) != 16 || line[pos])
				BAD("line %u: a malformed level", lineno);
			if (k < 0 || k >= MB_NLEVELS || (seen_lvl & (1u << k)))
				BAD("line %u: level %d is unknown or repeated", lineno, k);
			if (L.origin < CALIB_ORIGIN_NONE || L.origin > CALIB_ORIGIN_SWEEP ||
			    !ok_num(L.rd_bw1) || !ok_num(L.wr_bw1) || !ok_num(L.rd_bwN) ||
			    !ok_num(L.wr_bwN) || !ok_num(L.lat_ns) || !ok_num(L.probe_ns_p50) ||
			    !ok_num(L.ops_ns_indep) || !ok_num(L.ops_ns_chain) ||
			    L.probe_p10 > L.probe_p50 || L.probe_p50 > L.probe_p90)
				BAD("line %u: level %d holds an impossible value", lineno, k);
			seen_lvl |= 1u << k;
			c->lvl[k] = L;
		} else if (!strncmp(line, "point ", 6)) {
			struct calib_point *q = &c->pt[c->npoints];

			if (c->npoints >= CALIB_MAX_POINTS)
				BAD("line %u: more than %d points", lineno, CALIB_MAX_POINTS);
			if (sscanf(line, "point %" SCNu64 " %lf %lf %lf%n", &q->size, &q->rd_bw, &q->wr_bw,
				   &q->lat_ns, &pos) != 4 || line[pos] || !q->size || !ok_num(q->rd_bw) ||
			    !ok_num(q->wr_bw) || !ok_num(q->lat_ns))
				BAD("line %u: a malformed point", lineno);
			if (c->npoints && q->size <= c->pt[c->npoints - 1].size)
				BAD("line %u: points out of order", lineno);
			c->npoints++;
		} else if (!strncmp(line, "event ", 6)) {
			struct calib_event *v = &c->ev[c->nevents];

			if (c->nevents >= CALIB_MAX_EVENTS)
				BAD("line %u: more than %d events", lineno, CALIB_MAX_EVENTS);
			if (sscanf(line, "event %d %d %lf %n", &v->level, &v->write, &v->rate, &pos) != 3 ||
			    v->level < 0 || v->level >= MB_NLEVELS || (v->write != 0 && v->write != 1) ||
			    !ok_num(v->rate) || !line[pos])
				BAD("line %u: a malformed event", lineno);
			snprintf(v->name, sizeof(v->name), "%s", line + pos);
			c->nevents++;
		} else {
			BAD("line %u: unknown record '%.20s'", lineno, line);
		}
	}
	if (lineno == 0)
		BAD("empty file");
	if (!ended)
		BAD("truncated: no 'end'");
	if (seen_lvl != (1u << MB_NLEVELS) - 1)
		BAD("a level is missing");
	if (!c->time || !c->nthreads || strlen(c->key) != 16 || !c->tsc_hz)
		BAD("a field is missing (time, threads, key or tsc_hz)");
out:
	return r;
}

int calib_load_file(const char *path, const char *key, int64_t now, struct calib *c,
		    char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t n;
	int r;

	if (!f) {
		r = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		return r == -ENOENT ? -ENOENT : -EINVAL;
	}
	text = malloc(FILE_MAX + 1);
	if (!text) {
		r = -ENOMEM;
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		goto out;
	}
	n = fread(text, 1, FILE_MAX + 1, f);
	if (ferror(f) || n > FILE_MAX) {
		r = -EINVAL;
		snprintf(why, whylen, "%s", ferror(f) ? strerror(EIO) : "too large");
		goto out;
	}
	text[n] = '\0';
	if (strlen(text) != n) {
		r = -EINVAL;
		snprintf(why, whylen, "holds a NUL byte");
		goto out;
	}
	if ((r = calib_parse(text, c, why, whylen)) < 0)
		goto out;
	if (key && strcmp(c->key, key)) {
		r = -ESTALE;
		snprintf(why, whylen, "made for another machine (key %s)", c->key);
	} else if (now - c->time > CALIB_MAX_AGE || c->time - now > 24 * 3600) {
		r = -ESTALE;
		snprintf(why, whylen, "made %lld days ago", (long long)((now - c->time) / 86400));
	}
out:
	free(text);
	fclose(f);
	return r;
}

int calib_load(struct calib *c)
{
	char path[4096], key[17], why[160];
	int r;

	if ((r = calib_path(path, sizeof(path))) < 0 || (r = calib_key(key, sizeof(key))) < 0)
		return -ENOENT;
	r = calib_load_file(path, key, (int64_t)time(NULL), c, why, sizeof(why));
	return r == -EINVAL || r == -ENOMEM ? -ENOENT : r;
}

static int calib_write_cb(FILE *f, const void *c)
{
	return calib_write(f, c);
}

int calib_save_file(const char *path, const struct calib *c)
{
	return cache_save(path, calib_write_cb, c, MSG);
}

int calib_save(const struct calib *c)
{
	char name[64], path[4096];
	int r;

	snprintf(name, sizeof(name), "membound-%s.txt", c->key);
	if ((r = cache_path(name, path, sizeof(path))) < 0) {
		fprintf(stderr, MSG "no cache directory: set XDG_CACHE_HOME or HOME\n");
		return r;
	}
	return calib_save_file(path, c);
}

int calib_ensure(struct calib *c, FILE *msg)
{
	char path[4096], key[17], why[160];
	int r;

	if ((r = calib_path(path, sizeof(path))) < 0 || (r = calib_key(key, sizeof(key))) < 0) {
		fprintf(msg, MSG "no cache directory (set XDG_CACHE_HOME or HOME): %s\n",
			strerror(-r));
		snprintf(path, sizeof(path), "(none)");
	} else {
		r = calib_load_file(path, key, (int64_t)time(NULL), c, why, sizeof(why));
		if (!r)
			return 0;
		if (r == -ENOENT)
			fprintf(msg, MSG "no calibration for this machine in %s; running a quick one "
				"(a few seconds)\n", path);
		else if (r == -ESTALE)
			fprintf(msg, MSG "stale calibration %s (%s); running a quick one "
				"(a few seconds)\n", path, why);
		else
			fprintf(msg, MSG "unreadable calibration %s (%s); running a quick one "
				"(a few seconds)\n", path, why);
	}
	if ((r = calib_run(c, 1, 0)) < 0)
		return r;
	if (calib_save(c) < 0)
		fprintf(msg, MSG "warning: the calibration is not saved; the next run measures again\n");
	return 0;
}
