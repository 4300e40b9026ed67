#!/bin/sh
# cdt comm on comm_phases: 4 threads, two phases of 0.5 s separated by a
# barrier; phase 1 pairs (0,1) (2,3), phase 2 pairs (0,2) (1,3) (each
# thread stores to its pair's variable with probability 0.5).
#   - the whole run's matrix is the union: cells (0,1) (2,3) (0,2) (1,3)
#     alike, and nothing in (0,3) (1,2) (checker defaults,
#     comm/check_matrix.sh: a uniform matrix has mass 4/6 and cos 0.82;
#     either phase alone fails mincell);
#   - fs_total <= 10% of all_total (none designed).
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_phases

comm_run ph comm_phases -n 4 -P 2 -s 0.5 -t 1
comm_check ph all "$(pat_xor 4 2)"
comm_no_fs ph
exit 0
