#!/bin/sh
# Calls shorter than cdt can time, against uftrace: fvar_shapes -m short
# calls f50, f500 and f5u (about 70 ns, 0.7 us and 7 us here), a third of
# the time each.  R is the run's resolution_cpu (3 spreads of the trap
# calibration, 1-2 us on a KVM guest).  An empty call reads up to about
# R/2 there: the calibration's median leaves the heavy tail of the traps'
# cost in the mean (f50 read 0.49-0.54 us at R 0.97-1.4 us before
# fvar said "untimed").  So, with u a function's median call by uftrace:
#   - u < R/2: untimed, with no mean, no CV and no flag; f50 always is,
#     and its calls_est is a lower bound: under the calls the program made
#     (its -T count), and over half its CPU time (calls times their mean,
#     -T) over R: the samples' time is within 4 sd of it (binomial, some
#     170 samples of f50 at the least);
#   - u > 1.5 R: timed, with a CPU mean within 10% + R of u (R bounds
#     what the calibration can leave in; uftrace's own mcount is part of
#     the 10%);
#   - between the two, either;
#   - a flagged function is always a timed one.
# On a host whose R is over 3.5 us, f5u is within R's reach: that part is
# skipped with a line, the rest holds.
set -u
. "$(dirname "$0")/lib/common.sh"
need_debug_traps "fvar times instances between two traps"
need_workloads fvar_shapes fvar_shapes_pg
command -v uftrace >/dev/null || { echo "skip: uftrace is not installed (make deps)"; exit 77; }
cd "$tmp" || exit 1 # a -pg program writes gmon.out where it runs

"$CDT" fvar -q -e cpu,wall -F 1000 -o "$tmp/fv.data" "$W/fvar_shapes" -m short -n 2 -t 1 \
	-T "$tmp/truth" 2>"$tmp/err" || fail "cdt fvar: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/fv.data" --csv --view functions >"$tmp/fn" || fail "report functions"
"$CDT" report -i "$tmp/fv.data" --csv --view summary >"$tmp/summary" || fail "report summary"
"$CDT" report -i "$tmp/fv.data" --view findings >"$tmp/findings" || fail "report findings"
R=$(kv resolution_cpu)
[ -n "$R" ] || fail "no resolution_cpu in the summary"
echo "resolution_cpu $R ns; functions_untimed $(kv functions_untimed)"

# Each call of the three, by uftrace (the filter keeps its data small).
plain uftrace record -d "$tmp/uft" -F f50 -F f500 -F f5u "$W/fvar_shapes_pg" -m short -n 2 \
	-N 200 >"$tmp/uerr" 2>&1 || fail "uftrace record: exit $?: $(cat "$tmp/uerr")"
uftrace replay -d "$tmp/uft" -D 1 2>"$tmp/uerr" |
	awk '/\| f(50|500|5u)\(\);/ {
		v = $1; u = $2; f = $NF; sub(/\(\);$/, "", f)
		m = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 0
		if (m) print f, v * m
	}' >"$tmp/calls"
[ -s "$tmp/calls" ] || fail "uftrace replay gave no calls: $(cat "$tmp/uerr")"

# Every flagged function is timed.
cols "$tmp/fn" function flagged timed | awk -F'\t' '$2 == 1 && $3 != 1 { print; bad = 1 } END { exit bad }' ||
	fail "a function under the resolution is flagged: $(cat "$tmp/fn")"

for f in f50 f500 f5u; do
	u=$(awk -v f=$f '$1 == f { print $2 }' "$tmp/calls" | sort -g | awk '{ v[n++] = $1 } END { if (n) print v[int(n / 2)] }')
	[ -n "$u" ] || fail "$f: uftrace saw no call"
	set -- $(cols "$tmp/fn" function flagged instances calls_est share timed cpu_mean cpu_cv |
		awk -F'\t' -v f=$f '$1 == f { print $2, $3, $4, $5, $6, ($7 == "" ? "-" : $7), ($8 == "" ? "-" : $8) }')
	[ $# -eq 7 ] || fail "$f: no row: $(cat "$tmp/fn")"
	echo "$f: uftrace median $u ns; cdt: $2 instances, timed $5, cpu mean $6 ns, cv $7, share $4, calls_est $3, flagged $1"
	[ "$2" -ge 30 ] || fail "$f: $2 instances"
	if [ "$f" = f50 ]; then
		set -- "$@" $(awk '$1 == "f50" { print $2, $3 }' "$tmp/truth")
		[ "$5" = 0 ] && [ "$6" = - ] && [ "$7" = - ] && [ "$1" = 0 ] ||
			fail "f50: a 70 ns call is given a time, a CV or a flag"
		awk -v s="$4" 'BEGIN { exit !(s > 0.15) }' || fail "f50: share $4, a third of the time expected"
		awk -v e="$3" -v n="$8" -v m="$9" -v r="$R" 'BEGIN { exit !(e <= 1.1 * n && e >= 0.5 * n * m / r) }' ||
			fail "f50: calls_est $3 is no lower bound of the $8 calls made, or under half of $8 x $9 ns / R"
		grep -q "f50: shorter than cdt can time here" "$tmp/findings" ||
			fail "f50: the findings do not say it is too short: $(cat "$tmp/findings")"
		continue
	fi
	if awk -v u="$u" -v r="$R" 'BEGIN { exit !(u < r / 2) }'; then
		[ "$5" = 0 ] && [ "$6" = - ] || fail "$f: a $u ns call at resolution $R ns is given a time"
	elif awk -v u="$u" -v r="$R" 'BEGIN { exit !(u > 1.5 * r) }'; then
		if [ "$f" = f5u ] && awk -v r="$R" 'BEGIN { exit !(r > 3500) }'; then
			echo "skip part: f5u is within reach of a resolution of $R ns on this host"
			continue
		fi
		[ "$5" = 1 ] || fail "$f: a $u ns call at resolution $R ns is not timed"
		awk -v m="$6" -v u="$u" -v r="$R" 'BEGIN { d = m - u; if (d < 0) d = -d
			printf "  off by %.0f ns, margin %.0f\n", d, 0.1 * u + r; exit !(d <= 0.1 * u + r) }' ||
			fail "$f: cdt's mean $6 ns against uftrace's $u"
	else
		echo "  between R/2 and 1.5 R: timed or not"
	fi
done
exit 0
