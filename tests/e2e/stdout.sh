#!/bin/sh
# The program owns its stdout: a run of cdt writes nothing there, so a
# pipeline such as `cdt comm pigz -c f > f.gz` keeps its stream.  The
# run's report goes to stderr (as perf stat's and time's), and -q drops
# it; `cdt report` prints it on stdout.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads stdout_bytes

plain "$W/stdout_bytes" 8 >"$tmp/plain" || fail "plain run failed"
for tool in comm fvar record; do
	"$CDT" $tool -o "$tmp/$tool.data" "$W/stdout_bytes" 8 >"$tmp/$tool.out" 2>"$tmp/$tool.err" ||
		fail "cdt $tool: exit $?: $(tail -n 5 "$tmp/$tool.err")"
	cmp "$tmp/plain" "$tmp/$tool.out" >&2 ||
		fail "cdt $tool changed the program's stdout ($(wc -c <"$tmp/$tool.out") bytes, plain $(wc -c <"$tmp/plain"))"
done
grep -q '^Findings' "$tmp/comm.err" || fail "cdt comm: no report on stderr: $(head -n 5 "$tmp/comm.err")"
grep -q "^Findings" "$tmp/fvar.err" || fail "cdt fvar: no report on stderr: $(head -n 5 "$tmp/fvar.err")"
"$CDT" comm -q -o "$tmp/q.data" "$W/stdout_bytes" 1 >/dev/null 2>"$tmp/q.err" || fail "cdt comm -q failed"
[ ! -s "$tmp/q.err" ] || fail "cdt comm -q wrote to stderr: $(head -n 3 "$tmp/q.err")"
"$CDT" report -i "$tmp/comm.data" >"$tmp/report" 2>"$tmp/rerr" || fail "cdt report failed: $(cat "$tmp/rerr")"
grep -q '^Findings' "$tmp/report" || fail "cdt report: no report on stdout"
