#!/bin/sh
# The program writes 512 REC_ALLOC records into cdt's shared buffer while
# a second thread flips their depth between 1 and 200 and their size
# between 56 and 64, until cdt has taken them: at any instant about 3 in
# 4 are invalid.  cdt must check each record once, in its own copy, and
# use what it checked (the reported bug: depth checked, then read again
# from shared memory, overflowing a stack buffer): each record is refused
# for a field out of range or kept whole.  Rejection is not certain in
# theory, but with 512 records mostly invalid whenever cdt looks it is in
# practice: > 0 is asserted.  Under record every record is accounted for:
# those kept are the blocks of flip_site in the allocs view.
set -u

. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arena.sh"

for tool in record comm; do
	scribble "$tool" flip
	n=$(truth flip_records)
	[ "$(count 'with a field out of range')" -eq "$rejected" ] ||
		fail "$tool: only fields out of range may be refused: $(grep -a '^cdt: refused' "$tmp/err")"
	[ "$rejected" -le "$n" ] || fail "$tool: $rejected records refused, but only $n were flipped"
	[ "$tool" = record ] || continue
	"$CDT" report -i "$tmp/$tool.data" --csv --show-all --view allocs >"$tmp/allocs.csv" 2>"$tmp/rerr" ||
		fail "$tool: the allocs view failed: $(cat "$tmp/rerr")"
	kept=$(cols "$tmp/allocs.csv" object blocks bytes |
		awk -F'\t' 'index($1, "(flip_site)") { n += $2; b += $3 } END { print n + 0, b + 0 }')
	[ "${kept% *}" -eq $((n - rejected)) ] && [ "${kept#* }" -eq $(((n - rejected) * 64)) ] ||
		fail "$tool: of $n flipped records, $rejected were refused, so $((n - rejected)) blocks of 64 bytes must be at flip_site; found (blocks, bytes) $kept: $(cat "$tmp/allocs.csv")"
done
exit 0
