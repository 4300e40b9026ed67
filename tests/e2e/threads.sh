#!/bin/sh
# Samples reach the right threads: the workload `threads` writes the tid of
# its main thread and of each worker; the threads view must list exactly
# those tids in one process, thread 0 must be the main thread, and every
# thread (each does ~0.3 s of CPU, ~300 samples at -F 1000) must have
# samples, memory samples among them.  The samples view must agree with
# the per-thread counts.  Threads are numbered in creation order, also
# when they start running in another (threads --reverse).
set -u

. "$(dirname "$0")/lib/common.sh"

need_workloads threads

NT=4
# At a fixed rate (-F): what is tested is where samples go, and a rate
# the overhead budget sets (cdt.1) depends on the machine.
THREADS_TIDFILE=$tmp/tids "$CDT" record -F 1000 -o "$tmp/t.data" "$W/threads" $NT 0.3 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "cdt record threads $NT: expected exit 0, got $rc; stderr: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/tids")" -eq $((NT + 1)) ] ||
	fail "the workload wrote $(wc -l <"$tmp/tids") tids, expected $((NT + 1))"

"$CDT" report -i "$tmp/t.data" --csv --view threads >"$tmp/threads.csv" 2>"$tmp/err" ||
	fail "cdt report --view threads failed: $(cat "$tmp/err")"
cols "$tmp/threads.csv" thread pid tid samples mem_samples >"$tmp/rows" || fail "bad threads CSV"
"$CDT" report -i "$tmp/t.data" --csv --top 0 --view samples >"$tmp/samples.csv" 2>"$tmp/err" ||
	fail "cdt report --view samples failed: $(cat "$tmp/err")"
cols "$tmp/samples.csv" tid kind >"$tmp/srows" || fail "bad samples CSV"

main=$(awk '$1 == 0 { print $2 }' "$tmp/tids")
[ "$(wc -l <"$tmp/rows")" -eq $((NT + 1)) ] ||
	fail "threads view: expected $((NT + 1)) threads, found $(wc -l <"$tmp/rows"): $(cat "$tmp/threads.csv")"

# Thread 0 is the main thread, whose tid is the process id.
awk -F'\t' -v m="$main" '$1 == 0 && $2 == m && $3 == m { f = 1 } END { exit !f }' "$tmp/rows" ||
	fail "thread 0 must be the main thread (pid = tid = $main); found: $(cat "$tmp/threads.csv")"

# The same set of tids, all in the main thread's process.
awk '{ print $2 }' "$tmp/tids" | sort >"$tmp/want"
awk -F'\t' '{ print $3 }' "$tmp/rows" | sort >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" ||
	fail "tids: expected $(tr '\n' ' ' <"$tmp/want")from the workload, the profile has $(tr '\n' ' ' <"$tmp/got")"
awk -F'\t' -v m="$main" '$2 != m { bad = 1 } END { exit bad }' "$tmp/rows" ||
	fail "every thread must be in process $main: $(cat "$tmp/threads.csv")"

# Every thread sampled; 100 is far below the ~1200 the design gives.
while IFS='	' read -r idx _pid tid samples mem; do
	[ "$samples" -ge 100 ] || fail "thread $idx (tid $tid): expected >= 100 samples, found $samples"
	[ "$mem" -ge 100 ] || fail "thread $idx (tid $tid): expected >= 100 memory samples, found $mem"
	n=$(awk -F'\t' -v t="$tid" '$1 == t && $2 != "none" { n++ } END { print n + 0 }' "$tmp/srows")
	[ "$n" -eq "$mem" ] ||
		fail "thread $idx (tid $tid): threads view says $mem memory samples, samples view has $n"
done <"$tmp/rows"

# No sample from a thread the profile does not know.
awk -F'\t' 'NR == FNR { t[$1] = 1; next } !($1 in t) { print; exit 1 }' "$tmp/got" "$tmp/srows" \
	>"$tmp/stray" || fail "samples from unknown tids: $(cat "$tmp/stray")"

# in_creation_order WHAT: thread i of the threads view ($tmp/rows) is the
# i-th thread the workload created, as its tid file says.
in_creation_order() {
	awk -F'\t' 'NR == FNR { want[$1] = $3; next } want[$1] != $2 { bad = 1 } END { exit bad }' \
		"$tmp/rows" FS=' ' "$tmp/tids" ||
		fail "$1: threads must be numbered in creation order (index tid): $(tr '\n' ' ' <"$tmp/tids"); threads view: $(cat "$tmp/threads.csv")"
}
in_creation_order "threads $NT"

# Workers that start running last-created first (SCHED_FIFO, one CPU).
rm -f "$tmp/tids"
THREADS_TIDFILE=$tmp/tids "$CDT" record -o "$tmp/r.data" "$W/threads" --reverse $NT \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 3 ]; then
	echo "note: real-time scheduling not permitted; the reverse-start check did not run" >&2
	exit 0
fi
[ "$rc" -eq 0 ] || fail "threads --reverse $NT: expected exit 0, got $rc; stderr: $(cat "$tmp/err")"
grep -q 'started in reverse' "$tmp/out" ||
	fail "threads --reverse $NT: the workers did not start in reverse: $(cat "$tmp/out")"
"$CDT" report -i "$tmp/r.data" --csv --view threads >"$tmp/threads.csv" 2>"$tmp/err" ||
	fail "threads --reverse: threads view failed: $(cat "$tmp/err")"
cols "$tmp/threads.csv" thread pid tid >"$tmp/rows" || fail "bad threads CSV"
[ "$(wc -l <"$tmp/rows")" -eq $((NT + 1)) ] ||
	fail "threads --reverse: expected $((NT + 1)) threads: $(cat "$tmp/threads.csv")"
in_creation_order "threads --reverse $NT"
exit 0
