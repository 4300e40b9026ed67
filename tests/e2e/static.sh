#!/bin/sh
# A statically linked program cannot take the agent (no dynamic loader, no
# LD_PRELOAD): cdt must refuse it before running it, exit 125, say
# "statically linked", and write no profile, not even the default one.
set -u

. "$(dirname "$0")/lib/common.sh"

need_workloads hello_static
prog=$W/hello_static
"$prog" >"$tmp/out" 2>&1 || fail "$prog fails on its own: $(cat "$tmp/out")"
grep -q hello "$tmp/out" || fail "$prog printed '$(cat "$tmp/out")', expected a hello line"

"$CDT" record -o "$tmp/s.data" "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 125 ] || fail "expected exit 125 for a static binary, got $rc; stderr: $(cat "$tmp/err")"
grep -q 'statically linked' "$tmp/err" ||
	fail "stderr must say 'statically linked'; found: $(cat "$tmp/err")"
[ ! -e "$tmp/s.data" ] || fail "a refused program must leave no profile, found $tmp/s.data"
[ ! -s "$tmp/out" ] || fail "the static program must not run at all, yet it printed: $(cat "$tmp/out")"

# Without -o: the default cdt.data is not created either.
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && "$CDT" record "$prog" >"$tmp/out" 2>"$tmp/err")
rc=$?
[ "$rc" -eq 125 ] || fail "without -o: expected exit 125, got $rc"
[ -z "$(ls -A "$tmp/cwd")" ] || fail "without -o: expected no file written, found: $(ls -A "$tmp/cwd")"
exit 0
