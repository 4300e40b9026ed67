#!/bin/sh
# A heap block is named after the first frame outside allocation helpers:
# heapname allocates one block through heap_calloc, a helper inlined from
# heapname.h, and one through xmalloc_or_die, a wrapper of its own; both
# must be named after main's lines (INLINE_LINE, WRAPPER_LINE), not the
# header's line or the wrapper.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads heapname
src=$(dirname "$0")/../workloads/heapname.c
il=$(grep -n 'INLINE_LINE \*/' "$src" | cut -d: -f1)
wl=$(grep -n 'WRAPPER_LINE \*/' "$src" | cut -d: -f1)

# -F 1000: ~100 samples per block, where the budget's rate, the
# machine's, gave 95 to 104 here and could give half that elsewhere.
"$CDT" record -q -F 1000 -o "$tmp/h.data" "$W/heapname" >/dev/null 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/h.data" --csv --view objects >"$tmp/objects.csv" || fail "objects view failed"
for want in "heap@heapname.c:$il (main)" "heap@heapname.c:$wl (main)"; do
	awk -F, -v o="$want" '$1 == o && $2 >= 50 { f = 1 } END { exit !f }' "$tmp/objects.csv" ||
		fail "no object '$want' with its samples: $(cat "$tmp/objects.csv")"
done
