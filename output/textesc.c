// SPDX-License-Identifier: GPL-2.0-only
#include "output/textesc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 character at s (not a control), or 0. */
static size_t textesc_char(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	/* Overlong forms, surrogates, past U+10FFFF, and the C1 controls. */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0)
		return 0;
	return n;
}

char *textesc_dup(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = 0, o = 0, n;
	char *out;

	for (size_t i = 0; u[i]; i += n ? n : 1)
		len += (n = textesc_char(u + i)) ? n : 4;
	out = malloc(len + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; u[i]; i += n ? n : 1) {
		n = textesc_char(u + i);
		if (n) {
			memcpy(out + o, u + i, n);
			o += n;
		} else {
			snprintf(out + o, 5, "\\x%02x", u[i]);
			o += 4;
		}
	}
	out[o] = '\0';
	return out;
}

size_t textesc_cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

size_t textesc_prefix(const char *s, size_t cols)
{
	size_t i = 0;

	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && cols-- == 0)
			break;
	return i;
}
