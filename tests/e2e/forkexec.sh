#!/bin/sh
# Fork and exec in the target: forkexec works (~0.3 s), forks a child that
# works (~0.3 s) and then execs `threads 2`.  The profile must hold two
# processes, samples from both pids, the parent's and the child's
# pre-exec samples in forkexec.c, the exec'd image's samples in threads.c,
# and every thread of the exec'd program under the child's pid.
set -u

: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
W=$BUILD/workloads
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

fail() {
	echo "forkexec.sh: $*" >&2
	exit 1
}

kv() {
	awk -F, -v k="$1" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$tmp/summary"
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

for w in forkexec threads; do
	[ -x "$W/$w" ] || fail "expected the workload $W/$w (make workloads)"
done

FORKEXEC_PIDFILE=$tmp/pids THREADS_TIDFILE=$tmp/tids \
	"$CDT" record -o "$tmp/f.data" "$W/forkexec" "$W/threads" 2 0.3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "expected exit 0, got $rc; stderr: $(cat "$tmp/err")"
parent=$(awk '$1 == "parent" { print $2 }' "$tmp/pids")
child=$(awk '$1 == "child" { print $2 }' "$tmp/pids")
[ -n "$parent" ] && [ -n "$child" ] || fail "the workload wrote no pids: $(cat "$tmp/pids")"

"$CDT" report -i "$tmp/f.data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
	fail "summary not readable: $(cat "$tmp/rerr")"
[ "$(kv processes)" -ge 2 ] 2>/dev/null || fail "summary processes: expected >= 2, found '$(kv processes)'"
if grep -q '^agent_error,' "$tmp/summary"; then
	fail "agent errors: $(grep '^agent_error,' "$tmp/summary")"
fi

"$CDT" report -i "$tmp/f.data" --csv --top 0 --view threads >"$tmp/threads.csv" 2>"$tmp/rerr" ||
	fail "threads view failed: $(cat "$tmp/rerr")"
cols "$tmp/threads.csv" pid tid mem_samples >"$tmp/trows" || fail "bad threads CSV"
"$CDT" report -i "$tmp/f.data" --csv --top 0 --view samples >"$tmp/samples.csv" 2>"$tmp/rerr" ||
	fail "samples view failed: $(cat "$tmp/rerr")"
cols "$tmp/samples.csv" pid file >"$tmp/srows" || fail "bad samples CSV"

npids=$(cut -f1 "$tmp/srows" | sort -u | wc -l)
[ "$npids" -ge 2 ] || fail "samples from $npids pid(s), expected >= 2"

# count PID FILE-SUFFIX: samples of that pid whose source file ends so.
count() {
	awk -F'\t' -v p="$1" -v f="$2" '$1 == p && substr($2, length($2) - length(f) + 1) == f { n++ }
		END { print n + 0 }' "$tmp/srows"
}
# ~1200 samples are expected for each; 100 is generous.
n=$(count "$parent" forkexec.c)
[ "$n" -ge 100 ] || fail "parent $parent: expected >= 100 samples in forkexec.c, found $n"
n=$(count "$child" forkexec.c)
[ "$n" -ge 100 ] || fail "fork child $child before exec: expected >= 100 samples in forkexec.c, found $n"
n=$(count "$child" threads.c)
[ "$n" -ge 100 ] || fail "exec'd program (pid $child): expected >= 100 samples in threads.c, found $n"
n=$(count "$parent" threads.c)
[ "$n" -eq 0 ] || fail "parent $parent never runs threads.c, yet $n samples say it did"

# Every thread of the exec'd program, under the child's pid, with samples.
[ "$(wc -l <"$tmp/tids")" -eq 3 ] || fail "the exec'd program reported $(wc -l <"$tmp/tids") tids, expected 3"
while read -r idx tid; do
	awk -F'\t' -v p="$child" -v t="$tid" '$1 == p && $2 == t && $3 > 0 { f = 1 } END { exit !f }' \
		"$tmp/trows" ||
		fail "exec'd thread $idx (tid $tid): expected a row with pid $child and memory samples; threads view: $(cat "$tmp/threads.csv")"
done <"$tmp/tids"
exit 0
