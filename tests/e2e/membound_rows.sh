#!/bin/sh
# cdt membound's footprint of a grid made row by row (membound_rows: 4096
# rows of 64 KiB, each its own malloc, swept again and again): the sweep's
# phase reports a working set of 256 MiB and is bandwidth bound at DRAM,
# in each of RUNS runs (default 3).
#
# The footprint counts the rows whole, as many as the samples say were in
# use, at most those alive (lib/tools/membound/model.c, mb_instances): a
# window's 50 to 100 samples fall on as many rows, with 0.3 to 1.2
# repeats expected if all 4096 are used evenly; the estimate drops below
# all of them only when the repeats are beyond a 1% tail.  The phase's
# footprint is the median of its intervals' (15 or more here), so it is
# low only if half of them are: about 1e-8.  What else the sweep touches
# (the array of row pointers, 32 KiB, its stack) is far below 10%: so
# 0.9 to 1.1 of the grid's bytes.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads membound_rows
RUNS=${MEMBOUND_RUNS:-3}
export XDG_CACHE_HOME="$tmp/cache"

i=0
while [ $i -lt "$RUNS" ]; do
	"$CDT" membound -q -o "$tmp/r.data" "$W/membound_rows" -d 2 -T "$tmp/truth" \
		2>"$tmp/err" || fail "run $((i + 1)): cdt membound: exit $?: $(cat "$tmp/err")"
	"$CDT" report -i "$tmp/r.data" --csv --view membound-verdicts >"$tmp/vcsv" ||
		fail "run $((i + 1)): report"
	# The phase that overlaps most of the sweep: its footprint and level.
	got=$(python3 -c 'import csv, sys
t = dict((l.split()[0], l.split()[1:]) for l in open(sys.argv[2]))
s, e = int(t["phase"][1]), int(t["phase"][2])
best = max(csv.DictReader(open(sys.argv[1])),
           key=lambda r: min(e, int(r["end_ns"])) - max(s, int(r["start_ns"])))
print(best["footprint_bytes"], best["level"] or "-", best["verdict"], t["bytes"][0],
      t["rate"][1], best["peak_gbs"] or "-")' \
		"$tmp/vcsv" "$tmp/truth") || fail "run $((i + 1)): no phase: $(cat "$tmp/vcsv")"
	set -- $got
	if dram_short "run $((i + 1)), the sweep" "$5" "$6" "$RUNS"; then
		continue
	fi
	awk -v f="$1" -v b="$4" 'BEGIN { exit !(f >= 0.9 * b && f <= 1.1 * b) }' ||
		fail "run $((i + 1)): footprint $1 bytes, the grid $4: $(cat "$tmp/vcsv")"
	# A sweep in order through rows made in order: its pairs move
	# through the rows' addresses, and it draws DRAM's bandwidth.
	[ "$3 $2" = "bandwidth DRAM" ] ||
		fail "run $((i + 1)): '$3 $2', expected bandwidth DRAM: $(cat "$tmp/vcsv")"
	echo "run $((i + 1)): footprint $1 bytes of a $4-byte grid ($(awk -v f="$1" -v b="$4" \
		'BEGIN { printf "%.3f", f / b }')x), $3 at $2"
	i=$((i + 1))
done
echo "rows: the grid's footprint within 10%, bandwidth bound at DRAM, $RUNS of $RUNS"
