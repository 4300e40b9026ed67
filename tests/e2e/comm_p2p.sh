#!/bin/sh
# cdt comm on comm_p2p (ComDetective's Point-to-point benchmark): pairs
# (2j, 2j+1) share a variable per pair, nothing else is shared.
#   - 2 pairs, sharing 0.5: only cells (0,1) and (2,3) (checker defaults,
#     comm/check_matrix.sh: a uniform matrix has mass 1/3, the transposed
#     pairing 0); fs_total <= 10% of all_total (none designed).
#   - 2 pairs, sharing 0.3 and 0.03: the same two cells, (0,1) at least
#     3x (2,3), and (2,3) still there.  A pair's loop loses 3.3x..4.7x
#     more time to stalls at 0.3 than at 0.03 (slowdown per iteration
#     over sharing 0, times iterations: a stand-in for lines moved, there
#     being no PMU), and sampled detection falls at least as fast as the
#     sharing (cdt comm: 7x..10x); 3x leaves room for noise and for
#     watchpoints, which catch even rare shared stores once armed.
#     (Sharing near 1 is avoided: there a core keeps the line for runs of
#     its own stores and the hardware moves it less, which sampling cannot
#     see.)  The pattern check weighs the cells 10:1 and skips mincell,
#     which cannot know the true ratio.
#   - 4 pairs (8 threads on the 2 cores): only (0,1) (2,3) (4,5) (6,7).
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_p2p

comm_run eq comm_p2p -p 2 -s 0.5 -t 1
comm_check eq all "$(pat_pairs 4)"
comm_no_fs eq

comm_run uneq comm_p2p -p 2 -s 0.3,0.03 -t 1
comm_check uneq all "0-1:10,2-3:1" -r 0
c01=$(comm_cell uneq all 0 1)
c23=$(comm_cell uneq all 2 3)
echo "sharing 0.3 vs 0.03: cell (0,1) $c01, cell (2,3) $c23"
comm_assert "$c23 > 0 && $c01 >= 3 * $c23" \
	"sharing 0.3 vs 0.03: cell (0,1) = $c01 must be >= 3x cell (2,3) = $c23, and (2,3) > 0"

comm_run eight comm_p2p -p 4 -s 0.5 -t 1
comm_check eight all "$(pat_pairs 8)"
exit 0
