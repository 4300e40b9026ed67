#!/bin/sh
# What each sample clock costs a program, apart from cdt (make bench runs
# it; cdt.1 SAMPLE CLOCKS quotes it).  The workload tests/workloads/
# handoff.c runs each thread under a clock with a handler that only
# counts:
#
#   none    no clock
#   perf    a task-clock perf event with sigtrap (an hrtimer per thread,
#           cancelled and started at every switch)
#   posix   a CPU-time POSIX timer per thread (checked at the tick)
#
# on two shapes: "handoff", 8 threads passing work on every 10 us (a
# switch per item, as in a pipeline), and "compute", 2 threads on 2 CPUs
# with 5 ms between handoffs (hardly a switch).  For each clock and rate
# (HZ asked for; the POSIX clock gives at most one sample a tick), over
# BENCH_ROUNDS rounds (default 5; the clocks of a round run in turn, the
# order rotating), medians of:
#
#   wall x   wall time against no clock
#   cpu x    CPU time against no clock
#   smp/s    samples per second of CPU time
#   us/smp   extra CPU per sample: (CPU - CPU with no clock) / samples,
#            the switches' cost included
#   switches context switches of the run
#
# Environment: BUILD (default build), BENCH_ROUNDS.
. "$(dirname "$0")/lib.sh"

rounds=${BENCH_ROUNDS:-5}
need_count BENCH_ROUNDS "$rounds"
H=$BUILD/workloads/handoff
[ -x "$H" ] || die "no workload at $H (make workloads)"

# shape NAME THREADS ITEMS CHUNK_US
shape() {
	name=$1 threads=$2 items=$3 chunk=$4
	configs="none:1 perf:250 posix:250 perf:1000 posix:1000 perf:2000 posix:2000"
	: >"$tmp/$name"
	r=1
	while [ "$r" -le "$rounds" ]; do
		# Rotate the order so no clock always runs first.
		set -- $configs
		k=1
		while [ "$k" -lt "$r" ]; do
			first=$1
			shift
			set -- "$@" "$first"
			k=$((k + 1))
		done
		for c in "$@"; do
			"$H" "${c%%:*}" "${c#*:}" "$threads" "$items" "$chunk" |
				sed "s/^/$c /" >>"$tmp/$name" || die "handoff $c failed"
		done
		r=$((r + 1))
	done
	printf '%s: %s threads, a handoff every %s us\n' "$name" "$threads" "$chunk"
	awk "$MEDIAN_AWK"'
	{
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		c = $1
		if (!(c in n)) order[++nc] = c
		k = ++n[c]
		w[c, k] = v["wall_s"]; u[c, k] = v["cpu_s"]; s[c, k] = v["signals"]; x[c, k] = v["switches"]
	}
	function med(arr, c,   i, a) { for (i = 1; i <= n[c]; i++) a[i] = arr[c, i]; return median(a, n[c]) }
	END {
		w0 = med(w, "none:1"); u0 = med(u, "none:1")
		printf "  %-11s %7s %7s %7s %7s %9s\n", "clock:Hz", "wall x", "cpu x", "smp/s", "us/smp", "switches"
		for (j = 1; j <= nc; j++) {
			c = order[j]
			for (i = 1; i <= n[c]; i++) {
				rw[i] = w[c, i] / w0; ru[i] = u[c, i] / u0
				rs[i] = u[c, i] > 0 ? s[c, i] / u[c, i] : 0
				rc[i] = s[c, i] > 0 ? (u[c, i] - u0) * 1e6 / s[c, i] : 0
			}
			printf "  %-11s %7.3f %7.3f %7.0f %7.1f %9.0f\n", c, median(rw, n[c]),
				median(ru, n[c]), median(rs, n[c]), median(rc, n[c]), med(x, c)
		}
	}' "$tmp/$name"
}

echo "sample clocks, $rounds rounds, medians"
shape handoff 8 40000 10
shape compute 2 400 5000
