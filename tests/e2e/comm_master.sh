#!/bin/sh
# cdt comm on comm_master: worker 0 writes tasks for and reads results
# from each of workers 1..3 (a line per word); workers share nothing with
# each other.
#   - only cells (0,1) (0,2) (0,3), all alike: the L shape (checker
#     defaults, comm/check_matrix.sh: a uniform matrix has mass 1/2 and
#     worker-worker cells above 0.3 of a master cell fail);
#   - fs_total <= 10% of all_total (none designed).
#   - it runs 2 s: in 1 s under load the scheduler once gave worker 3 a
#     seventh of the others' share of the master (1 soak run in 20).
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_master

comm_run m comm_master -n 4 -t 2
comm_check m all "$(pat_star 4)"
comm_no_fs m
exit 0
