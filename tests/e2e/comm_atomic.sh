#!/bin/sh
# cdt comm on counters added to with `lock add` in a loop whose contended
# instruction lies just before the loop's back-edge: comm_atomicptr (C,
# the counters behind a pointer the loop reloads).  A timer sample lands
# past the branch, on the next iteration's loads of the pointer; the soft
# source must find the `lock add` there (sample_soft.c, the stall site).
# Designed truth, with watchpoints and without (--wp 0):
#   - unpadded: the findings name false sharing on the counters' heap
#     object, and all threads write it;
#   - padded: no false-sharing finding on it.
# Measured here, 0.5 s gives 300-500 events unpadded (on samples alone:
# the finding needs 10), and 0 padded; before the stall site, 0-2.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_atomic

# finding TAG: the false-sharing findings naming the counters' object.
finding() {
	"$CDT" report -i "$tmp/$1.data" --view findings --width full |
		grep -F "false sharing (" | grep -E "\) on heap@comm_atomicptr\.c:[0-9]+ \(counters_new"
}

for wp in 4 0; do
	CDT_COMM_ARGS="--wp $wp" comm_run "u$wp" comm_atomicptr -t 0.5
	f=$(finding "u$wp") ||
		fail "wp $wp: unpadded, no false-sharing finding on counters_new's block: $("$CDT" report -i "$tmp/u$wp.data" --view findings | head -n 8 | tr '\n' ' ')"
	echo "$f" | grep -q "threads 0, 1, 2, 3 write it" ||
		fail "wp $wp: unpadded, the finding should name all 4 threads as writers: $f"
	CDT_COMM_ARGS="--wp $wp" comm_run "p$wp" comm_atomicptr -t 0.5 -p
	if f=$(finding "p$wp"); then
		fail "wp $wp: padded, yet a false-sharing finding: $f"
	fi
	comm_totals "u$wp"
	echo "wp $wp: unpadded fs $fs of all $all, found; padded: no finding"
done
exit 0
