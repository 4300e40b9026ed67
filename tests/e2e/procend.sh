#!/bin/sh
# How each process ended (procend): exit(3), _exit(4), a failed execv
# followed by work and SIGKILL, and a daemon grandchild that outlives the
# program.  The processes view and one line each on stderr must say so.
# A failed exec does not end the process's record: the badexec child has
# no recorded exit, and samples of the work it did after the exec failed
# (0.4 s of CPU: ~100 at one sample a 4 ms tick, the POSIX clock's
# slowest under the overhead budget; 20 is far below).
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads procend

"$CDT" record -o "$tmp/p.data" "$W/procend" >"$tmp/pids" 2>"$tmp/err" ||
	fail "exit $?: $(cat "$tmp/err")"
pid() { awk -v n="$1" '$1 == n { print $2 }' "$tmp/pids"; }
target=$(pid daemon)
[ -n "$target" ] || fail "no daemon pid: $(cat "$tmp/pids")"
"$CDT" report -i "$tmp/p.data" --csv --view processes >"$tmp/procs.csv" || fail "processes view failed"
cols "$tmp/procs.csv" pid ended status >"$tmp/procs" || fail "bad CSV: $(cat "$tmp/procs.csv")"
row() { # row NAME ENDED STATUS
	p=$(pid "$1")
	awk -F'\t' -v p="$p" -v e="$2" -v s="$3" '$1 == p && $2 == e && $3 == s { f = 1 }
		END { exit !f }' "$tmp/procs" ||
		fail "$1 (pid $p): expected '$2' '$3'; processes: $(cat "$tmp/procs.csv")"
}
row exit exit 3
row _exit _exit 4
row badexec "no exit" ""
row daemon running ""
grep -q "process $(pid exit) .* exited with status 3$" "$tmp/err" || fail "no line for exit(3): $(cat "$tmp/err")"
grep -q "process $(pid _exit) .* exited with status 4$" "$tmp/err" || fail "no line for _exit(4): $(cat "$tmp/err")"
grep -q "process $(pid badexec) .* ended with no exit" "$tmp/err" || fail "no line for the killed child: $(cat "$tmp/err")"
grep -q "process $(pid daemon) .* still runs after the program ended" "$tmp/err" ||
	fail "no line for the daemon: $(cat "$tmp/err")"

# Sample records, not the thread's stats: a process killed within 0.1 s
# may never send a stats snapshot (every 0.1 s).
"$CDT" report -i "$tmp/p.data" --csv --top 0 --view samples >"$tmp/samples.csv" || fail "samples view failed"
n=$(cols "$tmp/samples.csv" pid | awk -v p="$(pid badexec)" '$1 == p { n++ } END { print n + 0 }')
[ "$n" -ge 20 ] || fail "badexec: $n samples after its failed exec, expected ~100"
