#!/bin/sh
# SIGINT and SIGTERM sent to cdt (by kill, not a terminal, so only cdt
# gets them): cdt forwards each to the program, which dies of it; cdt
# exits 128+N, says so, and writes a readable profile of what ran.
set -u

. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/killed.sh"

need_workloads sleeper

for sig in INT TERM; do
	case $sig in INT) num=2 ;; TERM) num=15 ;; esac
	start_sleeper "$tmp/s.data"
	sleep 0.5 # let the three threads collect samples
	kill -$sig "$cdt_pid" || fail "cannot send SIG$sig to cdt"
	# cdt must forward it: if it did not, the sleeper runs on (30 s).
	n=0
	while kill -0 "$cdt_pid" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -gt 100 ]; then
			fail "SIG$sig to cdt: the program still ran 10 s later (not forwarded?)"
		fi
		sleep 0.1
	done
	wait "$cdt_pid"
	rc=$?
	cdt_pid=
	kill -0 "$target" 2>/dev/null && fail "SIG$sig: the program $target is still running"
	target=
	check_killed "$tmp/s.data" $num "SIG$sig"
done
exit 0
