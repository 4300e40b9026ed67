#!/bin/sh
# cdt report merges the profiles of several ranks (-i A -i B, or a quoted
# glob cdt expands): two `cdt comm` runs of comm_p2p (4 threads each)
# written as cdt.data.0 and cdt.data.1 merge into one report whose
# threads are 0.0..0.3 and 1.0..1.3 (threads view, matrix CSV from/to,
# heatmap labels), whose totals are the sums of the two, and the glob
# gives the same report as the explicit list.  Ranks come from the
# .N suffix (cdt.data.10 after cdt.data.2), pids that collide (the same
# file under two names) stay apart, and profiles of different tools are
# refused with exit 125.
set -u

. "$(dirname "$0")/lib/common.sh"

need_workloads comm_p2p exitwith
D=$tmp/d
mkdir "$D" || exit 1

for r in 0 1; do
	"$CDT" comm -q -o "$D/cdt.data.$r" "$W/comm_p2p" -t 1 >"$tmp/run$r.out" 2>"$tmp/run$r.err" ||
		fail "cdt comm comm_p2p (rank $r) failed: $(tail -n 5 "$tmp/run$r.err")"
done

# report OUT ARGS...: cdt report ARGS > OUT; it must succeed.
report() {
	out=$1
	shift
	"$CDT" report "$@" >"$out" 2>"$tmp/err" || fail "cdt report $*: failed: $(cat "$tmp/err")"
	if grep -q -e 'AddressSanitizer' -e 'runtime error:' "$tmp/err"; then
		fail "cdt report $*: sanitizer report: $(cat "$tmp/err")"
	fi
}

# Threads: rank.thread, in rank order, with each file's real pids.
report "$tmp/threads.csv" -i "$D/cdt.data.0" -i "$D/cdt.data.1" --csv --view threads
got=$(cols "$tmp/threads.csv" index | tr '\n' ' ')
[ "$got" = "0.0 0.1 0.2 0.3 1.0 1.1 1.2 1.3 " ] ||
	fail "merged threads: expected 0.0..0.3 1.0..1.3, found: $got"
for r in 0 1; do
	report "$tmp/t$r.csv" -i "$D/cdt.data.$r" --csv --view threads
	want=$(cols "$tmp/t$r.csv" pid tid | sort)
	have=$(awk -F, -v r="$r" 'NR > 1 && index($1, r ".") == 1 { print $2 "\t" $3 }' \
		"$tmp/threads.csv" | sort)
	[ "$want" = "$have" ] || fail "rank $r: pids and tids expected '$want', found '$have'"
done

# The matrix CSV names threads rank.thread too, and rank pairs never mix.
report "$tmp/matrix.csv" -i "$D/cdt.data.0" -i "$D/cdt.data.1" --csv --view matrix
got=$(awk -F, '$2 == "thread" { print $3 }' "$tmp/matrix.csv" | sort -u | tr '\n' ' ')
[ "$got" = "0.0 0.1 0.2 0.3 1.0 1.1 1.2 1.3 " ] ||
	fail "matrix CSV: from expected 0.0..1.3, found: $got"
awk -F, '$2 == "thread" && substr($3, 1, 1) != substr($4, 1, 1) && $5 + 0 != 0 { bad = 1 }
	END { exit bad }' "$tmp/matrix.csv" || fail "matrix CSV: communication between ranks"

# Totals: the sums of the ranks' (counts are printed with 6 digits).
report "$tmp/summary" -i "$D/cdt.data.0" -i "$D/cdt.data.1" --csv --view summary
for k in detections all_total ts_total fs_total threads; do
	m=$(kv $k)
	s=0
	for r in 0 1; do
		"$CDT" report -i "$D/cdt.data.$r" --csv --view summary >"$tmp/s$r" 2>/dev/null ||
			fail "summary of rank $r failed"
		v=$(awk -F, -v k="$k" '$1 == k { print $2 }' "$tmp/s$r")
		s=$(awk -v a="$s" -v b="$v" 'BEGIN { print a + b }')
	done
	awk -v m="$m" -v s="$s" 'BEGIN { d = m - s; if (d < 0) d = -d; exit !(m != "" && d <= 1e-5 * (s > 1 ? s : 1)) }' ||
		fail "merged $k is '$m', expected the sum of the ranks', $s"
