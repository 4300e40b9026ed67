#!/bin/sh
# cdt's descriptors never take the program's low numbers, also once the
# program has lowered RLIMIT_NOFILE below them (fdlimit: 8 threads, the
# limit dropped to 16, then /dev/null opened until EMFILE):
#   - before: the threads run, then the limit drops: what they would open
#     later (fvar's and comm's debug-register events, the perf clock the
#     budget may move a thread to) must be opened before, or not at all;
#   - after: the limit drops, then the threads start: their events cannot
#     go high, so they sample on the POSIX clock, without watchpoints.
# Under every tool the program must open as many files as without cdt
# (before: record 4, comm and fvar 0 of 12), and cdt says once what it
# gave up.  A full range above cdt's descriptors under a normal limit is
# not that case: there events still open, in the upper half below.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads fdlimit

for mode in before after; do
	want=$(timeout 60 "$W/fdlimit" $mode) || fail "$mode: plain run failed"
	for tool in "record" "record --clock perf" "comm" "fvar"; do
		got=$(timeout 120 "$CDT" $tool -o "$tmp/f.data" "$W/fdlimit" $mode 2>"$tmp/err") ||
			fail "$mode, cdt $tool: exit $?: $(cat "$tmp/err")"
		[ "$got" = "$want" ] ||
			fail "$mode, cdt $tool: the program $got files, $want without cdt: cdt's descriptors took its low numbers"
		n=$(grep -c "descriptor limit (RLIMIT_NOFILE) is below cdt's descriptors" "$tmp/err")
		[ "$n" -eq 1 ] || fail "$mode, cdt $tool: expected one line saying what cdt gave up, got $n: $(cat "$tmp/err")"
	done
done
# Under the usual limit of 1024, 22 numbers are free above cdt's two:
# 40 live threads on the perf clock overflow them into the upper half
# below, never refused and never said to be out of descriptors.
if (ulimit -n 1024) 2>/dev/null; then
	need_workloads threads
	(ulimit -n 1024 && timeout 120 "$CDT" record --clock perf -o "$tmp/t.data" "$W/threads" 40 0.2) \
		>/dev/null 2>"$tmp/err" || fail "40 threads under a limit of 1024: exit $?: $(cat "$tmp/err")"
	grep -E "descriptor limit|out of file descriptors|cannot open a thread" "$tmp/err" &&
		fail "40 threads under a limit of 1024: events refused: $(cat "$tmp/err")"
else
	echo "skip: cannot set a limit of 1024 descriptors here: the 40-thread case is left out"
fi
exit 0
