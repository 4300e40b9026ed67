#!/bin/sh
# cdt must not move the program's heap.  heapsteady starts and joins 200
# threads one at a time and allocates a block after each: the blocks'
# offsets from the first must be the plain program's under every tool.
# The agent's pthread_create once took 24 bytes from the program's heap
# for each new thread, which the thread freed into its own cache, so
# every later block of the program moved.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads heapsteady

timeout 60 "$W/heapsteady" >"$tmp/plain" || fail "heapsteady plain: exit $?"
for run in "record --no-objects" "record --objects" "comm" "fvar"; do
	# shellcheck disable=SC2086
	timeout 120 "$CDT" $run -q -o "$tmp/h.data" "$W/heapsteady" >"$tmp/out" 2>"$tmp/err" ||
		fail "cdt $run heapsteady: exit $?: $(cat "$tmp/err")"
	cmp -s "$tmp/plain" "$tmp/out" ||
		fail "cdt $run moved the program's heap: '$(cat "$tmp/out")', plain '$(cat "$tmp/plain")'"
done
echo "heap as plain under record, comm and fvar: $(cat "$tmp/plain")"
exit 0