done
[ "$(kv merged)" = "2 files (ranks 0 to 1)" ] || fail "summary: merged is '$(kv merged)'"

# Text: the heatmap labels rows 0.0..1.3 and stays within 80 columns.
report "$tmp/text" -i "$D/cdt.data.0" -i "$D/cdt.data.1"
for l in 0.0 0.3 1.0 1.3; do
	grep -q "^ *$l [ .:=+*#%@-]*\$" "$tmp/text" || fail "text: no heatmap row labelled $l"
done
awk 'length($0) > 80 { print "line " NR " has " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
	"$tmp/text" || fail "merged text report wider than 80 columns"

# A quoted glob is the explicit list.
report "$tmp/glob" -i "$D/cdt.data.*"
cmp -s "$tmp/glob" "$tmp/text" || fail "-i '$D/cdt.data.*' differs from -i cdt.data.0 -i cdt.data.1"
report "$tmp/glob.csv" -i "$D/cdt.data.*" --csv --view matrix
cmp -s "$tmp/glob.csv" "$tmp/matrix.csv" || fail "-i glob: the matrix CSV differs"
"$CDT" report -i "$D/none.*" >/dev/null 2>"$tmp/err"
[ $? -eq 125 ] || fail "-i with a glob that matches nothing: expected exit 125"
grep -q 'no file matches' "$tmp/err" || fail "-i glob without a match: message is: $(cat "$tmp/err")"

# Ranks from the suffix, by value; the same pids in two files stay apart.
mkdir "$tmp/r" || exit 1
cp "$D/cdt.data.0" "$tmp/r/cdt.data.10" && cp "$D/cdt.data.0" "$tmp/r/cdt.data.2" || exit 1
report "$tmp/r.csv" -i "$tmp/r/cdt.data.*" --csv --view threads
got=$(cols "$tmp/r.csv" index | tr '\n' ' ')
[ "$got" = "2.0 2.1 2.2 2.3 10.0 10.1 10.2 10.3 " ] ||
	fail "ranks 2 and 10: expected 2.0..2.3 then 10.0..10.3, found: $got"
report "$tmp/r.summary" -i "$tmp/r/cdt.data.*" --csv --view summary
report "$tmp/one.summary" -i "$D/cdt.data.0" --csv --view summary
one=$(awk -F, '$1 == "detections" { print $2 }' "$tmp/one.summary")
two=$(awk -F, '$1 == "detections" { print $2 }' "$tmp/r.summary")
[ "$two" -eq $((2 * one)) ] 2>/dev/null ||
	fail "a file merged with its copy: detections expected $((2 * one)), found '$two'"
report "$tmp/r.lines" -i "$tmp/r/cdt.data.*" --csv --view lines
[ "$(cols "$tmp/r.lines" line | wc -l)" -eq \
	$((2 * $("$CDT" report -i "$D/cdt.data.0" --csv --view lines | wc -l) - 2)) ] ||
	fail "a file merged with its copy: each process must keep its own cache lines"

# Profiles of different tools do not merge.
"$CDT" record -q -o "$tmp/rec.data" "$W/exitwith" 0 >/dev/null 2>"$tmp/err" ||
	fail "cdt record exitwith failed: $(cat "$tmp/err")"
"$CDT" report -i "$D/cdt.data.0" -i "$tmp/rec.data" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 125 ] || fail "merging comm and record profiles: expected exit 125, got $rc"
grep -q 'one tool only' "$tmp/err" || fail "merging comm and record: message is: $(cat "$tmp/err")"
exit 0
