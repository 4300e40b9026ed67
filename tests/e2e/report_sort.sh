#!/bin/sh
# cdt report on generated profiles (tests/bench/genprofile.c, genrecord.c):
#   - --sort COL: numbers from the largest, text from A, unknown column
#     refused (exit 125) with the view's columns named; --top N after it;
#   - the threshold: text hides rows under 0.05% of the total in every
#     view where rows have a share (comm lines, objects, code; record
#     functions, objects) and says how many; --show-all and CSV show them;
#   - width: text within 80 columns by default and within --width N;
#     matrices of 64 threads fit 80 columns as they are, 256 threads are
#     summed in blocks, and the title says so; --width 300 needs no blocks.
set -u

. "$(dirname "$0")/lib/common.sh"

G=$BUILD/bench
for g in genprofile genrecord; do
	[ -x "$G/$g" ] || fail "expected $G/$g (make $G/$g)"
done
"$G/genprofile" -o "$tmp/c64.data" -n 20000 -t 64 -l 4000 || fail "genprofile -t 64 failed"
"$G/genprofile" -o "$tmp/c256.data" -n 20000 -t 256 -l 4000 || fail "genprofile -t 256 failed"
"$G/genrecord" -o "$tmp/r.data" -n 20000 -t 8 -f 4096 || fail "genrecord failed"

# report OUT ARGS...: cdt report ARGS > OUT; it must succeed.
report() {
	out=$1
	shift
	"$CDT" report "$@" >"$out" 2>"$tmp/err" || fail "cdt report $*: failed: $(cat "$tmp/err")"
}

# width FILE N: no line of FILE is wider than N.
width() {
	awk -v n="$2" 'length($0) > n { print "line " NR ": " length($0) " columns: " $0; bad = 1 }
		END { exit bad }' "$1" || fail "$1: wider than $2 columns"
}

# ---- --sort ----
report "$tmp/ev.csv" -i "$tmp/c64.data" --csv --view lines --sort events
cols "$tmp/ev.csv" events | awk 'NR > 1 && $1 + 0 > prev + 0 { bad = 1 } { prev = $1 } END { exit bad }' ||
	fail "--sort events: not from the largest"
report "$tmp/lines.csv" -i "$tmp/c64.data" --csv --view lines
[ "$(wc -l <"$tmp/ev.csv")" -eq "$(wc -l <"$tmp/lines.csv")" ] || fail "--sort events --csv: expected every line"
[ "$(sort "$tmp/ev.csv" | md5sum)" = "$(sort "$tmp/lines.csv" | md5sum)" ] ||
	fail "--sort events --csv: the rows must be those of the view, reordered"
report "$tmp/thr.csv" -i "$tmp/c64.data" --csv --view threads --sort name
cols "$tmp/thr.csv" name | head -n 3 | tr '\n' ' ' | grep -qx 'gen-0 gen-1 gen-2 ' ||
	fail "--sort name: text must go from A, numbers by value: $(cols "$tmp/thr.csv" name | head -n 3)"
[ "$(cols "$tmp/thr.csv" name | sed -n 10p)" = gen-9 ] && [ "$(cols "$tmp/thr.csv" name | sed -n 11p)" = gen-10 ] ||
	fail "--sort name: gen-10 must follow gen-9"
report "$tmp/top" -i "$tmp/c64.data" --view threads --sort all --top 3
[ "$(grep -c '^ *[0-9][0-9]* ' "$tmp/top")" -eq 3 ] || fail "--sort all --top 3: expected 3 rows: $(cat "$tmp/top")"
grep -q '(61 more not shown' "$tmp/top" || fail "--top 3 of 64 threads: expected a note on 61 more: $(cat "$tmp/top")"
report "$tmp/mx" -i "$tmp/c64.data" --view matrix --sort count --top 4
[ "$(grep -c '^\(all\|ts\|fs\) ' "$tmp/mx")" -eq 4 ] || fail "--view matrix --sort count --top 4: $(cat "$tmp/mx")"
"$CDT" report -i "$tmp/c64.data" --view lines --sort bogus >/dev/null 2>"$tmp/err"
[ $? -eq 125 ] || fail "--sort bogus: expected exit 125"
grep -q 'no such column; its columns: line, object, offset, all' "$tmp/err" ||
	fail "--sort bogus: the message must name the columns: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/c64.data" --sort bogus >/dev/null 2>"$tmp/err"
