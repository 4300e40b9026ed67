#!/bin/sh
# cdt fvar's full call paths, unwound after the run from the stack words
# the agent kept (lib/core/unwind.c, libdw):
#   - paths: leaf() has one call site, in helper(), which via_a() and
#     via_b() call in turn.  Its context must show two paths, each
#     "via_x (fvar_shapes.c:N) < run (...) < start_thread ...", the
#     commoner at least half; helper's two contexts one path each.  About
#     log2(n) + 1 instances of a call site per thread keep their stack
#     (some 7 per thread here, with 4 threads): all of some 28 falling on
#     one path has a chance of 2 * 2^-28.
#   - recursive: descend() called from itself at depths 1 to 9 has a path
#     per depth: "run (...) < start_thread ..." below the outermost call,
#     else descend, repeats folded ("descend (fvar_shapes.c:N) x3"), then
#     run.  Whichever is commonest must read so, and at least 2 must show
#     (some 7 instances keep their stack: all at one of 9 depths has a
#     chance of 9^-6).
#   - --stack 0 keeps no path; a bad --stack is refused before the run.
set -u
. "$(dirname "$0")/lib/common.sh"
need_debug_traps "fvar times instances between two traps"
need_workloads fvar_shapes

fvar() {
	name=$1
	shift
	"$CDT" fvar -q -o "$tmp/$name.data" "$@" 2>"$tmp/$name.err" ||
		fail "$name: cdt fvar: exit $?: $(cat "$tmp/$name.err")"
	"$CDT" report -i "$tmp/$name.data" --csv --view contexts >"$tmp/$name.csv" ||
		fail "$name: report"
	cols "$tmp/$name.csv" function call_site call_path path_share paths >"$tmp/$name.rows" ||
		fail "$name: columns: $(head -n 1 "$tmp/$name.csv")"
}

fvar paths "$W/fvar_shapes" -m paths -n 4 -t 1
awk -F'\t' '
$1 == "leaf" && $2 ~ /^helper \(fvar_shapes\.c:[0-9]+\)$/ {
	leaf = 1
	if ($5 != 2) { print "leaf: " $5 " paths, expected 2 (via_a and via_b): " $0; bad = 1 }
	if ($3 !~ /^via_[ab] \(fvar_shapes\.c:[0-9]+\) < run \(fvar_shapes\.c:[0-9]+\) < start_thread/) {
		print "leaf: path " $3; bad = 1 }
	if (!($4 >= 0.5 && $4 < 1)) { print "leaf: commonest path share " $4; bad = 1 }
}
$1 == "helper" {
	helper++
	if ($2 !~ /^via_[ab] \(/ || $5 != 1 || $3 !~ /^run \(fvar_shapes\.c:[0-9]+\) < start_thread/) {
		print "helper: " $0; bad = 1 }
}
END {
	if (!leaf) { print "no context of leaf at helper"; bad = 1 }
	if (helper != 2) { print helper + 0 " contexts of helper, expected 2"; bad = 1 }
	exit bad
}' "$tmp/paths.rows" >"$tmp/why" || fail "paths: $(cat "$tmp/why"); rows: $(cat "$tmp/paths.rows")"

fvar rec "$W/fvar_shapes" -m recursive -t 1
awk -F'\t' '$1 == "descend" && $2 ~ /^descend \(/ { found = 1
	if ($3 !~ /^(descend \(fvar_shapes\.c:[0-9]+\)( x[0-9]+)? < )?run \(fvar_shapes\.c:[0-9]+\) < start_thread/) {
		print "descend in descend: path " $3; bad = 1 }
	if ($5 < 2) { print "descend in descend: " $5 " paths"; bad = 1 } }
END { if (!found) print "no context of descend in descend"; exit bad || !found }' \
	"$tmp/rec.rows" >"$tmp/why" || fail "recursive: $(cat "$tmp/why")"

fvar none --stack 0 "$W/fvar_shapes" -m paths -t 0.3
awk -F'\t' '$3 != "" || $5 != 0 { bad = 1 } END { exit bad }' "$tmp/none.rows" ||
	fail "--stack 0 kept paths: $(cat "$tmp/none.rows")"

"$CDT" fvar -q --stack lots -o "$tmp/bad.data" "$W/fvar_shapes" -t 0.1 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 125 ] && grep -q -- '--stack takes' "$tmp/bad.err" ||
	fail "--stack lots: exit $rc: $(cat "$tmp/bad.err")"
echo "leaf: $(awk -F'\t' '$1 == "leaf" { print $5 " paths, commonest " $4 }' "$tmp/paths.rows");" \
	"descend in descend: $(awk -F'\t' '$1 == "descend" && $2 ~ /^descend/ { print $5 " paths" }' "$tmp/rec.rows")"
