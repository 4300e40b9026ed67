#!/bin/sh
# A temporary of every call (tempshare: malloc, two threads store into it
# for 2 ms, free; again and again at the same few addresses).  Its
# allocation dies young, so the agent defers it; it must still be named:
# the communication goes to heap@tempshare.c:N (round_once), not [anon],
# and so do the samples of cdt record.
#
# Each round thread 0 takes 0.5 to 4 samples in the block (2 ms at the
# 250 Hz to 2 kHz the overhead budget leaves comm), and a sample in a
# young block has it recorded; the line's object is looked up at its
# first events, and the block comes back at the same address round after
# round.  Seen: all of the communication named, in every run (>= 80%
# asked).  The block is nearly all that the threads touch (the workload
# reads its clock seldom): 97% of record's samples, >= 50% asked.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads tempshare
n=$(grep -n 'TEMP_LINE \*/' "$(dirname "$0")/../workloads/tempshare.c" | cut -d: -f1)
obj="heap@tempshare.c:$n (round_once)"

"$CDT" comm -q -o "$tmp/c.data" "$W/tempshare" 0.5 2>"$tmp/err" || fail "comm: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/c.data" --csv --view objects >"$tmp/objects.csv" || fail "objects view failed"
"$CDT" report -i "$tmp/c.data" --csv --view summary >"$tmp/summary" || fail "summary failed"
all=$(kv all_total)
got=$(awk -F, -v o="$obj" '$1 == o { print $2 }' "$tmp/objects.csv")
[ -n "$got" ] || fail "comm: no object '$obj': $(cat "$tmp/objects.csv")"
awk -v g="$got" -v a="$all" 'BEGIN { exit !(g >= 0.8 * a) }' ||
	fail "comm: '$obj' has $got of $all: $(cat "$tmp/objects.csv")"

"$CDT" record -q -o "$tmp/r.data" "$W/tempshare" 0.5 2>"$tmp/err" || fail "record: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/r.data" --csv --view objects >"$tmp/robjects.csv" || fail "record objects failed"
awk -F, -v o="$obj" '$1 == o && $3 >= 50 { f = 1 } END { exit !f }' "$tmp/robjects.csv" ||
	fail "record: '$obj' must have half the samples or more: $(cat "$tmp/robjects.csv")"
