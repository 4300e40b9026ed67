#!/bin/sh
# cdt comm on comm_readwrite (ComDetective's Read-Write benchmark): worker
# 0 only stores to one shared variable; the 3 others load it with
# probability R, else store to it.  Communication needs a store on one
# side, so:
#   - R = 1: only writer-reader pairs: a star on thread 0 (cells (0,k));
#     fs_total <= 10% of all_total (all accesses are to the same 8
#     bytes).
#   - R = 0: everybody writes: uniform over the 6 pairs.
# Checker defaults (comm/check_matrix.sh): the reader-reader cells of the
# star must stay below 30% of a writer cell and hold < 15% of the mass.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_readwrite

comm_run read comm_readwrite -n 4 -r 1 -t 1
comm_check read all "$(pat_star 4)"
comm_no_fs read

comm_run write comm_readwrite -n 4 -r 0 -t 1
comm_check write all "$(pat_all 4)"
exit 0
