#!/bin/sh
# --watch: debug registers armed in every thread.  watchme's workers each
# call bump() exactly K times, and bump() is the only writer of
# watched_counter (one atomic 8-byte add).  Debug registers do not sample,
# so the counts must be exact:
#   watched_counter:w  K traps per worker, each an rmw/store of 8 bytes
#                      located in bump(); none in the main thread
#   watched_counter:rw the same for workers; the main thread's final read
#                      traps too
#   bump:x             K traps per worker at bump's entry
# Bad specs fail with 125 before anything runs.
set -u

. "$(dirname "$0")/lib/common.sh"

need_debug_traps "--watch records traps only"
need_workloads watchme

NT=3
K=5000

# record SPEC [OPTION...]: run watchme under --watch SPEC; traps in
# $tmp/traps (tid kind size location watched insn object), threads in
# $tmp/threads (tid traps).
record() {
	rm -f "$tmp/tids" "$tmp/w.data"
	_spec=$1
	shift
	WATCHME_TIDFILE=$tmp/tids "$CDT" record -o "$tmp/w.data" "$@" --watch "$_spec" "$W/watchme" $NT $K \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "--watch $1: expected exit 0, got $rc; stdout: $(cat "$tmp/out"); stderr: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/tids")" -eq $((NT + 1)) ] || fail "--watch $1: the workload wrote no tids"
	main=$(awk '$1 == 0 { print $2 }' "$tmp/tids")
	"$CDT" report -i "$tmp/w.data" --csv --top 0 --view traps >"$tmp/traps.csv" 2>"$tmp/rerr" ||
		fail "--watch $1: traps view failed: $(cat "$tmp/rerr")"
	cols "$tmp/traps.csv" tid kind size location watched insn object >"$tmp/traps" ||
		fail "--watch $1: bad traps CSV"
	"$CDT" report -i "$tmp/w.data" --csv --top 0 --view threads >"$tmp/threads.csv" 2>"$tmp/rerr" ||
		fail "--watch $1: threads view failed: $(cat "$tmp/rerr")"
	cols "$tmp/threads.csv" tid traps >"$tmp/threads" || fail "--watch $1: bad threads CSV"
}

# worker_counts SPEC: each worker trapped exactly K times, in both views.
worker_counts() {
	awk 'NR > 1 { print $2 }' "$tmp/tids" | while read -r tid; do
		n=$(awk -F'\t' -v t="$tid" '$1 == t { n++ } END { print n + 0 }' "$tmp/traps")
		[ "$n" -eq $K ] || fail "--watch $1: worker tid $tid: expected exactly $K traps, the traps view has $n"
		n=$(awk -F'\t' -v t="$tid" '$1 == t { print $2 }' "$tmp/threads")
		[ "$n" = $K ] || fail "--watch $1: worker tid $tid: expected $K traps in the threads view, found '$n'"
	done || exit 1
}

# main_traps: how many traps the main thread took.
main_traps() {
	awk -F'\t' -v t="$main" '$1 == t { n++ } END { print n + 0 }' "$tmp/traps"
}

# Writes: each one an rmw (or store) of 8 bytes, in bump(), on the counter.
record watched_counter:w
worker_counts watched_counter:w
[ "$(main_traps)" -eq 0 ] || fail "--watch watched_counter:w: the main thread never writes, yet trapped $(main_traps) times"
[ "$(wc -l <"$tmp/traps")" -eq $((NT * K)) ] ||
	fail "--watch watched_counter:w: expected $((NT * K)) traps in all, found $(wc -l <"$tmp/traps")"
awk -F'\t' '($2 != "rmw" && $2 != "store") || $3 != 8 || $4 !~ /^bump[ +(]/ || $7 != "watched_counter" {
	print; exit 1 }' "$tmp/traps" >"$tmp/bad" ||
	fail "--watch watched_counter:w: expected every trap to be an 8-byte rmw or store in bump() on watched_counter; found (tid kind size location watched insn object): $(cat "$tmp/bad")"

# The POSIX sample clock signals with a real-time signal, which queues:
# while its SIGTRAP was pending, the kernel discarded a watchpoint's (1 to
# 47 of 20000 lost a run).  Exact there too, and cdt counts no trap lost.
record watched_counter:w --clock posix
worker_counts watched_counter:w
"$CDT" report -i "$tmp/w.data" --csv --view summary >"$tmp/summary" 2>/dev/null || fail "summary"
[ "$(kv sample_clock_posix)" = 1.00 ] ||
	fail "--clock posix: expected every sample from the POSIX clock, found $(kv sample_clock_posix)"
[ "$(kv samples_taken)" -ge 20 ] 2>/dev/null ||
	fail "--clock posix: expected samples to meet the traps, found $(kv samples_taken)"

# Reads and writes: the workers as before, and the main thread's read.
record watched_counter:rw
worker_counts watched_counter:rw
[ "$(main_traps)" -ge 1 ] || fail "--watch watched_counter:rw: the main thread reads the counter, yet never trapped"

# Calls: the breakpoint at bump's entry; the trap is at the watched address.
record bump:x
worker_counts bump:x
[ "$(main_traps)" -eq 0 ] || fail "--watch bump:x: the main thread never calls bump(), yet trapped $(main_traps) times"
awk -F'\t' '$2 != "exec" || $4 !~ /^bump[ +(]/ || $5 != $6 { print; exit 1 }' "$tmp/traps" >"$tmp/bad" ||
	fail "--watch bump:x: expected exec traps at bump's entry (insn = watched); found (tid kind size location watched insn object): $(cat "$tmp/bad")"

# Bad specs: 125 and a message, before the program runs.
for spec in no_such_symbol_xyz watched_counter:q watched_counter:w:3 0x1001:w:8; do
	"$CDT" record -o "$tmp/bad.data" --watch "$spec" "$W/watchme" 1 1 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 125 ] || fail "--watch $spec: expected exit 125, got $rc"
	[ -s "$tmp/err" ] || fail "--watch $spec: expected a message on stderr"
	[ ! -s "$tmp/out" ] || fail "--watch $spec: the program must not run; it printed: $(cat "$tmp/out")"
done
exit 0
