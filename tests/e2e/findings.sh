#!/bin/sh
# What a finding claims, on designed sharing:
#   - evidence: a line that carries all the communication but on 5 events
#     (genprofile) draws no finding, only a line saying why; on 200 it does;
#   - the verdict from each thread's bytes over the run: comm_falseshare's
#     fs_line (each thread its own 8 bytes) is false sharing with padding
#     advice and a confidence; its ts_word (all threads the same 8 bytes)
#     is sharing of the same data, where padding cannot help;
#   - "and N more threads" counts threads: comm_volume's 16 threads all
#     store to one word; a line keeps 8 of them by name, so N is at most 8
#     (it counted events once: hundreds).
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads comm_falseshare comm_volume
gen=$BUILD/bench/genprofile
[ -x "$gen" ] || fail "no $gen: build it with make check"

findings() { # findings DATA: the findings, one per line
	"$CDT" report -i "$1" --view findings --csv >"$tmp/f.csv" || fail "report of $1 failed"
	tail -n +2 "$tmp/f.csv"
}

"$gen" -o "$tmp/few.data" -n 5 -t 2 -l 1 || fail "genprofile failed"
findings "$tmp/few.data" >"$tmp/few"
! grep -q 'sharing' "$tmp/few" || fail "5 events drew a finding: $(cat "$tmp/few")"
grep -q 'too little evidence for a finding' "$tmp/few" || fail "no word on the thin line: $(cat "$tmp/few")"
"$gen" -o "$tmp/many.data" -n 200 -t 2 -l 1 || fail "genprofile failed"
findings "$tmp/many.data" | grep -q 'sharing of the same data on' ||
	fail "200 events drew no finding: $(findings "$tmp/many.data")"

"$CDT" comm -q -o "$tmp/fs.data" "$W/comm_falseshare" -n 4 -t 0.5 >/dev/null 2>"$tmp/err" ||
	fail "comm_falseshare: exit $?: $(cat "$tmp/err")"
findings "$tmp/fs.data" >"$tmp/fs"
grep -q '^"\{0,1\}false sharing (\(high\|medium\|low\) confidence: .*) on fs_line .*pad or align' "$tmp/fs" ||
	fail "fs_line: expected false sharing with a confidence and padding advice: $(cat "$tmp/fs")"
grep 'on ts_word' "$tmp/fs" | grep -q '^"\{0,1\}sharing of the same data on ts_word.*padding cannot help' ||
	fail "ts_word: expected sharing of the same data, no padding: $(cat "$tmp/fs")"
! grep 'on ts_word' "$tmp/fs" | grep -q 'pad or align' || fail "ts_word: padding advised: $(cat "$tmp/fs")"

"$CDT" comm -q -o "$tmp/v.data" "$W/comm_volume" -n 16 -s 0.5 -t 0.5 >/dev/null 2>"$tmp/err" ||
	fail "comm_volume: exit $?: $(cat "$tmp/err")"
findings "$tmp/v.data" >"$tmp/v"
n=$(sed -n 's/.* and \([0-9][0-9]*\) more threads\{0,1\}[;,].*/\1/p' "$tmp/v" | head -n 1)
[ -n "$n" ] && [ "$n" -ge 1 ] && [ "$n" -le 8 ] ||
	fail "16 threads on shared_word: expected 'and N more threads', 1 <= N <= 8: $(cat "$tmp/v")"
grep 'on shared_word' "$tmp/v" | grep -q 'sharing of the same data' ||
	fail "shared_word: expected sharing of the same data: $(cat "$tmp/v")"
