/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tables as one JSON document (RFC 8259) for pipelines, written as it
 * goes: a version, string members under "meta", then each table under
 * "views" with its title, columns, rows (one object per row) and hidden
 * count.  The same struct table feeds text, CSV and JSON; this renderer
 * knows nothing of profiles.  The shape is documented in cdt-report(1).
 */
#ifndef CDT_JSON_H
#define CDT_JSON_H

#include <stdio.h>

#include "output/table.h"

#define JSON_VERSION 1

struct json_doc {
	FILE *f;
	int nmeta, ntables;
};

/* Start a document on f. */
void json_begin(struct json_doc *d, FILE *f);
/* A "meta" member, a string (NULL: null); all of them before any table. */
void json_meta(struct json_doc *d, const char *key, const char *value);
/*
 * A member of "views" called name.  A cell of a numeric (":r") column
 * that is a JSON number as it stands (optional minus, digits, fraction,
 * exponent; finite) is written as that number; other cells are strings;
 * empty cells null.
 */
void json_table(struct json_doc *d, const char *name, const struct table *t);
/* Close the document; 0, or -EIO if writing failed. */
int json_end(struct json_doc *d);

/*
 * A JSON string: quotes, backslashes and control characters escaped
 * (\n, \t, \r, else \u00XX), valid UTF-8 kept as it is, and each byte
 * that is not part of valid UTF-8 written as \u00XX of its value, so no
 * byte is lost and the output is always valid UTF-8.
 */
void json_string(FILE *f, const char *s);
/* Is s, as a whole, a finite number in JSON's grammar?  1 or 0. */
int json_is_number(const char *s);

#endif
