#!/bin/sh
# cdt fvar against a real peer: uftrace, which times every call of a
# binary built with -pg.  Both run fvar_shapes_pg -m mix (bimodal: 1 or
# 10 units at random per call; steady: 5 units) and must agree on the wall
# time of a call.  Wall time on a shared machine has preemption in it, in
# either run and at random, so the comparison is robust to it: medians.
# And two runs on a shared VM go at speeds up to ~10% apart, so the kinds
# of calls are compared by their ratio to steady's median of the same run.
#   - bimodal's calls split at 5.5 units into its two kinds: the median of
#     each kind over steady's agrees within 10% plus 5 us (what cdt takes
#     out of an instance is measured at the start; on a loaded machine the
#     kernel's trap delivery drifts by a few us: +3.4 us seen, 15% of a
#     22 us call), and the share of 10-unit calls within
#     4 * 0.5 / sqrt(n) + 0.05 (binomial, n cdt's instances);
#   - steady's median agrees within 20% (the two runs' speeds);
#   - uftrace saw every call: its count is the calls cdt estimated, within
#     4 * sqrt(1/s + cv^2/n) + 10% (s samples, n instances; see fvar_mix.sh).
set -u
. "$(dirname "$0")/lib/common.sh"
need_debug_traps "fvar times instances between two traps"
need_workloads fvar_shapes_pg
command -v uftrace >/dev/null || { echo "skip: uftrace is not installed (make deps)"; exit 77; }
cd "$tmp" || exit 1 # a -pg program writes gmon.out where it runs

"$CDT" fvar -q -e wall,cpu -o "$tmp/fv.data" "$W/fvar_shapes_pg" -m mix -t 2 2>"$tmp/err" ||
	fail "cdt fvar: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/fv.data" --csv --view functions >"$tmp/fn" || fail "report functions"
"$CDT" report -i "$tmp/fv.data" --csv --view summary >"$tmp/summary" || fail "report summary"
samples=$(kv fvar_samples)

plain uftrace record -d "$tmp/uft" "$W/fvar_shapes_pg" -m mix -t 2 >"$tmp/uerr" 2>&1 ||
	fail "uftrace record: exit $?: $(cat "$tmp/uerr")"
# Every call's duration, in ns.
uftrace replay -d "$tmp/uft" -F bimodal -F steady -D 1 2>"$tmp/uerr" |
	awk '/\| (bimodal|steady)\(\);/ {
		v = $1; u = $2; f = $NF; sub(/\(\);$/, "", f)
		m = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 0
		if (m) print f, v * m
	}' >"$tmp/calls"
[ -s "$tmp/calls" ] || fail "uftrace replay gave no calls: $(cat "$tmp/uerr")"

"$CDT" report -i "$tmp/fv.data" --csv --view instances --top 0 >"$tmp/inst" || fail "report instances"
cols "$tmp/inst" function wall | awk -F'\t' '{ print $1, $2 }' >"$tmp/cdt"

# stats FILE F SPLIT: n, the share above SPLIT, and the medians below and above it.
stats() {
	awk -v f="$2" '$1 == f { print $2 }' "$1" | sort -g | awk -v cut="$3" '
		{ v[n++] = $1; if ($1 > cut) hi++ }
		END {
			lo = n - hi
			printf "%d %.4f %.0f %.0f\n", n, hi / n, lo ? v[int(lo / 2)] : 0, hi ? v[lo + int(hi / 2)] : 0
		}'
}
set -- $(stats "$tmp/cdt" steady 1e18) $(stats "$tmp/calls" steady 1e18)
echo "steady: cdt $1 instances, median $3 ns; uftrace $5 calls, median $7 ns"
awk -v a="$3" -v b="$7" 'BEGIN { exit !(a <= 1.2 * b && a >= 0.8 * b) }' ||
	fail "steady: medians disagree"
sc=$3 su=$7
cut_c=$(awk -v s="$sc" 'BEGIN { print 1.1 * s }') cut_u=$(awk -v s="$su" 'BEGIN { print 1.1 * s }')
set -- $(stats "$tmp/cdt" bimodal "$cut_c") $(stats "$tmp/calls" bimodal "$cut_u")
echo "bimodal: cdt $1 instances, $2 of them long, medians $3 and $4 ns; uftrace $5 calls, $6 long, medians $7 and $8 ns"
[ "$1" -ge 40 ] || fail "bimodal: $1 instances"
awk -v n="$1" -v a="$2" -v b="$6" -v l1="$3" -v l2="$7" -v h1="$4" -v h2="$8" -v sc="$sc" -v su="$su" 'BEGIN {
	tol = 4 * 0.5 / sqrt(n) + 0.05
	if (a - b > tol || b - a > tol) { printf "long share: margin %.3f\n", tol; exit 1 }
	l = l2 * sc / su; h = h2 * sc / su
	printf "over steady: short calls %.0f ns, expected %.0f; long calls %.0f ns, expected %.0f\n", l1, l, h1, h
	if (l1 - l > 0.1 * l + 5000 || l - l1 > 0.1 * l + 5000) { print "short calls median"; exit 1 }
	if (h1 - h > 0.1 * h + 5000 || h - h1 > 0.1 * h + 5000) { print "long calls median"; exit 1 }
}' || fail "bimodal: cdt and uftrace disagree"

for f in bimodal steady; do
	n=$(awk -v f=$f '$1 == f { n++ } END { print n + 0 }' "$tmp/calls")
	set -- $(cols "$tmp/fn" function instances calls_est share cpu_cv |
		awk -F'\t' -v f=$f '$1 == f { print $2, $3, $4, $5 }')
	[ $# -eq 4 ] || fail "no row for $f: $(cat "$tmp/fn")"
	awk -v n="$1" -v est="$2" -v share="$3" -v c="$4" -v s="$samples" -v u="$n" -v f=$f 'BEGIN {
		tol = 4 * sqrt(1 / (share * s) + c * c / n) + 0.1
		printf "%s: cdt estimated %d calls, uftrace counted %d (%+.1f%%, margin %.1f%%)\n", f, est, u, 100 * (est - u) / u, 100 * tol
		exit !((est - u) / u <= tol && (u - est) / u <= tol) }' || fail "$f: calls disagree"
done
