/* SPDX-License-Identifier: GPL-2.0-only */
/* Command-line option matching shared by the subcommands. */
#ifndef CDT_CLIOPT_H
#define CDT_CLIOPT_H

#include <stdint.h>

/*
 * Does argv[*i] name the option (short like "-o", long like "--output";
 * either may be NULL)?  With `val`, the option takes a value: "-o F",
 * "-oF", "--output F" or "--output=F".  On a match *i is advanced past
 * what was consumed and 1 is returned; 0 if it is another option; -1 if
 * the value is missing (a message has been printed).
 */
int cliopt_match(int argc, char **argv, int *i, const char *sh, const char *lg,
		 const char **val);

/* Parse an unsigned number with an optional k/M/G suffix (powers of 1000
 * unless `binary`), quietly: 0, or -EINVAL if s is not such a number. */
int cliopt_parse_u64(const char *s, int binary, uint64_t *out);

/* The value s of option opt, a number of at least 1 (a rate, a period, a
 * size: zero has no meaning for these); otherwise one line on stderr
 * naming opt and s, and -EINVAL. */
int cliopt_u64(const char *opt, const char *s, int binary, uint64_t *out);

#endif
