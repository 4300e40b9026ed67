#!/bin/sh
# Scale: 200 threads alive at once, and 200 short-lived threads (8 at a
# time).  Every thread the workload reports must appear in the threads
# view, the program must exit 0, and the agent must report no error and
# drop no record.
set -u

. "$(dirname "$0")/lib/common.sh"

need_workloads threads

# check WHAT ARGS...: run the threads workload under cdt and check it.
check() {
	what=$1
	shift
	rm -f "$tmp/tids" "$tmp/m.data"
	THREADS_TIDFILE=$tmp/tids "$CDT" record -o "$tmp/m.data" "$W/threads" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "$what: expected exit 0, got $rc; stderr: $(tail -c 2000 "$tmp/err")"
	[ "$(wc -l <"$tmp/tids")" -eq 201 ] ||
		fail "$what: the workload reported $(wc -l <"$tmp/tids") threads, expected 201"
	# Messages other than the banner and the summary line start "cdt: ".
	if grep -q '^cdt: ' "$tmp/err"; then
		fail "$what: cdt reported problems: $(cat "$tmp/err")"
	fi

	"$CDT" report -i "$tmp/m.data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
		fail "$what: summary not readable: $(cat "$tmp/rerr")"
	if grep -q '^agent_error,' "$tmp/summary"; then
		fail "$what: agent errors: $(grep '^agent_error,' "$tmp/summary")"
	fi
	[ "$(kv dropped_records)" = 0 ] || fail "$what: dropped_records: expected 0, found '$(kv dropped_records)'"
	[ "$(kv exit_status)" = 0 ] || fail "$what: exit_status: expected 0, found '$(kv exit_status)'"
	[ "$(kv threads)" -ge 201 ] 2>/dev/null ||
		fail "$what: summary threads: expected >= 201, found '$(kv threads)'"

	"$CDT" report -i "$tmp/m.data" --csv --top 0 --view threads >"$tmp/threads.csv" 2>"$tmp/rerr" ||
		fail "$what: threads view failed: $(cat "$tmp/rerr")"
	rows=$(($(wc -l <"$tmp/threads.csv") - 1))
	[ "$rows" -ge 201 ] || fail "$what: threads view: expected >= 201 rows, found $rows"
	# Every tid the workload reported is in the view (column 3 is tid).
	awk '{ print $2 }' "$tmp/tids" >"$tmp/want"
	awk -F, 'NR == FNR { if (FNR > 1) seen[$3] = 1; next } !($1 in seen) { print $1 }' \
		"$tmp/threads.csv" "$tmp/want" >"$tmp/missing"
	[ ! -s "$tmp/missing" ] ||
		fail "$what: $(wc -l <"$tmp/missing") threads missing from the profile, tids: $(head -n 10 "$tmp/missing" | tr '\n' ' ')"
}

check "200 concurrent threads" 200 0.002
check "200 short-lived threads" --short 200
exit 0
