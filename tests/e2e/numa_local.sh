#!/bin/sh
# cdt numa on this one-node machine, against numa_jacobi's designed
# placement (tests/workloads/numa_jacobi.c):
#   - every sampled access is local (one node), and said so;
#   - --init main: both grids first touched by thread 0 alone, in
#     init_rows, and named by their allocation lines (ALLOC_GRID,
#     ALLOC_NEXT in the source); --init parallel: by the 4 workers, each
#     a quarter of the pages;
#   - --predict 2:compact:2 on the main variant: workers 2 and 3 (node 1
#     in the model) would be remote, 1 and 4 local; on the parallel one
#     nobody would;
#   - --bind compact and scatter pin each thread to one CPU, thread k to
#     CPU k mod 2 here, as the workload sees with sched_getcpu; none
#     leaves it free;
#   - --count samples nothing and still finds the grids' first touch;
#   - -I sets the timeline's interval; --no-faults turns first touch off;
#     --uncore says in one line that there is no link PMU and goes on;
#     the views come as CSV and JSON; the program's exit status passes
#     through; bad options are refused before the program runs.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads numa_jacobi
src=$(dirname "$0")/../workloads/numa_jacobi.c
line_grid=$(grep -n 'ALLOC_GRID' "$src" | cut -d: -f1)
line_next=$(grep -n 'ALLOC_NEXT' "$src" | cut -d: -f1)

numa() {
	name=$1
	shift
	"$CDT" numa -o "$tmp/$name.data" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
		fail "$name: cdt numa: exit $?: $(cat "$tmp/$name.err")"
	for view in numa-threads numa-objects summary; do
		"$CDT" report -i "$tmp/$name.data" --view $view --format csv >"$tmp/$name.$view" ||
			fail "$name: report --view $view"
	done
}

# The grids of a run: object, first_touch_thread, first_touch_threads,
# first_touch_pct, first_touch_at, remote.
grids() {
	python3 - "$tmp/$1.numa-objects" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["object"].startswith("heap@numa_jacobi.c:"):
        print("\t".join([r["object"], r["first_touch_thread"], r["first_touch_threads"],
                         r["first_touch_pct"], r["first_touch_at"], r["remote"]]))
PY
}

# -F 1000, not numa's 250 Hz: the checks below want some 100 samples per
# worker in a second.
numa main -F 1000 "$W/numa_jacobi" -t 4 -s 1 --init main --report
grep -q '^cdt numa: .*soft sampling\|^cdt numa: .*pmu' "$tmp/main.err" ||
	fail "main: no source banner: $(head -n 3 "$tmp/main.err")"
grep -q 'one NUMA node: every access is local' "$tmp/main.err" ||
	fail "main: the report does not say the machine has one node: $(cat "$tmp/main.err")"
awk -F, '$1 == "remote_pct" && $2 != "0.0" { exit 1 } $1 == "local_pct" && $2 != "100.0" { exit 1 }' \
	"$tmp/main.summary" || fail "main: not all local: $(grep _pct "$tmp/main.summary")"
grids main >"$tmp/main.grids"
[ "$(wc -l <"$tmp/main.grids")" -eq 2 ] || fail "main: grids: $(cat "$tmp/main.grids")"
grep -q "^heap@numa_jacobi.c:$line_grid (main)	0	1	100	init_rows (numa_jacobi.c:[0-9]*)	0$" \
	"$tmp/main.grids" || fail "main: grid (line $line_grid): $(cat "$tmp/main.grids")"
grep -q "^heap@numa_jacobi.c:$line_next (main)	0	1	100	init_rows (numa_jacobi.c:[0-9]*)	0$" \
	"$tmp/main.grids" || fail "main: next (line $line_next): $(cat "$tmp/main.grids")"

numa par -F 1000 "$W/numa_jacobi" -t 4 -s 1 --init parallel
grids par >"$tmp/par.grids"
awk -F'\t' '{ if ($2 < 1 || $2 > 4 || $3 != 4 || $4 < 20 || $4 > 30 || $5 !~ /^init_rows /) {
	print "par: " $0; bad = 1 } } END { exit bad || NR != 2 }' "$tmp/par.grids" ||
	fail "parallel: grids not first touched by the 4 workers: $(cat "$tmp/par.grids")"

