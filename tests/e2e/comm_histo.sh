#!/bin/sh
# cdt comm on comm_histo, the shape of a parallel histogram whose blocks
# lie back to back: worker 0's rare increments of its top counters share a
# line with worker 1's header, which worker 1 reads at every step.  The
# false sharing costs the unpadded run about 40% of its speed here
# (printed below from the workload's own rates, not asserted: timing is
# for tests/bench), and it is the one thing a user must be shown.
# Designed truth, in every one of 10 runs of each, with watchpoints (4)
# and without (--wp 0, a host whose hypervisor drops debug traps):
#   - unpadded: the findings name false sharing on the blocks' heap
#     object, heap@comm_histo.c:N (blocks_new);
#   - padded: no false-sharing finding on it.
# A finding needs 10 events on the line (comm's evidence rule).  Measured
# here with the other core busy (stress-ng), 0.5 s with watchpoints gave
# 106-181 events and 1 s without 64-149 (samples alone, which must meet
# on the line): a Poisson count of mean 64 is below 10 with odds under
# 1e-15, so 10 of 10 holds with margin; padded runs give 0-1.  Before the
# stall sites and the writer's watch, unpadded runs gave 0-2.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_histo

obj_re='^heap@comm_histo\.c:[0-9]* \(blocks_new\)$'
# finding TAG: the findings' false-sharing lines naming the blocks.
finding() {
	"$CDT" report -i "$tmp/$1.data" --view findings --width full |
		grep -F "false sharing (" | grep -E "\) on heap@comm_histo\.c:[0-9]+ \(blocks_new\)"
}

for wp in 4 0; do
	secs=0.5
	[ "$wp" = 0 ] && secs=1
	fast=0 slow=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		CDT_COMM_ARGS="--wp $wp" comm_run "u$wp.$i" comm_histo -t $secs
		obj=$(comm_viewcols "u$wp.$i" objects object | grep -m1 -E "$obj_re") ||
			fail "wp $wp run $i: unpadded, no object heap@comm_histo.c:N (blocks_new): $(head -n 4 "$tmp/u$wp.$i.objects.csv" | tr '\n' ' ')"
		fs=$(comm_obj "u$wp.$i" objects "$obj" fs) || exit 1
		ev=$(finding "u$wp.$i" | sed -n 's/.*, \([0-9]*\) events).*/\1/p' | head -n 1)
		[ -n "$ev" ] ||
			fail "wp $wp run $i: unpadded, no false-sharing finding on $obj (fs $fs): $("$CDT" report -i "$tmp/u$wp.$i.data" --view findings | head -n 8 | tr '\n' ' ')"
		CDT_COMM_ARGS="--wp $wp" comm_run "p$wp.$i" comm_histo -t $secs -p
		if f=$(finding "p$wp.$i"); then
			fail "wp $wp run $i: padded, yet a false-sharing finding: $f"
		fi
		slow=$(sed -n 's/.* rate=\([^ ]*\)\/s.*/\1/p' "$tmp/u$wp.$i.out")
		fast=$(sed -n 's/.* rate=\([^ ]*\)\/s.*/\1/p' "$tmp/p$wp.$i.out")
		echo "wp $wp run $i: unpadded fs $fs ($ev events) on $obj, padded none; steps/s unpadded $slow padded $fast"
	done
done
exit 0
