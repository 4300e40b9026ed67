#!/bin/sh
# A profile that cannot be written is known before the program starts,
# and a write that fails after the run still says how the program ended:
#   - sticky: as nobody, -o over root's 0444 file in a sticky directory
#     (rename() there needs the file or the directory to be ours): exit
#     125, the program not started (before: it ran, then EPERM);
#   - a directory: refused up front (before: EISDIR after the run);
#   - /dev/full: the write fails after the run (ENOSPC): exit 125 and a
#     line with the program's own status, 0 or 3;
#   - a full tmpfs (as root, mounted here): the program fills it and
#     exits 0; exit 125, "the program exited 0", the earlier profile kept.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$tmp" || exit 1

expect_refused() { # expect_refused WHAT: exit 125, nothing ran, one line
	[ "$1" -eq 125 ] || fail "$2: expected exit 125, got $1: $(cat "$tmp/err")"
	[ ! -s "$tmp/stdout" ] || fail "$2: the program ran before the check: $(cat "$tmp/stdout")"
	grep -q "not started" "$tmp/err" || fail "$2: message: $(cat "$tmp/err")"
}

mkdir "$tmp/dir"
timeout 120 "$CDT" record -o "$tmp/dir" sh -c 'echo ran' >"$tmp/stdout" 2>"$tmp/err"
expect_refused $? "-o a directory"

for st in 0 3; do
	timeout 120 "$CDT" record -o /dev/full sh -c "echo ran; exit $st" >"$tmp/stdout" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 125 ] || fail "-o /dev/full: expected exit 125, got $rc: $(cat "$tmp/err")"
	grep -q "No space left on device" "$tmp/err" || fail "-o /dev/full: no ENOSPC line: $(cat "$tmp/err")"
	grep -q "the program exited $st; cdt exits 125" "$tmp/err" ||
		fail "-o /dev/full: the program's status $st is not said: $(cat "$tmp/err")"
done

if [ "$(id -u)" -ne 0 ]; then
	echo "skip: not root: the sticky-directory case (run as nobody) and the full tmpfs are left out"
	exit 0
fi

chmod 755 "$tmp"
mkdir "$tmp/sticky"
chmod 1777 "$tmp/sticky"
echo "root's" >"$tmp/sticky/p.data"
chmod 444 "$tmp/sticky/p.data"
timeout 120 setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$CDT" record -o "$tmp/sticky/p.data" sh -c 'echo ran' >"$tmp/stdout" 2>"$tmp/err"
expect_refused $? "as nobody over root's file in a sticky directory"
grep -q "sticky" "$tmp/err" || fail "sticky: the message does not say why: $(cat "$tmp/err")"
[ "$(cat "$tmp/sticky/p.data")" = "root's" ] || fail "sticky: root's file changed"
ls "$tmp/sticky" | grep -q '\.tmp\.' && fail "sticky: temporary files left behind: $(ls "$tmp/sticky")"
# Its own file there is fine.
timeout 120 setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$CDT" record -o "$tmp/sticky/mine.data" sh -c 'echo ran' >"$tmp/stdout" 2>"$tmp/err" ||
	fail "as nobody, a new file in a sticky directory: exit $?: $(cat "$tmp/err")"

mkdir "$tmp/mnt"
if ! mount -t tmpfs -o size=512k tmpfs "$tmp/mnt" 2>"$tmp/merr"; then
	echo "skip: cannot mount a tmpfs here ($(cat "$tmp/merr")): the full-disk case is left out"
	exit 0
fi
trap 'umount "$tmp/mnt" 2>/dev/null; e2e_cleanup' EXIT
timeout 120 "$CDT" record -o "$tmp/mnt/p.data" sh -c 'echo first' >/dev/null 2>"$tmp/err" ||
	fail "tmpfs: the first profile: exit $?: $(cat "$tmp/err")"
before=$(cksum <"$tmp/mnt/p.data")
timeout 120 "$CDT" record -o "$tmp/mnt/p.data" \
	sh -c 'cat /dev/zero >"$0/fill" 2>/dev/null; exit 0' "$tmp/mnt" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 125 ] || fail "full tmpfs: expected exit 125, got $rc: $(cat "$tmp/err")"
grep -q "No space left on device" "$tmp/err" || fail "full tmpfs: no ENOSPC line: $(cat "$tmp/err")"
grep -q "the program exited 0; cdt exits 125" "$tmp/err" ||
	fail "full tmpfs: the program's status is not said: $(cat "$tmp/err")"
[ "$(cksum <"$tmp/mnt/p.data")" = "$before" ] || fail "full tmpfs: the earlier profile changed"
exit 0
