/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Checking records against what their type allows, wherever they enter the
 * front end: from the shared arena (ingest.c), from a file (datafile.c),
 * and in profile_add.  The agent's and the file's own types are described
 * here; a tool describes its own (prof_ops.types).
 */
#ifndef CDT_CORE_RECORDS_H
#define CDT_CORE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/wire/record.h"

/* The largest fixed part of any record type, for rec_accept's buffer. */
#define REC_FIXED_MAX 512
/* No record is larger (a file's are checked against it). */
#define REC_MAX_SIZE (1u << 20)

/* The description of a type of lib/wire/record.h, or NULL (a tool's type
 * or an unknown one). */
const struct rec_desc *rec_core(uint16_t type);

/* Size fields a reader can frame by: at least a header, a multiple of 8,
 * at most max.  0 or -EBADMSG with why. */
int rec_check_frame(const struct rec_hdr *h, uint32_t max, char *why, size_t whylen);

/*
 * A framed record against its type: at least t->min bytes, then t->check
 * on the record as this cdt's struct.  That is h itself when it has at
 * least t->size bytes (or t is REC_T_VAR), else a copy in buf (at least
 * REC_FIXED_MAX bytes, 8-aligned) with the fields it lacks zero and size
 * t->size; a longer fixed record keeps its size, and readers use the
 * fields they know.  Returns the record to use, or NULL with the reason in
 * why and, if short_rec is not NULL, whether it was too short (1) or
 * failed a check (0).
 */
const struct rec_hdr *rec_accept(const struct rec_desc *t, const struct rec_hdr *h, void *buf,
				 char *why, size_t whylen, int *short_rec);

/*
 * Check one record of the agent's or the file's types: framing, minimum
 * size, strings NUL-terminated inside it, lengths and counts consistent.
 * Tool types pass (their tool checks them).  0 or -EBADMSG.
 */
int record_validate(const struct rec_hdr *rec);

#endif