# The model of a two-node machine, from this one.
for v in main parallel; do
	numa "pred-$v" -F 1000 --predict 2:compact:2 "$W/numa_jacobi" -t 4 -s 1 --init $v
	cols "$tmp/pred-$v.numa-threads" thread samples predicted_remote_pct >"$tmp/pred-$v.rows" ||
		fail "predict: columns"
	awk -F'\t' -v v=$v '
	$1 >= 1 && $2 < 50 { print v ": thread " $1 " has " $2 " samples"; bad = 1 }
	v == "main" && ($1 == 2 || $1 == 3) && $3 < 90 { print v ": thread " $1 " " $3; bad = 1 }
	v == "main" && ($1 == 1 || $1 == 4) && $3 > 10 { print v ": thread " $1 " " $3; bad = 1 }
	v == "parallel" && $1 >= 1 && $3 > 10 { print v ": thread " $1 " " $3; bad = 1 }
	END { exit bad }' "$tmp/pred-$v.rows" || fail "--predict 2:compact:2 ($v): $(cat "$tmp/pred-$v.rows")"
	grep -q 'Prediction (a model, not a measurement)' "$tmp/pred-$v.err" ||
		fail "predict: the findings do not say it is a model"
done

# --bind: thread k on CPU k mod (CPUs), alone; none: free.
ncpu=$(getconf _NPROCESSORS_ONLN)
for b in compact scatter none; do
	numa "bind-$b" --bind $b "$W/numa_jacobi" -t 3 -s 0.3 --report
	n=$(grep -c '^thread [0-9]* cpu' "$tmp/bind-$b.err")
	[ "$n" -eq 4 ] || fail "--bind $b: $n threads reported: $(cat "$tmp/bind-$b.err")"
	awk -v b=$b -v ncpu="$ncpu" '$1 == "thread" && $3 == "cpu" {
		k = $2; cpu = $4; allowed = $6
		if (b != "none" && (allowed != 1 || cpu != k % ncpu)) { print; bad = 1 }
		if (b == "none" && allowed != ncpu) { print; bad = 1 } }
	END { exit bad }' "$tmp/bind-$b.err" || fail "--bind $b: $(grep '^thread' "$tmp/bind-$b.err")"
done

# -I, --no-faults, --uncore, JSON.
numa iv -I 200 --no-faults --uncore "$W/numa_jacobi" -t 2 -s 1
"$CDT" report -i "$tmp/iv.data" --view numa-timeline --format csv >"$tmp/iv.tl" || fail "timeline"
awk -F, 'NR > 1 && $2 % 200 { bad = 1 } NR > 1 { n++ } END { exit bad || n < 6 }' "$tmp/iv.tl" ||
	fail "-I 200: timeline: $(head -n 5 "$tmp/iv.tl")"
grep -q '^first_touch,off (--no-faults)' "$tmp/iv.summary" || fail "--no-faults: $(grep first_touch "$tmp/iv.summary")"
[ "$(grep -c 'cdt numa: --uncore: ' "$tmp/iv.err")" -eq 1 ] || fail "--uncore: $(cat "$tmp/iv.err")"
for v in numa-threads numa-matrix numa-nodes numa-objects numa-timeline findings; do
	"$CDT" report -i "$tmp/main.data" --view $v --format json >"$tmp/j" || fail "json $v"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j" || fail "json $v: not JSON"
done
"$CDT" report -i "$tmp/main.data" --view numa-matrix >"$tmp/heat" || fail "text matrix"
grep -q 'Thread x memory node' "$tmp/heat" || fail "text matrix: $(cat "$tmp/heat")"

# Counting mode: no samples, first touch still watched.
numa count --count "$W/numa_jacobi" -t 2 -s 0.3
grep -q '^source,none' "$tmp/count.summary" || fail "--count: source: $(grep '^source' "$tmp/count.summary")"
grep -q '^memory_samples,0$' "$tmp/count.summary" || fail "--count: sampled"
grep -q 'Counting mode (--count)' "$tmp/count.err" || fail "--count: the findings do not say so"
grids count >"$tmp/count.grids"
awk -F'\t' '$2 != 0 || $3 != 1 { bad = 1 } END { exit bad || NR != 2 }' "$tmp/count.grids" ||
	fail "--count: first touch: $(cat "$tmp/count.grids")"

# The program's status; refusals before the run.
"$CDT" numa -q -o "$tmp/x.data" "$W/numa_jacobi" -t 0 2>/dev/null
[ $? -eq 2 ] || fail "the workload's exit status 2 did not pass through"
for bad in "--bind nowhere" "--predict 1" "--predict 2:sideways" "-I 0"; do
	# shellcheck disable=SC2086
	"$CDT" numa -o "$tmp/bad.data" $bad "$W/numa_jacobi" -s 0.1 >"$tmp/bad.out" 2>&1
	rc=$?
	[ $rc -eq 125 ] || fail "$bad: exit $rc, expected 125"
	grep -q 'numa_jacobi:' "$tmp/bad.out" && fail "$bad: the program ran"
	[ -s "$tmp/bad.out" ] || fail "$bad: no message"
done
exit 0
