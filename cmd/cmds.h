/* SPDX-License-Identifier: GPL-2.0-only */
/* The commands that are not tools (those run from the tool table).  Each
 * returns cdt's exit status. */
#ifndef CDT_CMDS_H
#define CDT_CMDS_H

int cmd_report(int argc, char **argv);
int cmd_probe(int argc, char **argv);

#endif
