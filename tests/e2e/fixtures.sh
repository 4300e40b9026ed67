#!/bin/sh
# Old files keep reading: tests/fixtures/1.0/ holds profiles written by
# cdt 0.1.0 (file version 1.0, before 1.1 grew rec_runstats), and each
# must still give what that cdt reported of it:
#   comm.data    cdt comm on comm_padding --heap: 4 threads falsely share
#                one line of a heap block, 412 detections, 7 by traps;
#   record.data  cdt record --watch watched_counter:w on watchme 3 150: 4
#                threads, 234 memory samples, 450 traps of 8-byte rmw;
# and a merge of two copies adds up.  A profile written now says 1.4.
set -u
. "$(dirname "$0")/lib/common.sh"

fx=$(cd "$(dirname "$0")/../fixtures/1.0" && pwd)

# report FILE VIEW: the view as CSV in $tmp/VIEW.csv; fails loudly.
report() {
	"$CDT" report -i "$1" --view "$2" --csv >"$tmp/$2.csv" 2>"$tmp/err" ||
		fail "cdt report -i $1 --view $2: $(cat "$tmp/err")"
}

# expect KEY VALUE: the summary (in $tmp/summary) has KEY = VALUE.
expect() {
	[ "$(kv "$1")" = "$2" ] || fail "$f: $1 is '$(kv "$1")', cdt 0.1.0 read '$2'"
}

f=$fx/comm.data
"$CDT" report -i "$f" >"$tmp/text" 2>"$tmp/err" || fail "cdt report -i $f: $(cat "$tmp/err")"
report "$f" summary
cp "$tmp/summary.csv" "$tmp/summary"
expect tool comm
expect threads 4
expect detections 412
expect detections_on_traps 7
expect fs_share 1.0000
expect all_total 427
expect rejected_records 0
report "$f" objects
grep -qx 'heap@comm_padding.c:57 (counters_new),427,0,427,1.000,1,0' "$tmp/objects.csv" ||
	fail "$f: the heap block's row changed: $(cat "$tmp/objects.csv")"
report "$f" matrix
grep -qx 'all,thread,0,1,73' "$tmp/matrix.csv" || fail "$f: matrix cell 0,1 is not 73"
# a header and all, ts, fs and recycled (nothing: an old file has no mark)
# at thread (4 x 4), core (2 x 2) and node (1) level: 1 + 4 * 21
[ "$(wc -l <"$tmp/matrix.csv")" -eq 85 ] || fail "$f: the matrix has $(wc -l <"$tmp/matrix.csv") lines, not 85"
! grep -q '^recycled,.*,[1-9][0-9]*$' "$tmp/matrix.csv" || fail "$f: recycled communication in a 1.0 file"

f=$fx/record.data
report "$f" summary
cp "$tmp/summary.csv" "$tmp/summary"
expect tool record
expect threads 4
expect memory_samples 234
expect loads 231
expect traps 450
expect rejected_records 0
report "$f" functions
grep -q '^bump (watchme.c:43),227,' "$tmp/functions.csv" ||
	fail "$f: bump's samples changed: $(head -3 "$tmp/functions.csv")"
report "$f" traps
[ "$(cols "$tmp/traps.csv" object kind size | sort | uniq -c | awk '{ $1 = $1; print }')" = \
  "450 watched_counter rmw 8" ] || fail "$f: the traps are not 450 rmw of 8 bytes on watched_counter"
report "$f" threads
[ "$(cols "$tmp/threads.csv" thread traps | tr '\t' : | tr '\n' ' ')" = "0:0 1:150 2:150 3:150 " ] ||
	fail "$f: traps per thread changed: $(cat "$tmp/threads.csv")"

# Two copies merged (as ranks 0 and 1): twice the detections and threads.
f="two copies of $fx/comm.data"
cp "$fx/comm.data" "$tmp/cdt.data.0"
cp "$fx/comm.data" "$tmp/cdt.data.1"
"$CDT" report -i "$tmp/cdt.data.*" --view summary --csv >"$tmp/summary" 2>"$tmp/err" ||
	fail "merging two 1.0 files: $(cat "$tmp/err")"
expect detections 824
expect threads 8

# What this cdt writes is 1.5: major 1, minor 5, little-endian u16s at 8.
"$CDT" record -q -o "$tmp/new.data" "$W/threads" 1 0.05 >/dev/null 2>"$tmp/err" ||
	fail "cdt record: $(cat "$tmp/err")"
[ "$(od -A n -t u2 -j 8 -N 4 "$tmp/new.data" | tr -s ' ')" = " 1 5" ] ||
	fail "a new file's version is not 1.5: $(od -A n -t u2 -j 8 -N 4 "$tmp/new.data")"
exit 0
