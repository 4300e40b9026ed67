/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A timeline table as Chrome trace-event JSON, the format
 * ui.perfetto.dev and chrome://tracing open: one complete event ("ph":
 * "X") per row.  The table's columns name, pid, tid, ts_us and dur_us
 * place each event; every other column becomes one of its "args".  This
 * renderer knows nothing of profiles.
 */
#ifndef CDT_TRACE_H
#define CDT_TRACE_H

#include <stdio.h>

#include "output/table.h"

/* 0, -EINVAL if t lacks one of the placing columns, or -EIO. */
int trace_write(FILE *f, const struct table *t);

#endif