[ $? -eq 125 ] || fail "--sort bogus on the whole report: expected exit 125"
grep -q 'lines: line, object' "$tmp/err" || fail "--sort bogus, whole report: $(cat "$tmp/err")"
report "$tmp/sorted" -i "$tmp/c64.data" --sort fs --show-all
grep -q '^Contended cache lines' "$tmp/sorted" || fail "--sort fs: the report lost its lines table"

# ---- the threshold: ~4000 lines of 0.025% each, 64 code locations; 4096 functions ----
report "$tmp/summary" -i "$tmp/c64.data" --csv --view summary
total=$(kv all_total)
for v in lines objects code; do
	report "$tmp/$v.txt" -i "$tmp/c64.data" --view $v --top 0
	report "$tmp/$v.all" -i "$tmp/c64.data" --view $v --top 0 --show-all
	report "$tmp/$v.csv" -i "$tmp/c64.data" --view $v --csv
	n=$(($(wc -l <"$tmp/$v.csv") - 1))
	# Title and header; a line naming the columns left out at 80.
	[ "$(($(grep -vc -e '^(not shown at' -e 'full shows them)$' "$tmp/$v.all") - 2))" -eq "$n" ] ||
		fail "--view $v --show-all --top 0: expected $n rows"
	shown=$(($(grep -vc -e '^(not shown at' -e 'full shows them)$' "$tmp/$v.txt") - 2))
	grep -q "more not shown" "$tmp/$v.txt" && shown=$((shown - 1))
	cols "$tmp/$v.csv" all | awk -v n="$shown" -v t="$total" '{ w[NR] = $1 }
		END { for (i = 1; i <= NR; i++) if ((w[i] >= 0.0005 * t) != (i <= n)) exit 1 }' ||
		fail "--view $v: text must show exactly the rows of 0.05% of all_total $total or more ($shown shown)"
done
hidden=$(($(wc -l <"$tmp/lines.csv") - $(grep -vc -e '^(not shown at' -e 'full shows them)$' "$tmp/lines.txt") + 2))
grep -q "($hidden more not shown; --top 0 --show-all lists all)" "$tmp/lines.txt" ||
	fail "lines under the threshold: the text must say how many are hidden: $(tail -n 2 "$tmp/lines.txt")"
report "$tmp/fn.txt" -i "$tmp/r.data" --view functions --top 0
report "$tmp/fn.csv" -i "$tmp/r.data" --view functions --csv
grep -q 'more not shown' "$tmp/fn.txt" || fail "record functions under 0.05%: expected a hidden-rows note"
report "$tmp/fn.all" -i "$tmp/r.data" --view functions --top 0 --show-all
[ "$(($(wc -l <"$tmp/fn.csv") - 1))" -eq "$(($(wc -l <"$tmp/fn.all") - 2))" ] ||
	fail "record functions: CSV and --show-all --top 0 must list the same rows"
[ "$(wc -l <"$tmp/fn.csv")" -gt 4000 ] || fail "record functions CSV: expected about 4096 rows"

# ---- width and matrices ----
report "$tmp/t64" -i "$tmp/c64.data"
width "$tmp/t64" 80
grep -q 'blocks of' "$tmp/t64" && fail "64 threads fit 80 columns without blocks"
grep -q '^  63 ' "$tmp/t64" || fail "64 threads: no heatmap row for thread 63"
report "$tmp/t256" -i "$tmp/c256.data" --view matrix
width "$tmp/t256" 80
grep -q '^(blocks of 4 x 4 summed to fit 80 columns' "$tmp/t256" ||
	fail "256 threads in 80 columns: expected blocks of 4 x 4, said: $(sed -n 2p "$tmp/t256")"
grep -q '^ 252 ' "$tmp/t256" || fail "256 threads in blocks of 4: the last block row is 252"
report "$tmp/w300" -i "$tmp/c256.data" --view matrix --width 300
width "$tmp/w300" 300
grep -q 'blocks of' "$tmp/w300" && fail "256 threads fit --width 300 without blocks"
grep -q '^ 255 ' "$tmp/w300" || fail "--width 300: expected a row for thread 255"
report "$tmp/r80" -i "$tmp/r.data"
width "$tmp/r80" 80
report "$tmp/r60" -i "$tmp/c64.data" --width 60 --view lines --show-all --top 5
width "$tmp/r60" 60
"$CDT" report -i "$tmp/c64.data" --width 20 >/dev/null 2>&1
[ $? -eq 125 ] || fail "--width 20: expected exit 125"
exit 0
