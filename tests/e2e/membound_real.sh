#!/bin/sh
# cdt membound on programs nobody here wrote, with their own figures as
# the truth (issue 23):
#   - likwid-bench's copy kernel of the calibration's width (copy_avx512,
#     copy_avx or copy_sse) over a working set of 4x the calibrated L3 (at
#     least 64 MiB), on 1 and 2 threads: bandwidth bound at DRAM, and the
#     achieved bandwidth within 25% of likwid-bench's own MByte/s (which
#     counts the bytes its loop loads and stores, as cdt does);
#   - the same kernel over half of L2: not at DRAM;
#   - stress-ng's fft and matrix product methods: not memory bound.
# At least 64 MiB: a quick calibration under load can find an L3 of 2 MiB
# on this project's VMs, whose CPUID says 35 MiB, and 4x that much would
# sit partly in the real L3.
# The verdict and the figure checked are those of the phase holding most
# of the program's CPU time (likwid-bench's start-up, a second of little,
# is a phase of its own).
#
# The 25%: the estimate sums, per thread, the rate of each pair of samples
# (how far the sampled address moved in a known CPU time) times the CPU
# time its lead stands for; over a phase of about 2 s it has some 350
# pairs a thread, whose rates scatter by about 10% (the pair's time is the
# one asked for, not the one the program ran: the timer fires 12-25 us
# late on a stretch of 150-450 us), so the mean is good to about 1%; what
# remains is the host: likwid's figure is its own loop's time, cdt's the
# phase's wall time (start and end of the phase fall within an interval).
# Seen here: cdt/likwid 1.01 (1 thread) and 1.03 (2 threads).
set -u
. "$(dirname "$0")/lib/common.sh"
export XDG_CACHE_HOME="$tmp/cache"
cd "$tmp" || exit 1

# main_phase CSV: "verdict level achieved_gbs peak_gbs" of the phase with
# the most samples (likwid-bench idles for a second first: a long phase
# of none).
main_phase() {
	python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = max(rows, key=lambda r: int(r["samples"]))
print(r["verdict"], r["level"] or "-", r["achieved_gbs"] or "-", r["peak_gbs"] or "-")' "$1"
}

# profile NAME CMD...: run CMD under cdt membound, its verdicts into $tmp/NAME.csv.
profile() {
	name=$1
	shift
	"$CDT" membound -q -o "$tmp/$name.data" "$@" >"$tmp/$name.out" 2>"$tmp/err" ||
		fail "$name: cdt membound: exit $?: $(tail -n 5 "$tmp/err")"
	"$CDT" report -i "$tmp/$name.data" --csv --view membound-verdicts >"$tmp/$name.csv" ||
		fail "$name: report"
}

if command -v stress-ng >/dev/null; then
	for m in fft matrixprod; do
		profile "$m" stress-ng --cpu 1 --cpu-method "$m" -t 2
		set -- $(main_phase "$tmp/$m.csv")
		[ "$1" = not_memory_bound ] || fail "stress-ng $m: '$*', expected not_memory_bound: $(cat "$tmp/$m.csv")"
		echo "stress-ng --cpu-method $m: not memory bound"
	done
else
	echo "stress-ng not installed (Debian: stress-ng): its part skipped"
fi

command -v likwid-bench >/dev/null || { echo "skip: likwid-bench not installed (Debian: likwid)"; exit 77; }
# The calibration (a quick one, made by the first run) says the sizes and the width.
profile first likwid-bench -t copy -w S0:64kB:1 -i 10
"$CDT" report -i "$tmp/first.data" --csv --view summary >"$tmp/summary" || fail "summary"
l2=$(kv l2_bytes)
l3=$(kv l3_bytes)
[ "${l2:-0}" -gt 0 ] && [ "${l3:-0}" -gt "$l2" ] || fail "calibrated sizes: L2 '$l2' L3 '$l3'"
case $(sed -n 's/^isa //p' "$XDG_CACHE_HOME"/cdt/membound-*.txt) in
avx512) kern=copy_avx512 ;;
avx2) kern=copy_avx ;;
*) kern=copy_sse ;;
esac
likwid-bench -t $kern -w S0:64kB:1 -i 10 >"$tmp/lk" 2>&1 ||
	{ echo "skip: likwid-bench cannot run $kern here: $(tail -n 2 "$tmp/lk" | tr '\n' ' ')"; exit 77; }
big=$((l3 * 4))
[ "$big" -ge $((64 << 20)) ] || big=$((64 << 20))
# Iterations for about 1.5 s at the calibrated DRAM read rate of one core
# (a copy moves the working set once an iteration): -s would first time
# a pre-run of its own, whose time the phase holds but likwid's figure not.
rd=$(awk '$1 == "level" && $2 == 3 { print $8 }' "$XDG_CACHE_HOME"/cdt/membound-*.txt)
it=$(awk -v r="${rd:-0}" -v b="$big" 'BEGIN { i = int(1.5 * r / b); print i < 20 ? 20 : i }')
echo "sizes: L2 $l2, L3 $l3; $kern over $((big >> 10)) kB and $((l2 / 2048)) kB"

for n in 1 2; do
	r=0
	while [ $r -lt 2 ]; do
		r=$((r + 1))
		# n threads, n times the iterations: about as long (a phase's
		# first and last intervals are partly idle, its figure per
		# wall time: a short phase reads low).
		profile "dram$n" likwid-bench -t $kern -w "S0:$((big >> 10))kB:$n" -i $((it * n))
		lk=$(awk '/^MByte\/s:/ { print $2 }' "$tmp/dram$n.out")
		[ -n "$lk" ] || fail "likwid-bench printed no MByte/s: $(cat "$tmp/dram$n.out")"
		set -- $(main_phase "$tmp/dram$n.csv")
		if dram_short "$kern, $n thread(s), run $r, likwid" "$(awk -v l="$lk" 'BEGIN { print l / 1000 }')" "$4" 4; then
			r=$((r - 1))
			continue
		fi
		[ "$1 $2" = "bandwidth DRAM" ] ||
			fail "$kern, $n threads, run $r: '$1 $2', expected bandwidth DRAM: $(cat "$tmp/dram$n.csv")"
		awk -v c="$3" -v l="$lk" 'BEGIN { r = c * 1000 / l; printf "cdt/likwid %.2f\n", r; exit !(r >= 0.75 && r <= 1.25) }' \
			>"$tmp/ratio" || fail "$kern, $n threads, run $r: cdt achieved $3 GB/s, likwid $lk MB/s: $(cat "$tmp/ratio")"
		echo "$kern over $((big >> 10)) kB, $n thread(s), run $r: bandwidth bound at DRAM, cdt $3 GB/s, likwid $lk MB/s, $(cat "$tmp/ratio")"
	done
done

profile l2 likwid-bench -t $kern -w "S0:$((l2 / 2048))kB:1" -s 1.5
set -- $(main_phase "$tmp/l2.csv")
[ "$2" != DRAM ] || fail "$kern over half of L2: '$*', at DRAM: $(cat "$tmp/l2.csv")"
echo "$kern over half of L2: $1 ${2#-}"
