#!/bin/sh
# cdt comm on comm_ring: worker k reads what worker k-1 writes and writes
# for worker k+1, through channels of 8-byte words each alone on a line.
#   - ring of 4: only cells (0,1) (1,2) (2,3) (0,3), all alike (checker
#     defaults, comm/check_matrix.sh: a uniform matrix has mass 4/6, a
#     chain misses an edge and fails mincell);
#   - chain of 4 (--chain): only (0,1) (1,2) (2,3): the ring's edge (0,3)
#     must be gone (stray <= 0.3 of a designed cell);
#   - fs_total <= 10% of all_total in both (none designed).
# Both run 2 s: with one core busy elsewhere a stage was once starved for
# much of a 1 s run (1 in 20 soak runs each: the chain's cell (1,2) at
# 0.215 of the mean, the ring's (0,3) at 0.233, under the 0.25 mincell);
# twice the run averages the scheduler's turns over twice the time slices.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_ring

comm_run ring comm_ring -n 4 -t 2
comm_check ring all "$(pat_ring 4)"
comm_no_fs ring

comm_run chain comm_ring -n 4 --chain -t 2
comm_check chain all "$(pat_chain 4)"
comm_no_fs chain
exit 0
