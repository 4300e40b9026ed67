// SPDX-License-Identifier: GPL-2.0-only
#include "output/trace.h"

#include <errno.h>
#include <string.h>

#include "output/json.h"

/* A number as it stands if it is one, else the cell as a string. */
static void trace_value(FILE *f, const char *s)
{
	if (s && *s && json_is_number(s))
		fputs(s, f);
	else
		json_string(f, s ? s : "");
}

int trace_write(FILE *f, const struct table *t)
{
	static const char *const place[] = { "name", "pid", "tid", "ts_us", "dur_us" };
	int col[5];

	for (int k = 0; k < 5; k++)
		if ((col[k] = table_col(t, place[k])) < 0)
			return -EINVAL;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	for (size_t r = 0; r < t->nrows; r++) {
		char *const *row = t->cells + r * (size_t)t->ncols;
		int args = 0;

		fputs(r ? ",\n{\"ph\":\"X\",\"name\":" : "\n{\"ph\":\"X\",\"name\":", f);
		json_string(f, row[col[0]] ? row[col[0]] : "");
		fputs(",\"pid\":", f);
		trace_value(f, row[col[1]]);
		fputs(",\"tid\":", f);
		trace_value(f, row[col[2]]);
		fputs(",\"ts\":", f);
		trace_value(f, row[col[3]]);
		fputs(",\"dur\":", f);
		trace_value(f, row[col[4]]);
		for (int c = 0; c < t->ncols; c++) {
			const char *name = t->cols[c];
			size_t len = strcspn(name, ":");
			int placing = 0;

			for (int k = 0; k < 5; k++)
				placing |= c == col[k];
			if (placing)
				continue;
			fputs(args++ ? "," : ",\"args\":{", f);
			fprintf(f, "\"%.*s\":", (int)len, name);
			trace_value(f, row[c]);
		}
		if (args)
			fputc('}', f);
		fputc('}', f);
	}
	fputs("\n]}\n", f);
	return ferror(f) ? -EIO : 0;
}
