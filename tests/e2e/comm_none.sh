#!/bin/sh
# cdt comm on comm_none: 4 threads each load and store only within their
# own 64-byte line; the lines are adjacent, so a detector matching at a
# grain coarser than a cache line would see sharing.  Designed: none.
# Yardstick: comm_volume with sharing 0.5, same threads and length (1 s),
# as many sampled accesses.  all_total, ts_total and fs_total of comm_none
# must each be <= 5% of the yardstick's all_total: thread start-up and the
# start barrier are microseconds of 1 s; 5% is far below what any real
# sharing gives (the yardstick itself) but allows a few stray events.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_none

comm_run ref comm_volume -n 4 -s 0.5 -t 1
comm_totals ref
ref=$all

comm_run none comm_none -n 4 -t 1
comm_sums none
echo "comm_none: all_total $all ts_total $ts fs_total $fs; yardstick all_total $ref"
comm_assert "$all <= 0.05 * $ref && $ts <= 0.05 * $ref && $fs <= 0.05 * $ref" \
	"comm_none shares nothing, yet all/ts/fs_total = $all/$ts/$fs against $ref for sharing 0.5"
exit 0
