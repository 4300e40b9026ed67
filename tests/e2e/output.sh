#!/bin/sh
# The profile file (-o), in a scratch directory:
#   - a FIFO stays a FIFO and its reader gets the profile; a character
#     device (a /dev/null made here with mknod) stays a device: a path that
#     exists and is not a regular file is written in place, not renamed over;
#   - a symlink stays a link and the file it names gets the profile, also
#     when that file does not exist yet;
#   - a missing directory, a path under a regular file, and an empty name
#     fail before the program starts (nothing on its stdout), with exit 125
#     and one message;
#   - the closing line gives the samples and traps of the summary.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads stdout_bytes
d=$tmp/out
mkdir "$d"

run() { # run OUT: cdt record -o OUT stdout_bytes 1
	"$CDT" record -o "$1" "$W/stdout_bytes" 1 >"$tmp/stdout" 2>"$tmp/err"
}
readable() { # readable FILE WHAT
	"$CDT" report -i "$1" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
		fail "$2: the profile is not readable: $(cat "$tmp/rerr")"
}

mkfifo "$d/fifo"
cat "$d/fifo" >"$d/fifo.copy" &
reader=$!
run "$d/fifo" || fail "-o FIFO: exit $?: $(cat "$tmp/err")"
wait $reader
[ -p "$d/fifo" ] || fail "-o FIFO: the FIFO was replaced: $(ls -l "$d")"
readable "$d/fifo.copy" "-o FIFO (what its reader got)"

if mknod "$d/null" c 1 3 2>/dev/null; then
	run "$d/null" || fail "-o a null device: exit $?: $(cat "$tmp/err")"
	[ -c "$d/null" ] || fail "-o a null device: it was replaced: $(ls -l "$d/null")"
else
	echo "no mknod here: the device case is left out"
fi

ln -s real.data "$d/link.data"
run "$d/link.data" || fail "-o dangling symlink: exit $?: $(cat "$tmp/err")"
[ -L "$d/link.data" ] || fail "-o symlink: the link was replaced: $(ls -l "$d")"
readable "$d/real.data" "-o symlink (its target)"
before=$(cksum <"$d/real.data")
run "$d/link.data" || fail "-o symlink: exit $?: $(cat "$tmp/err")"
[ -L "$d/link.data" ] && [ "$(cksum <"$d/real.data")" != "$before" ] ||
	fail "-o symlink to an existing profile: the target was not rewritten"
ls "$d" | grep -q '\.tmp\.' && fail "temporary files left behind: $(ls "$d")"

: >"$d/file"
for bad in "$d/missing/p.data" "$d/file/p.data" ""; do
	run "$bad"
	rc=$?
	[ $rc -eq 125 ] || fail "-o '$bad': expected exit 125, got $rc: $(cat "$tmp/err")"
	[ ! -s "$tmp/stdout" ] || fail "-o '$bad': the program ran before the check"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "-o '$bad': expected one message: $(cat "$tmp/err")"
	grep -q "cannot write the profile to '$bad'.*not started" "$tmp/err" ||
		fail "-o '$bad': message: $(cat "$tmp/err")"
done
grep -q 'empty file name' "$tmp/err" || fail "-o '': message: $(cat "$tmp/err")"

run "$d/p.data" || fail "exit $?: $(cat "$tmp/err")"
readable "$d/p.data" "-o p.data"
line=$(grep "wrote $d/p.data" "$tmp/err") || fail "no closing line: $(cat "$tmp/err")"
n() { # n COUNT WORD: "1 word", "2 words"
	[ "$1" = 1 ] && echo "1 $2" || echo "$1 ${2}s"
}
want="cdt record: wrote $d/p.data: $(n "$(kv samples_taken)" sample), $(n "$(kv traps_taken)" trap), $(n "$(kv threads)" thread) in 1 process"
[ "$line" = "$want" ] || fail "closing line: '$line', expected '$want'"
