#!/bin/sh
# cdt membound on the calibration's kinds of kernel (membound_kernels),
# each with a designed answer, under the source this machine has (the soft
# estimate here; counters on a PMU host):
#   - compute, an L1-resident dependency chain: not memory bound;
#   - read over half of L2: bandwidth bound at L2;
#   - read over 9/10 of L3 (the calibrated, effective L3): at L3.  Not
#     half: a quick calibration under load can find an L3 only twice L2
#     (seen: 2 MiB against 1 MiB), and half of it is then L2-sized; the
#     estimate's footprint of a stream is its buffer (the heap block
#     whole), and 0.9 L3 keeps that above L2 whenever L3 is 2 L2 or more,
#     which level detection ensures;
#   - read over 8 x L3 (at least 128 MiB): bandwidth bound at DRAM;
#   - chase over the same: latency bound at DRAM;
#   - phases, compute then read over DRAM: two verdicts, the boundary
#     within one interval of the workload's own clock reading.
# The verdict checked is the phase that holds most of the kernel's timed
# part (the truth file's start and end; buffers are written before it).
# Each kernel runs RUNS times (default 10; the issue asks 10 of 10) and
# must be right every time; a DRAM read that got under 65% of the
# calibrated peak by its own clock is run again (read_rate, below).
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads membound_kernels
RUNS=${MEMBOUND_RUNS:-10}
export XDG_CACHE_HOME="$tmp/cache"

# The level sizes the calibration found (quick, made by the first run).
"$CDT" membound -q -o "$tmp/c.data" "$W/membound_kernels" compute -d 0.2 2>"$tmp/err" ||
	fail "first run: $(cat "$tmp/err")"
grep -q "quick" "$tmp/err" || fail "a missing calibration is not said: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/c.data" --csv --view summary >"$tmp/summary" || fail "summary"
l2=$(kv l2_bytes)
l3=$(kv l3_bytes)
# A quick calibration with the host's other guests busy can find no L3
# between L2 and DRAM on the latency curve (0; 2 of 6 tries under heavy
# load): there is then no L3 to read, and the run says so.
[ "${l2:-0}" -gt 0 ] && { [ "${l3:-0}" -gt "$l2" ] || [ "$l3" = 0 ]; } ||
	fail "calibrated sizes: L2 '$l2' L3 '$l3'"
dram=$((l3 * 8))
[ "$dram" -ge $((128 << 20)) ] || dram=$((128 << 20))
echo "sizes: L2 $l2, L3 $l3, DRAM runs over $dram bytes"

# phases_of CSV: start_ns end_ns verdict level of each phase (its text
# column is quoted, which cols refuses).
phases_of() {
	python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["start_ns"], r["end_ns"], r["verdict"], r["level"])' "$1"
}

# verdict_of TRUTH_PHASE: "verdict level" of the profile's phase that
# overlaps most of the truth phase named, with the profile in $tmp/v.
verdict_of() {
	awk -v want="$1" -v tf="$tmp/truth" '
	BEGIN { while ((getline l < tf) > 0) { split(l, a, " "); if (a[1] == "phase" && a[2] == want) { s = a[3]; e = a[4] } } }
	{ lo = $1 > s ? $1 : s; hi = $2 < e ? $2 : e; if (hi - lo > best) { best = hi - lo; v = $3 " " $4 } }
	END { print v }' "$tmp/v"
}

# The DRAM peak the verdicts use: the calibration's one-core read.
dram_peak=$(awk '$1 == "level" && $2 == 3 { print $7 / 1e9 }' "$XDG_CACHE_HOME"/cdt/membound-*.txt)
[ -n "$dram_peak" ] || fail "no DRAM level in the calibration: $(cat "$XDG_CACHE_HOME"/cdt/membound-*.txt)"

# read_rate: the read's own rate in $tmp/truth, GB/s (0 if none), for
# dram_short: under 65% of the DRAM peak the run is made again.  This
# host's DRAM is shared with its other guests and gives one core
# anywhere from half to all of its calibrated bandwidth within seconds
# (under stress-ng cdt once put a read over 128 MiB at 5.3 GB/s against
# a peak of 12.4 measured a minute before: 'latency DRAM', as the rule
# for bandwidth bound is half the peak; the read's own rate was not kept
# then; in 16 runs after it the reads' own rates were 7.96 to 10.3 GB/s
# against a peak of 10.6, and the running figure of cdt's verdicts 0.84
# to 1.2 of them).  A read that did not get its bandwidth has no
# designed answer and is run again (the runs that count stay RUNS); 65%
# keeps cdt's figure over half of the peak.  A read that got it must be
# bandwidth bound, every time.
read_rate() {
	awk '$1 == "rate" && $3 != "" { r = $3 } END { print r + 0 }' "$tmp/truth"
}

