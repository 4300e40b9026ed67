#!/bin/sh
# cdt fvar's command line and edges:
#   - a PMU event on a host without a PMU, or an unknown metric: exit 125,
#     and the metrics this host offers are listed;
#   - bad --depth, --flag-* and too many metrics: exit 125, one line;
#   - a program too short for any sample: exit 0 and a report that says no
#     instance was measured; the program's exit status is cdt's;
#   - --help names the metrics.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads exitwith

expect_125() {
	what=$1
	shift
	"$CDT" fvar -o "$tmp/x.data" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 125 ] || fail "$what: exit $rc, expected 125: $(cat "$tmp/err")"
	[ -s "$tmp/err" ] || fail "$what: no message"
	[ ! -s "$tmp/out" ] || fail "$what: wrote to stdout"
	[ ! -e "$tmp/x.data" ] || fail "$what: wrote a profile"
}
if ! "$CDT" probe 2>/dev/null | grep -q 'source.*pmu'; then
	expect_125 "-e cycles without a PMU" -e cycles "$W/exitwith" 0
	grep -q 'needs a hardware PMU' "$tmp/err" || fail "-e cycles: $(cat "$tmp/err")"
	grep -q 'metrics without a PMU: wall cpu faults cs migrations' "$tmp/err" ||
		fail "-e cycles: the metrics are not listed: $(cat "$tmp/err")"
fi
expect_125 "-e bogus" -e bogus "$W/exitwith" 0
grep -q 'metrics without a PMU' "$tmp/err" || fail "-e bogus: $(cat "$tmp/err")"
expect_125 "five metrics" -e cpu,wall,faults,cs,migrations "$W/exitwith" 0
expect_125 "--depth 0" --depth 0 "$W/exitwith" 0
expect_125 "--depth 65" --depth 65 "$W/exitwith" 0
expect_125 "--flag-cv x" --flag-cv x "$W/exitwith" 0
expect_125 "-e ''" -e , "$W/exitwith" 0

"$CDT" fvar -o "$tmp/short.data" "$W/exitwith" 3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 3 ] || fail "a short program's status 3 became $rc: $(cat "$tmp/err")"
grep -q 'no function instance was measured' "$tmp/err" ||
	fail "a short program: the report does not say nothing was measured: $(cat "$tmp/err")"

"$CDT" fvar --help >"$tmp/help" || fail "--help failed"
for m in cpu wall faults cs migrations; do
	grep -q "^ *$m " "$tmp/help" || fail "--help does not name the metric $m"
done
echo "fvar: usage errors exit 125; a short program keeps its status"
