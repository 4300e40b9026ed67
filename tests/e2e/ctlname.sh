#!/bin/sh
# Thread names and argv hold terminal controls (ESC sequences, newline,
# carriage return, DEL): the text report shows them as \xNN, so no control
# byte reaches the terminal and no row is split; CSV keeps the bytes
# (RFC 4180 quotes the field).
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads ctlname
esc=$(printf '\033')

"$CDT" record -o "$tmp/c.data" "$W/ctlname" "$(printf 'a\033[2Jb')" 2>"$tmp/err" ||
	fail "exit $?: $(cat "$tmp/err")"
for v in summary threads functions objects; do
	"$CDT" report -i "$tmp/c.data" --view $v --width full >"$tmp/$v.txt" || fail "$v: report failed"
	! grep -q "$esc" "$tmp/$v.txt" || fail "$v: a raw ESC reaches the terminal: $(cat -v "$tmp/$v.txt")"
	! grep -q "$(printf '\r')" "$tmp/$v.txt" || fail "$v: a raw CR: $(cat -v "$tmp/$v.txt")"
done
grep -qF 'a\x1b[2Jb' "$tmp/summary.txt" || fail "argv not shown escaped: $(cat -v "$tmp/summary.txt")"
grep -qF 'm\x1b[7mX\x0aY' "$tmp/threads.txt" || fail "main's name not escaped: $(cat -v "$tmp/threads.txt")"
grep -qF 'w\x0dZ\x7f' "$tmp/threads.txt" || fail "the worker's name not escaped: $(cat -v "$tmp/threads.txt")"
# One title, one header and a row per thread: no row split by the newline.
[ "$(wc -l <"$tmp/threads.txt")" -eq 4 ] || fail "threads view: expected 4 lines: $(cat -v "$tmp/threads.txt")"
"$CDT" report -i "$tmp/c.data" --view threads --csv >"$tmp/threads.csv" || fail "CSV failed"
grep -q "$esc" "$tmp/threads.csv" || fail "CSV must keep the name's bytes: $(cat -v "$tmp/threads.csv")"
