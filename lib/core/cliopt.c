// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/cliopt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cliopt_match(int argc, char **argv, int *i, const char *sh, const char *lg,
		 const char **val)
{
	const char *a = argv[*i];
	size_t n;

	if (sh && !strcmp(a, sh))
		goto next;
	if (lg && !strcmp(a, lg))
		goto next;
	if (val && sh && sh[1] && !sh[2] && a[0] == '-' && a[1] == sh[1] && a[2] &&
	    a[1] != '-') {
		*val = a + 2;
		(*i)++;
		return 1;
	}
	if (val && lg) {
		n = strlen(lg);
		if (!strncmp(a, lg, n) && a[n] == '=') {
			*val = a + n + 1;
			(*i)++;
			return 1;
		}
	}
	return 0;
next:
	(*i)++;
	if (!val)
		return 1;
	if (*i >= argc) {
		fprintf(stderr, "cdt: option %s needs a value\n", a);
		return -1;
	}
	*val = argv[(*i)++];
	return 1;
}

int cliopt_parse_u64(const char *s, int binary, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1, base = binary ? 1024 : 1000;
	char *end;

	errno = 0;
	/* strtoull would take "-1" as a huge number, and skip leading spaces. */
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = base; end++; break;
	case 'm': case 'M': mul = base * base; end++; break;
	case 'g': case 'G': mul = base * base * base; end++; break;
	default: break;
	}
	if (*end || (v && mul > UINT64_MAX / v))
		return -EINVAL;
	*out = v * mul;
	return 0;
}

int cliopt_u64(const char *opt, const char *s, int binary, uint64_t *out)
{
	uint64_t v;

	if (cliopt_parse_u64(s, binary, &v) || !v) {
		fprintf(stderr, "cdt: %s takes a number from 1, not '%s'\n", opt, s ? s : "");
		return -EINVAL;
	}
	*out = v;
	return 0;
}
