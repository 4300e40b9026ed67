#!/bin/sh
# Processes made without fork, and a process whose end cdt cannot see:
#   - cloneproc clone: 6 children of glibc's clone() without CLONE_THREAD
#     (no pthread_atfork handler runs for them) return 10..15 from their
#     function; each must have a row (ended _exit, its status) and a line
#     on stderr.  Before, they were missing from the profile.
#   - cloneproc closexec: a fork child closes every fd from 3 up, then
#     execs /bin/true, which exits 0 but cannot take the agent: its row
#     says "unseen" and its line says it ran unprofiled, never that it
#     was killed ("ended with no exit");
#   - cloneproc clonevm: a CLONE_VM | CLONE_VFORK child (posix_spawn's
#     kind) is passed through untouched and the image it execs profiled.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads cloneproc

timeout 120 "$CDT" record -o "$tmp/c.data" "$W/cloneproc" clone >"$tmp/pids" 2>"$tmp/err" ||
	fail "clone: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/c.data" --csv --view processes >"$tmp/procs.csv" || fail "processes view failed"
cols "$tmp/procs.csv" pid ended status >"$tmp/procs" || fail "bad CSV: $(cat "$tmp/procs.csv")"
for i in 0 1 2 3 4 5; do
	p=$(awk -v i="$i" '$1 == "child" && $2 == i { print $3 }' "$tmp/pids")
	[ -n "$p" ] || fail "clone: no pid for child $i: $(cat "$tmp/pids")"
	awk -F'\t' -v p="$p" -v s=$((10 + i)) '$1 == p && $2 == "_exit" && $3 == s { f = 1 }
		END { exit !f }' "$tmp/procs" ||
		fail "clone: child $i (pid $p): expected '_exit' $((10 + i)); processes: $(cat "$tmp/procs.csv")"
	grep -q "process $p .* exited with status $((10 + i))$" "$tmp/err" ||
		fail "clone: no line for child $i (pid $p): $(cat "$tmp/err")"
done

timeout 120 "$CDT" record -o "$tmp/x.data" "$W/cloneproc" closexec /bin/true >"$tmp/pids" 2>"$tmp/err" ||
	fail "closexec: exit $?: $(cat "$tmp/err")"
p=$(awk '$1 == "child" { print $3 }' "$tmp/pids")
grep -q "ended with no exit" "$tmp/err" && fail "closexec: a clean exit reported as a kill: $(cat "$tmp/err")"
grep -q "process $p (/bin/true) exec'd with cdt's descriptors closed and ran unprofiled.*not seen" "$tmp/err" ||
	fail "closexec: no honest line for pid $p: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/x.data" --csv --view processes >"$tmp/procs.csv" || fail "processes view failed"
cols "$tmp/procs.csv" pid ended >"$tmp/procs" || fail "bad CSV: $(cat "$tmp/procs.csv")"
awk -F'\t' -v p="$p" '$1 == p && $2 == "unseen" { f = 1 } END { exit !f }' "$tmp/procs" ||
	fail "closexec: pid $p is not 'unseen': $(cat "$tmp/procs.csv")"
# A child that shares the memory (CLONE_VM | CLONE_VFORK) is left as it
# is until it execs; the image it execs is profiled and its status kept.
timeout 120 "$CDT" record -o "$tmp/v.data" "$W/cloneproc" clonevm /bin/sh -c 'exit 7' >"$tmp/pids" 2>"$tmp/err"
rc=$?
[ $rc -eq 7 ] || fail "clonevm: expected the program's 7, got $rc: $(cat "$tmp/err")"
p=$(awk '$1 == "child" { print $3 }' "$tmp/pids")
grep -q "process $p (.*) exited with status 7$" "$tmp/err" ||
	fail "clonevm: no line for pid $p: $(cat "$tmp/err")"
exit 0
