#!/bin/sh
# A profile to the program's stdout (-o -, -o /dev/stdout, -o /dev/fd/1)
# is streamed after the program's output, into the same open file:
#   - stdout a regular file: the program's 6 lines stay, the file keeps its
#     inode and mode, and the profile follows them (cdt report reads it);
#   - stdout a pipe: the reader gets the 6 lines, then the profile;
#   - stdout closed: refused before the program starts (125);
#   - cdt report -i - reads such a profile from a pipe.
# Before, -o /dev/stdout renamed a new 0600 file over the program's
# output, and a pipe was refused ("No such file or directory").
set -u
. "$(dirname "$0")/lib/common.sh"

cd "$tmp" || exit 1
prog='for i in 1 2 3 4 5 6; do echo "line $i"; done'
printf 'line %s\n' 1 2 3 4 5 6 >"$tmp/want"
len=$(wc -c <"$tmp/want")

check() { # check FILE WHAT: FILE holds the 6 lines, then a readable profile
	head -c "$len" "$1" | cmp -s - "$tmp/want" ||
		fail "$2: the program's output is not there: $(head -c 200 "$1" | od -c | head -5)"
	tail -c +$((len + 1)) "$1" >"$tmp/prof"
	[ -s "$tmp/prof" ] || fail "$2: no profile after the program's output"
	"$CDT" report -i "$tmp/prof" --csv --view summary >/dev/null 2>"$tmp/rerr" ||
		fail "$2: the profile after the output is not readable: $(cat "$tmp/rerr")"
}

for o in - /dev/stdout /dev/fd/1; do
	: >"$tmp/out"
	chmod 644 "$tmp/out"
	ino=$(stat -c %i "$tmp/out")
	timeout 120 "$CDT" record -o "$o" sh -c "$prog" >"$tmp/out" 2>"$tmp/err" ||
		fail "-o $o to a file: exit $?: $(cat "$tmp/err")"
	[ "$(stat -c %i:%a "$tmp/out")" = "$ino:644" ] ||
		fail "-o $o: the program's stdout file was replaced: $(stat -c 'inode %i mode %a' "$tmp/out"), was inode $ino mode 644"
	check "$tmp/out" "-o $o to a file"

	{ timeout 120 "$CDT" record -o "$o" sh -c "$prog" 2>"$tmp/err"; echo $? >"$tmp/rc"; } | cat >"$tmp/piped"
	[ "$(cat "$tmp/rc")" = 0 ] || fail "-o $o to a pipe: exit $(cat "$tmp/rc"): $(cat "$tmp/err")"
	check "$tmp/piped" "-o $o to a pipe"
done

# A program that writes nothing: the pipe holds the profile alone.
{ timeout 120 "$CDT" record -o - true 2>"$tmp/err"; echo $? >"$tmp/rc"; } |
	timeout 60 "$CDT" report -i - --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
	fail "cdt report -i - after cdt record -o -: $(cat "$tmp/rerr") / $(cat "$tmp/err")"
[ "$(cat "$tmp/rc")" = 0 ] || fail "cdt record -o - into cdt report -i -: exit $(cat "$tmp/rc"): $(cat "$tmp/err")"
grep -q '^tool,record' "$tmp/summary" || fail "cdt report -i -: $(head -3 "$tmp/summary")"

timeout 120 "$CDT" record -o - sh -c 'echo ran' >&- 2>"$tmp/err"
rc=$?
[ $rc -eq 125 ] || fail "-o - with stdout closed: expected 125, got $rc: $(cat "$tmp/err")"
grep -q "not started" "$tmp/err" || fail "-o - with stdout closed: message: $(cat "$tmp/err")"
exit 0
