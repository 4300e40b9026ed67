#!/bin/sh
# cdt never runs out of stack on a stack the program chose.  altstack's
# two threads each catch 300 overflows of their own stack in a SIGSEGV
# handler on the smallest alternate stack that holds the kernel's frame
# and the handler (AT_MINSIGSTKSZ + 2 KiB).  The kernel puts cdt's frames
# there too; before the fix 15-25% of the runs under cdt record died of
# SIGSEGV (cdt's handler ran out of that stack, or a frame of cdt's nested
# on it while the program's handler ran).  A run of each tool must pass
# RUNS times (50: with a 15% failure rate, all 50 pass by chance with
# probability 3e-4).  The plain front end runs them: the agent is the same.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads altstack

RUNS=${ALTSTACK_RUNS:-50}
plain "$W/altstack" 300 >"$tmp/out" 2>&1 || fail "altstack fails without cdt: $(cat "$tmp/out")"
read -r size min <<EOF
$("$W/altstack" --min)
EOF
echo "$me: alternate stacks of $size bytes (AT_MINSIGSTKSZ $min)"
for tool in record comm fvar numa membound; do
	i=0
	while [ $i -lt "$RUNS" ]; do
		"${CDT_PLAIN:-$CDT}" $tool -q -o "$tmp/a.data" "$W/altstack" 300 >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc -eq 0 ] || fail "cdt $tool: run $((i + 1)) of $RUNS exited $rc: $(cat "$tmp/out") $(tail -n 3 "$tmp/err")"
		grep -q 'caught 600 of 600' "$tmp/out" || fail "cdt $tool: run $((i + 1)): $(cat "$tmp/out")"
		i=$((i + 1))
	done
	echo "$me: cdt $tool: $RUNS of $RUNS runs passed"
	[ $tool = record ] || continue
	# Sampled all the same (~100 samples at 1 kHz at most).
	"$CDT" report -i "$tmp/a.data" --csv --view summary >"$tmp/summary" 2>/dev/null ||
		fail "the last profile is not readable"
	[ "$(kv samples_taken)" -ge 10 ] 2>/dev/null ||
		fail "cdt record: expected samples, found $(kv samples_taken)"
	echo "$me: cdt record: $(kv samples_taken) samples, $(kv async_traps) held off in the handler"
done
exit 0
