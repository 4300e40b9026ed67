#!/bin/sh
# Samples reach the right threads: the workload `threads` writes the tid of
# its main thread and of each worker; the threads view must list exactly
# those tids in one process, thread 0 must be the main thread, and every
# thread (each does ~0.3 s of CPU, ~1200 samples at 4 kHz) must have
# samples, memory samples among them.  The samples view must agree with
# the per-thread counts.
set -u

: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
W=$BUILD/workloads
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

fail() {
	echo "threads.sh: $*" >&2
	exit 1
}

# cols FILE COL...: the named columns of a CSV file, tab-separated.
cols() {
	f=$1
	shift
	awk -F, -v want="$*" '
	/"/ { print "cols: quoted CSV field on line " NR ": " $0 > "/dev/stderr"; exit 2 }
	NR == 1 {
		n = split(want, w, " ")
		for (i = 1; i <= NF; i++) idx[$i] = i
		for (k = 1; k <= n; k++)
			if (!(w[k] in idx)) { print "cols: no column " w[k] " in: " $0 > "/dev/stderr"; exit 2 }
		next
	}
	{ s = ""; for (k = 1; k <= n; k++) s = s (k > 1 ? "\t" : "") $(idx[w[k]]); print s }' "$f"
}

[ -x "$W/threads" ] || fail "expected the workload $W/threads (make workloads)"

NT=4
THREADS_TIDFILE=$tmp/tids "$CDT" record -o "$tmp/t.data" "$W/threads" $NT 0.3 \
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
exit 0