run() { # NAME WANT ARGS...: run the kernel RUNS times, the verdict each time
	name=$1 want=$2
	shift 2
	i=0
	while [ $i -lt "$RUNS" ]; do
		"$CDT" membound -q -o "$tmp/k.data" "$W/membound_kernels" "$@" -T "$tmp/truth" \
			2>"$tmp/err" || fail "$name: cdt membound: exit $?: $(cat "$tmp/err")"
		"$CDT" report -i "$tmp/k.data" --csv --view membound-verdicts >"$tmp/vcsv" ||
			fail "$name: report"
		if [ "$want" = "bandwidth DRAM" ] && dram_short "$name" "$(read_rate)" "$dram_peak" "$RUNS"; then
			continue
		fi
		phases_of "$tmp/vcsv" >"$tmp/v"
		got=$(verdict_of "$name")
		[ "$got" = "$want" ] || fail "$name, run $((i + 1)): '$got', expected '$want': $(cat "$tmp/vcsv")"
		i=$((i + 1))
	done
	echo "$name ($*): $want, $RUNS of $RUNS"
}

run compute "not_memory_bound " compute -d 0.5
run read "bandwidth L2" read -s $((l2 / 2)) -d 0.5
if [ "$l3" -gt 0 ]; then
	run read "bandwidth L3" read -s $((l3 * 9 / 10 / 4096 * 4096)) -d 0.5
else
	echo "read over 9/10 of L3: not run, the calibration found no L3"
fi
run read "bandwidth DRAM" read -s $dram -d 0.5
run chase "latency DRAM" chase -s $dram -d 0.5

# Two phases, and where one ends: the boundary between the verdicts is
# within one interval (100 ms) of the workload's switch, as a phase edge
# is an interval's edge and the interval across the switch goes to
# whichever kernel had most of it.
i=0
while [ $i -lt "$RUNS" ]; do
	"$CDT" membound -q -o "$tmp/p.data" "$W/membound_kernels" phases -s $dram -d 1.2 \
		-T "$tmp/truth" 2>"$tmp/err" || fail "phases: exit $?: $(cat "$tmp/err")"
	"$CDT" report -i "$tmp/p.data" --csv --view membound-verdicts >"$tmp/vcsv" || fail "report"
	if dram_short phases "$(read_rate)" "$dram_peak" "$RUNS"; then
		continue
	fi
	phases_of "$tmp/vcsv" >"$tmp/v"
	c=$(verdict_of compute)
	r=$(verdict_of read)
	[ "$c" = "not_memory_bound " ] && [ "$r" = "bandwidth DRAM" ] ||
		fail "phases, run $((i + 1)): compute '$c', read '$r': $(cat "$tmp/vcsv")"
	# The start of the phase that holds the read against the switch.
	awk -v tf="$tmp/truth" '
	BEGIN { while ((getline l < tf) > 0) { split(l, a, " "); if (a[1] == "phase" && a[2] == "read") { s = a[3]; e = a[4] } } }
	{ lo = $1 > s ? $1 : s; hi = $2 < e ? $2 : e; if (hi - lo > best) { best = hi - lo; start = $1 } }
	END { d = start - s; if (d < 0) d = -d; printf "boundary %.0f ms from the switch\n", d / 1e6; exit !(d <= 100e6) }' \
		"$tmp/v" >"$tmp/b" || fail "phases, run $((i + 1)): $(cat "$tmp/b"): $(cat "$tmp/vcsv")"
	i=$((i + 1))
done
echo "phases: compute then DRAM read, the boundary within 100 ms, $RUNS of $RUNS ($(cat "$tmp/b"))"

# The report names the phase's function and its source line.
"$CDT" report -i "$tmp/p.data" --view findings >"$tmp/find" || fail "findings"
grep -q "bandwidth bound at DRAM.*read_\(avx2\|sse2\) (membound_kernels.c:" "$tmp/find" ||
	grep -A8 "bandwidth bound at DRAM" "$tmp/find" | tr "\n" " " | grep -q "read_\(avx2\|sse2\)" ||
	fail "the DRAM phase names no read kernel: $(cat "$tmp/find")"
echo "findings: $(grep -c intervals "$tmp/find") phases named"
