#!/bin/sh
# cdt's own frames are never reported as the program's.  objects --churn
# makes 3e6 malloc+free pairs, and with --objects every one runs cdt's
# bookkeeping in the agent's interposers (and the vDSO clock it reads):
# 72% of the samples once fell there, shown as the program's with no
# function.  Samples that find the thread in the agent's code, or the
# agent at work (objects' bookkeeping, module walks, thread start and
# end, exit, exec), are left out and counted: the summary's
# samples_in_cdt.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads objects

timeout 120 "$CDT" record --objects -F 1000 -o "$tmp/ob.data" "$W/objects" --churn 3000000 \
	>/dev/null 2>"$tmp/err" || fail "cdt record objects --churn: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/ob.data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
	fail "report summary: $(cat "$tmp/rerr")"
"$CDT" report -i "$tmp/ob.data" --csv --top 0 --view samples >"$tmp/s.csv" 2>"$tmp/rerr" ||
	fail "report samples: $(cat "$tmp/rerr")"
own=$(kv samples_in_cdt)
taken=$(kv samples_taken)
echo "samples: $taken taken, $own in cdt's own work"
[ -n "$own" ] && [ "$own" -gt 0 ] 2>/dev/null ||
	fail "summary samples_in_cdt: expected > 0 (cdt's interposers run at every malloc), found '$own'"
# Every sample left is the program's: a function of its own or of libc
# (a few land in its PLT stubs, which have no symbol: 2 in 92 seen).
cols "$tmp/s.csv" function | awk '
	{ n++ } $0 == "" || /cdt agent/ || /^[0-9]+[+@]0x/ { bad++ }
	END { printf "%d of %d samples outside the program\n", bad, n; exit n == 0 || bad * 10 > n }' \
	>"$tmp/why" || fail "samples in cdt's own code shown as the program's: $(cat "$tmp/why")"
exit 0
