#!/bin/sh
# A failed write never clobbers or deletes an earlier profile, and leaves
# no temporary file behind: the output's directory does not exist, a
# regular file stands where a directory should be, the output is a
# directory, the program cannot be found, or the program is static.  Each
# failure of cdt exits 125 (127 for the missing program) and says why.
# (Tests may run as root, which ignores permission bits, so unwritable
# places are made from paths that cannot exist.)  A successful run does
# replace the earlier profile.
set -u

. "$(dirname "$0")/lib/common.sh"

need_workloads exitwith hello_static

"$CDT" record -q -o "$tmp/p.data" "$W/exitwith" 3 >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] || fail "cannot write the first profile: $(cat "$tmp/err")"
cp "$tmp/p.data" "$tmp/orig"
mkdir "$tmp/adir"
: >"$tmp/adir/keep"

# intact WHAT: p.data unchanged, and nothing but our files in the dir.
intact() {
	cmp -s "$tmp/p.data" "$tmp/orig" || fail "$1: the earlier profile was changed or removed"
	"$CDT" report -i "$tmp/p.data" --csv --view summary >/dev/null 2>"$tmp/rerr" ||
		fail "$1: the earlier profile is no longer readable: $(cat "$tmp/rerr")"
	for f in "$tmp"/* "$tmp"/.[!.]*; do
		case ${f##*/} in
		p.data | orig | adir | err | out | rerr | '*' | '.[!.]*') ;;
		*) fail "$1: file left behind: $f" ;;
		esac
	done
	[ "$(ls -A "$tmp/adir")" = keep ] || fail "$1: the directory adir was changed: $(ls -A "$tmp/adir")"
}

# fails WANT WHAT ARGS...: cdt ARGS exits WANT with a message.
fails() {
	want=$1 what=$2
	shift 2
	"$CDT" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "$what: expected exit $want, got $rc; stderr: $(cat "$tmp/err")"
	[ -s "$tmp/err" ] || fail "$what: expected a message on stderr"
}

fails 125 "-o into a directory that does not exist" \
	record -o "$tmp/nodir/x.data" "$W/exitwith" 0
grep -q 'nodir/x.data' "$tmp/err" || fail "the message must name the file: $(cat "$tmp/err")"
intact "-o into a directory that does not exist"

fails 125 "-o under a regular file" record -o "$tmp/p.data/x.data" "$W/exitwith" 0
intact "-o under a regular file"

fails 125 "-o naming a directory" record -o "$tmp/adir" "$W/exitwith" 0
intact "-o naming a directory"

fails 127 "a missing program" record -o "$tmp/p.data" "$tmp/no-such-program"
intact "a missing program"

fails 125 "a static program" record -o "$tmp/p.data" "$W/hello_static"
intact "a static program"

fails 125 "an unknown option" record --no-such-option -o "$tmp/p.data" "$W/exitwith" 0
intact "an unknown option"

# The control: a run that succeeds replaces the profile.
"$CDT" record -q -o "$tmp/p.data" "$W/exitwith" 0 >/dev/null 2>"$tmp/err" ||
	fail "the second run failed: $(cat "$tmp/err")"
cmp -s "$tmp/p.data" "$tmp/orig" && fail "a successful run must replace the earlier profile"
"$CDT" report -i "$tmp/p.data" --csv --view summary >"$tmp/out" 2>"$tmp/err" ||
	fail "the new profile is not readable: $(cat "$tmp/err")"
grep -q '^exit_status,0$' "$tmp/out" || fail "the new profile must be the second run's (exit_status 0)"
exit 0
