/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommands.  Each returns cdt's exit status. */
#ifndef CDT_CMDS_H
#define CDT_CMDS_H

struct profile;

int cmd_record(int argc, char **argv);
int cmd_comm(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_probe(int argc, char **argv);

/* The tool's default text report of p on stdout (what cdt report prints). */
int report_text(const struct profile *p);

#endif
