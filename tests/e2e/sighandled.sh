#!/bin/sh
# A program that handles SIGINT and exits 0 by itself: cdt passes the
# signal on, and reports how the program really ended (status 0, said on
# stderr, "normally" in the summary), not as an interrupted run.
set -u
. "$(dirname "$0")/lib/common.sh"

need_workloads exitwith
"$CDT" record -o "$tmp/i.data" "$W/exitwith" --on-int 0 >"$tmp/out" 2>"$tmp/err" </dev/null &
cdt_pid=$!
n=0
until grep -q ready "$tmp/out" 2>/dev/null; do
	n=$((n + 1))
	[ $n -le 200 ] || fail "the program did not start within 20 s: $(cat "$tmp/err")"
	sleep 0.1
done
kill -INT "$cdt_pid"
wait "$cdt_pid"
rc=$?
cdt_pid=''
[ "$rc" -eq 0 ] || fail "expected exit 0 (the program's), got $rc: $(cat "$tmp/err")"
grep -q "exited with status 0 after cdt passed on SIGINT" "$tmp/err" ||
	fail "no line saying how the program ended: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/i.data" --csv --view summary >"$tmp/summary" || fail "report failed"
[ "$(kv ended)" = normally ] || fail "summary ended: '$(kv ended)', expected normally"
