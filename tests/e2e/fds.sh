#!/bin/sh
# The program closes the descriptors it did not open (fdclose):
#   - reuse: it closes every fd from 3 up and makes each a copy of
#     /dev/null while a thread runs; when that thread ends the agent must
#     not close the numbers its events had, which are now the program's;
#   - exec: closefrom(3) then exec: the exec'd program cannot load the
#     agent, and cdt says in one line which process runs unprofiled.
# The descriptors the program inherits from cdt sit high (1000 and up
# under the usual limit of 1024), with the agent's events above them.
# The runs take the perf clock (--clock perf): the POSIX clock, where the
# budget starts a thread, has no descriptor.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads fdclose threads

"$CDT" record --clock perf -o "$tmp/r.data" "$W/fdclose" reuse 2>"$tmp/err" ||
	fail "reuse: exit $? (1: the agent closed a descriptor of the program's): $(cat "$tmp/err")"

"$CDT" record --clock perf -o "$tmp/e.data" "$W/fdclose" exec "$W/threads" 1 >/dev/null 2>"$tmp/err" ||
	fail "exec: exit $?: $(cat "$tmp/err")"
n=$(grep -c "^cdt: process [0-9]* runs $W/threads unprofiled: it closed cdt's descriptors" "$tmp/err")
[ "$n" -eq 1 ] || fail "exec: expected one line naming the lost process, got $n: $(cat "$tmp/err")"

if [ "$(ulimit -n)" -ge 1024 ] 2>/dev/null; then
	"$CDT" record --clock perf -o "$tmp/l.data" sh -c 'ls -l /proc/$$/fd' >"$tmp/fds" 2>"$tmp/err" ||
		fail "ls: exit $?: $(cat "$tmp/err")"
	mine=$(grep -E 'memfd:cdt-|perf_event' "$tmp/fds" | sed 's/ -> .*//; s/.* //')
	[ "$(echo "$mine" | wc -w)" -ge 3 ] || fail "expected cdt's two memfds and an event: $(cat "$tmp/fds")"
	for fd in $mine; do
		[ "$fd" -ge 1000 ] || fail "cdt's fd $fd is not high: $(cat "$tmp/fds")"
	done
fi
