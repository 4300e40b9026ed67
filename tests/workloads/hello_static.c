// SPDX-License-Identifier: GPL-2.0-only
/*
 * hello_static: a trivial program, linked -static (the Makefile links any
 * workload whose name contains "static" that way).  No dynamic loader
 * runs for it, so LD_PRELOAD cannot inject an agent: cdt must refuse it.
 * Prints one line and exits 0.
 */
#include <stdio.h>

int main(void)
{
	printf("hello from a static binary\n");
	return 0;
}
