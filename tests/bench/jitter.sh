#!/bin/sh
# What the sample clocks' jitter (lib/agent/clock.c) adds to each sample:
# the system calls it makes at every one, in ns of CPU time per call, the
# median of BENCH_ROUNDS runs (default 5) of tests/workloads/clock_rearm
# (make bench runs it; cdt.1 SAMPLE CLOCKS quotes it).
. "$(dirname "$0")/lib.sh"

rounds=${BENCH_ROUNDS:-5}
need_count BENCH_ROUNDS "$rounds"
R=$BUILD/workloads/clock_rearm
[ -x "$R" ] || die "no workload at $R (make workloads)"
r=1
while [ "$r" -le "$rounds" ]; do
	"$R" >>"$tmp/out" || die "clock_rearm failed"
	r=$((r + 1))
done
echo "the jitter's system calls, ns of CPU time a sample (median of $rounds):"
for c in perf posix; do
	printf '  %-6s %s\n' "$c" "$(awk -v c="$c" '$1 == c && $2 ~ /^[0-9]/ { print $2 }' "$tmp/out" |
		sort -n | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : "unavailable" }')"
done
