// SPDX-License-Identifier: GPL-2.0-only
#include "output/json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t json_utf8_len(const unsigned char *s, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > left)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void json_string_n(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', f);
	for (size_t i = 0; i < len; i += n) {
		n = json_utf8_len(s + i, len - i);
		if (s[i] == '"' || s[i] == '\\')
			fprintf(f, "\\%c", s[i]);
		else if (s[i] == '\n')
			fputs("\\n", f);
		else if (s[i] == '\t')
			fputs("\\t", f);
		else if (s[i] == '\r')
			fputs("\\r", f);
		else if (s[i] < 0x20 || !n)
			fprintf(f, "\\u%04x", s[i]);
		else
			fwrite(s + i, 1, n, f);
		if (!n)
			n = 1;
	}
	fputc('"', f);
}

void json_string(FILE *f, const char *s)
{
	json_string_n(f, s, strlen(s));
}

int json_is_number(const char *s)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return 0;
	if (*p == '.') {
		if (!strspn(++p, "0123456789"))
			return 0;
		p += strspn(p, "0123456789");
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!strspn(p, "0123456789"))
			return 0;
		p += strspn(p, "0123456789");
	}
	/* 1e999 is in the grammar, but parsers would read infinity. */
	return !*p && isfinite(strtod(s, NULL));
}

void json_begin(struct json_doc *d, FILE *f)
{
	*d = (struct json_doc){ .f = f };
	fprintf(f, "{\n  \"version\": %d,\n  \"meta\": {", JSON_VERSION);
}

void json_meta(struct json_doc *d, const char *key, const char *value)
{
	fputs(d->nmeta++ ? ",\n    " : "\n    ", d->f);
	json_string(d->f, key);
	fputs(": ", d->f);
	if (value)
		json_string(d->f, value);
	else
		fputs("null", d->f);
}

/* Close "meta" and open "views", once. */
static void json_views_open(struct json_doc *d)
{
	fprintf(d->f, "%s},\n  \"views\": {", d->nmeta ? "\n  " : "");
}

static size_t json_col_len(const struct table *t, int c)
{
	return strlen(t->cols[c]) - (t->right[c] ? 2 : 0);
}

void json_table(struct json_doc *d, const char *name, const struct table *t)
{
	FILE *f = d->f;

	if (!d->ntables++)
		json_views_open(d);
	else
		fputc(',', f);
	fputs("\n    ", f);
	json_string(f, name);
	fputs(": {\n      \"title\": ", f);
	if (t->title)
		json_string(f, t->title);
	else
		fputs("null", f);
	fputs(",\n      \"columns\": [", f);
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			fputs(", ", f);
		json_string_n(f, t->cols[c], json_col_len(t, c));
	}
	fputs("],\n      \"rows\": [", f);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(r ? ",\n        {" : "\n        {", f);
		for (int c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * (size_t)t->ncols + (size_t)c];

			if (c)
				fputs(", ", f);
			json_string_n(f, t->cols[c], json_col_len(t, c));
			fputs(": ", f);
			if (!s || !*s)
				fputs("null", f);
			else if (t->right[c] && json_is_number(s))
				fputs(s, f);
			else
				json_string(f, s);
		}
		fputc('}', f);
	}
	fprintf(f, "%s],\n      \"hidden\": %zu\n    }", t->nrows ? "\n      " : "", t->hidden);
}

int json_end(struct json_doc *d)
{
	if (!d->ntables)
		json_views_open(d);
	fputs(d->ntables ? "\n  }\n}\n" : "}\n}\n", d->f);
	return ferror(d->f) ? -EIO : 0;
}
