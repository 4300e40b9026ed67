#!/bin/sh
# cdt comm on counters added to with `lock add` in a loop whose contended
# instruction lies just before the loop's back-edge: comm_atomicptr (C,
# the counters behind a pointer the loop reloads) and comm_vector (C++:
# std::atomic fetch_add on elements of a std::vector, in a lambda given to
# std::thread, the shape a user reported finding nothing on).  A timer sample lands
# past the branch, on the next iteration's loads of the pointer; the soft
# source must find the `lock add` there (sample_soft.c, the stall site).
# Designed truth, with watchpoints and without (--wp 0):
#   - unpadded: the findings name false sharing on the counters' heap
#     object, and all threads write it;
#   - padded: no false-sharing finding on it.
# Measured here, 0.5 s gives 300-500 events unpadded (on samples alone:
# the finding needs 10), and 0 padded; before the stall site, 0-2.
# comm_vector's 4 counters straddle two lines (the vector's block is not
# line-aligned): a finding on either is the truth.
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

	for p in "" -p; do
		"$CDT" comm -q --wp $wp -o "$tmp/v$wp$p.data" "$BUILD/workloads/comm_vector" -t 0.5 $p \
			>"$tmp/v.out" 2>"$tmp/v.err" || fail "cdt comm comm_vector $p: $(tail -n 5 "$tmp/v.err")"
	done
	vf=$("$CDT" report -i "$tmp/v$wp.data" --view findings --width full | grep -F "false sharing (" |
		grep -E "\) on heap@comm_vector\.cc:[0-9]+ \(main\)") ||
		fail "wp $wp: comm_vector, no false-sharing finding on the vector's block: $("$CDT" report -i "$tmp/v$wp.data" --view findings | head -n 8 | tr '\n' ' ')"
	if f=$("$CDT" report -i "$tmp/v$wp-p.data" --view findings --width full | grep -F "false sharing ("); then
		fail "wp $wp: comm_vector -p, yet a false-sharing finding: $f"
	fi
	echo "wp $wp: comm_vector: $(echo "$vf" | head -n 1 | cut -c1-100)...; padded: no finding"
done
exit 0
