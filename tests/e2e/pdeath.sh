#!/bin/sh
# cdt killed with SIGKILL (nothing in it can run): the program must not
# go on unprofiled under another parent; it dies with cdt
# (PR_SET_PDEATHSIG, cdt(1)).
set -u
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/killed.sh"
need_workloads sleeper

gone() { # gone PID: no such process, or a zombie
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -z "$s" ] || [ "$s" = Z ] || [ "$s" = X ]
}

start_sleeper "$tmp/k.data"
kill -KILL "$cdt_pid" || fail "cannot kill cdt ($cdt_pid)"
wait "$cdt_pid" 2>/dev/null
cdt_pid=''
n=0
until gone "$target"; do
	n=$((n + 1))
	[ $n -le 50 ] || fail "the program ($target) still runs 5 s after cdt was killed: $(cat "/proc/$target/stat")"
	sleep 0.1
done
target=''
