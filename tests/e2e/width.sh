#!/bin/sh
# The text report at a width (piped, as in CI): by default every line of
# every view fits 80 columns, without trailing spaces; --width full cuts
# nothing and leaves no column out, though stdout is not a terminal;
# the summary's values are cut, never left out, where they are long;
# --width 60 leaves columns out and names them.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads comm_falseshare

"$CDT" comm -q -o "$tmp/c.data" "$W/comm_falseshare" -n 4 -t 0.5 2>"$tmp/err" || fail "comm: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/c.data" >"$tmp/80.txt" || fail "report failed"
awk 'length($0) > 80 { print NR ": " $0; bad = 1 } END { exit bad }' "$tmp/80.txt" >"$tmp/long" ||
	fail "lines over 80 columns: $(cat "$tmp/long")"
! grep -n ' $' "$tmp/80.txt" >"$tmp/trail" || fail "trailing spaces: $(cat "$tmp/trail")"
# The summary keeps its values, long ones cut (source_why's is over 100).
grep -q '^source_why  *[a-z].*\.\.\.$' "$tmp/80.txt" && grep -q '^tool  *comm$' "$tmp/80.txt" ||
	fail "the summary lost its values at 80 columns: $(head -n 12 "$tmp/80.txt")"
"$CDT" report -i "$tmp/c.data" --view lines --width full >"$tmp/full.txt" || fail "--width full failed"
! grep -q -e '\.\.\.' -e 'not shown at' "$tmp/full.txt" || fail "--width full cut something: $(cat "$tmp/full.txt")"
head -n 2 "$tmp/full.txt" | grep -q ' code \| code$' || fail "--width full: no code column: $(cat "$tmp/full.txt")"
"$CDT" report -i "$tmp/c.data" --view lines --width 60 >"$tmp/60.txt" || fail "--width 60 failed"
tr '\n' ' ' <"$tmp/60.txt" | grep -q '(not shown at 60 columns: [a-z, ]*code[a-z_, ]*; --width full shows them)' ||
	fail "--width 60: the columns left out are not named: $(cat "$tmp/60.txt")"
awk 'length($0) > 60 { bad = 1 } END { exit bad }' "$tmp/60.txt" ||
	fail "--width 60: lines over 60 columns: $(cat "$tmp/60.txt")"
