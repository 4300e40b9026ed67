#!/bin/sh
# The program writes into cdt's shared buffer a well-formed mapping record
# that names a FIFO.  Symbolizing opens every mapped path: cdt must not
# wait for a writer on it (it used to hang after the program had ended,
# and write no profile), nor take it for a module.  Also an empty mapping
# (start = end), refused at the boundary: it used to make cdt give up
# symbolizing the whole profile.
set -u

. "$(dirname "$0")/lib/common.sh"
need_workloads arena_scribbler

mkfifo "$tmp/fifo" || fail "mkfifo"
for tool in record comm; do
	timeout 60 "$CDT" "$tool" -o "$tmp/$tool.data" "$W/arena_scribbler" mapfifo "$tmp/fifo" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ "$rc" -ne 124 ] || fail "cdt $tool: hung on the FIFO (killed by timeout after 60 s)"
	[ "$rc" -eq 3 ] || fail "cdt $tool: expected the program's status 3, got $rc: $(tail -c 2000 "$tmp/err")"
	! grep -q 'symbolization failed' "$tmp/err" ||
		fail "cdt $tool: one bad mapping stopped all symbolization: $(cat "$tmp/err")"
	"$CDT" report -i "$tmp/$tool.data" --csv --view summary >"$tmp/summary" ||
		fail "cdt $tool: no readable profile"
	[ "$(kv rejected_records)" = 1 ] ||
		fail "cdt $tool: expected the empty mapping refused, rejected_records is $(kv rejected_records)"
	[ "$tool" = record ] || continue
	"$CDT" report -i "$tmp/$tool.data" --csv --view functions >"$tmp/fn.csv" || fail "cdt report"
	grep -q '^mem_work ' "$tmp/fn.csv" ||
		fail "cdt $tool: the program's samples are not in mem_work: $(head -5 "$tmp/fn.csv")"
done
exit 0
