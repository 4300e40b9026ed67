/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cdt.data: a versioned header followed by one zlib stream of records
 * (record.h), the last of which is REC_END.  Writers go to a temporary file
 * beside the target and rename it at the end, so a failed write never
 * clobbers an earlier profile.  The reader checks every length, string and
 * count and never trusts the file.
 */
#ifndef CDT_DATAFILE_H
#define CDT_DATAFILE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/records.h"
#include "lib/wire/record.h"

#define DF_MAGIC "CDTDATA\n"
/* 1.1: rec_runstats gained the arena's rejection counts.
 * 1.2: rec_sample gained data_src.
 * 1.3: agent_ext (thread stats, tasks) gained the sample clock's counts.
 * 1.4: membound's REC_MB_PAIR (a sample and its follow-up).
 * 1.5: comm's REC_COMM gained the two threads' sampling periods. */
#define DF_MAJOR 1u
#define DF_MINOR 5u
#define DF_MAX_RECORD REC_MAX_SIZE /* larger records are corrupt */

struct df_writer;

/*
 * Create `path`.tmp.XXXXXX next to path, renamed over it by df_commit, so
 * a failed write never clobbers an earlier profile.  A symlink is followed
 * (the file it names is replaced, not the link).  A path that exists and
 * is not a regular file (/dev/null, a FIFO, a terminal) is written in
 * place: renaming over it would replace the device or pipe by a file.
 */
int df_create(struct df_writer **w, const char *path);
/* Whether df_create(path) could succeed, without waiting on a FIFO and
 * leaving nothing behind: 0 or a negative errno. */
int df_check(const char *path);
/* Append one record; rec->size must be set (multiple of 8). */
int df_write(struct df_writer *w, const struct rec_hdr *rec);
/* Convenience: a REC_META key/value record. */
int df_write_meta(struct df_writer *w, const char *key, const char *value);
/* Write REC_END, flush, fsync, rename over path.  Frees w either way. */
int df_commit(struct df_writer *w);
/* Remove the temporary file.  Frees w. */
void df_abort(struct df_writer *w);

/* fn gets each record (never REC_END) after validation; non-zero stops. */
typedef int (*df_fn)(const struct rec_hdr *rec, void *arg);

/*
 * Read a file.  Returns 0, or a negative errno with a human message in err:
 * -ENOENT/-EACCES..., -EBADMSG (corrupt or truncated), -EPROTO (wrong
 * version), or whatever fn returned.
 */
int df_read(const char *path, df_fn fn, void *arg, char *err, size_t errlen);
int df_read_mem(const void *buf, size_t len, df_fn fn, void *arg, char *err,
		size_t errlen);

#endif
