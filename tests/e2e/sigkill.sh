#!/bin/sh
# The program is killed from outside with SIGKILL: nothing in it can run,
# yet cdt must exit 137, say the program was killed, and write a readable
# profile holding the samples taken until then, and the agent's own
# statistics of every thread (sent now and then while the threads run).
set -u

. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/killed.sh"

need_workloads sleeper

start_sleeper "$tmp/k.data"
sleep 0.5 # let the three threads collect samples
kill -KILL "$target" || fail "cannot send SIGKILL to $target"
wait "$cdt_pid"
rc=$?
cdt_pid='' target=''
check_killed "$tmp/k.data" 9 SIGKILL
[ "$(kv threads)" -eq 3 ] 2>/dev/null || fail "expected the 3 threads of the sleeper, found '$(kv threads)'"

# The stats: ~1200 timer samples per thread; the latest snapshot (at most
# 0.1 s old) holds most of them.
[ "$(kv samples_taken)" -gt 0 ] 2>/dev/null ||
	fail "summary samples_taken: expected > 0 after SIGKILL, found '$(kv samples_taken)'"
awk -v v="$(kv us_per_sample)" 'BEGIN { exit !(v + 0 > 0) }' ||
	fail "summary us_per_sample: expected > 0 after SIGKILL, found '$(kv us_per_sample)'"
[ "$(head -n 1 "$tmp/threads.csv" | cut -d, -f5)" = samples ] ||
	fail "threads CSV: expected column 5 to be samples: $(head -n 1 "$tmp/threads.csv")"
awk -F, 'NR > 1 && $5 < 1 { bad = 1 } END { exit bad }' "$tmp/threads.csv" ||
	fail "expected agent stats (samples > 0) for every thread: $(cat "$tmp/threads.csv")"

"$CDT" report -i "$tmp/k.data" >/dev/null 2>"$tmp/rerr" ||
	fail "the text report of the profile failed: $(cat "$tmp/rerr")"
exit 0
