// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/cache.h"

int cache_dir(char *buf, size_t len)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	int n;

	if (x && x[0] == '/')
		n = snprintf(buf, len, "%s/cdt", x);
	else if (h && h[0])
		n = snprintf(buf, len, "%s/.cache/cdt", h);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cache_path(const char *name, char *buf, size_t len)
{
	char dir[4096];
	int r = cache_dir(dir, sizeof(dir)), n;

	if (r < 0)
		return r;
	n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void cache_bid_hex(const uint8_t *bid, size_t n, char *hex)
{
	hex[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
}

int cache_bid_path(const char *dir, const uint8_t *bid, size_t n, const char *ext, char *buf,
		   size_t len)
{
	char hex[2 * 64 + 1], rel[256];

	if (!n || n > 64)
		return -EINVAL;
	cache_bid_hex(bid, n, hex);
	if (snprintf(rel, sizeof(rel), "%s/%s.%s", dir, hex, ext) >= (int)sizeof(rel))
		return -ENAMETOOLONG;
	return cache_path(rel, buf, len);
}

/* mkdir -p of dir, private (a cache of this user's). */
static int cache_mkdirs(char *dir)
{
	for (char *s = dir + 1;; s++) {
		if (*s == '/' || !*s) {
			char keep = *s;

			*s = '\0';
			if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
				int e = errno;

				*s = keep;
				return -e;
			}
			*s = keep;
			if (!keep)
				return 0;
		}
	}
}

int cache_make_dir(const char *path)
{
	char dir[4096], parent[4096];
	size_t dlen;
	const char *slash = strrchr(path, '/');

	if (cache_dir(dir, sizeof(dir)) || (dlen = strlen(dir)) >= strlen(path) ||
	    strncmp(path, dir, dlen) || path[dlen] != '/' || !slash ||
	    (size_t)(slash - path) >= sizeof(parent))
		return 0;
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	return cache_mkdirs(parent);
}

static void cache_say(const char *who, const char *what, const char *path, int err)
{
	if (who)
		fprintf(stderr, "%s%s %s: %s\n", who, what, path, strerror(err));
}

int cache_save(const char *path, int (*write)(FILE *f, const void *arg), const void *arg,
	       const char *who)
{
	char tmp[4096 + 16];
	FILE *f = NULL;
	int fd, r;

	if ((r = cache_make_dir(path)) < 0) {
		cache_say(who, "creating the directory of", path, -r);
		return r;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0) {
		r = -errno;
		cache_say(who, "creating", tmp, errno);
		return r;
	}
	if (!(f = fdopen(fd, "w"))) {
		r = -errno;
		cache_say(who, "fdopen", tmp, errno);
		close(fd);
		goto out;
	}
	r = write(f, arg);
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (r < 0) {
		cache_say(who, "writing", tmp, -r);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		cache_say(who, "renaming", tmp, errno);
		goto out;
	}
	return 0;
out:
	unlink(tmp);
	return r;
}
