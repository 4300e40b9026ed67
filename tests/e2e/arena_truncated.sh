#!/bin/sh
# The program writes into cdt's shared buffer committed records shorter
# than their type's minimum (REC_THREAD of 16 bytes, REC_SAMPLE 24,
# REC_ALLOC 40, REC_PROC 24, REC_MMAP 64, and an 8-byte REC_COMM: the
# reported bug, where cdt comm took it, then refused to write the whole
# profile and exited 125), then one whose size is not a multiple of 8, one
# that would end past the ring's end, and one never committed.  cdt must
# refuse each for its reason, exactly as many as the workload wrote, lose
# no more than the ring then held after an unframed one, and go on.
set -u

. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arena.sh"

for tool in record comm; do
	scribble "$tool" truncated
	want=$(awk '$1 ~ /^rej_/ { n += $2 } END { print n }' "$tmp/truth")
	[ "$rejected" -eq "$want" ] ||
		fail "$tool: expected $want records refused, found $rejected: $(grep -a '^cdt: refused' "$tmp/err")"
	! grep -aq 'left unfinished' "$tmp/err" ||
		fail "$tool: the record never committed must be refused while the program runs, not found unfinished at its end: $(cat "$tmp/err")"
done
exit 0
