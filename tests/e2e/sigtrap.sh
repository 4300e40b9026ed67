#!/bin/sh
# A program with its own SIGTRAP handlers keeps them under cdt, whose agent
# also lives on SIGTRAP: every raise(), int3 and int1 of the sigtrap workload
# must reach the program's handler (installed with sigaction and with
# signal) exactly once, and sampling must go on meanwhile.  With SIGTRAP
# blocked by the program, it must still compute the right result and be
# sampled in both threads.
set -u

. "$(dirname "$0")/lib/common.sh"

need_workloads sigtrap

# Sanity: the workload passes on its own, so a failure below is cdt's.
plain "$W/sigtrap" 50 >"$tmp/out" 2>&1 || fail "the sigtrap workload fails without cdt: $(cat "$tmp/out")"

# A watchpoint is armed and the soft source steps: cdt must still pass
# the program's int1 on, though a debug trap whose cause a KVM guest lost
# looks the same to the kernel (TRAP_BRKPT).
"$CDT" record -F 4000 --watch sigtrap_rounds:rw -o "$tmp/s.data" "$W/sigtrap" 100 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] ||
	fail "sigtrap 100 under cdt: expected exit 0 (every trap handled), got $rc; stdout: $(cat "$tmp/out"); stderr: $(cat "$tmp/err")"
# Where the host leaves an int1's IP, as the workload found (cdt probe's
# int1_trap says the same): at it, signal()'s rounds execute no int1.
plain_want=300
if grep -q 'int1 leaves the IP at the int1' "$tmp/out"; then
	plain_want=200
	echo "$me: skip (part): int1 does not advance on this host, so the rounds with signal()'s handler execute none; the SA_SIGINFO rounds step over it, cdt passing each on"
fi
grep -q "saw 100 raise, 100 int3 and 100 int1 of 100 each, 0 other; signal handler saw $plain_want of $plain_want" "$tmp/out" ||
	fail "handler counts: expected 100 raise, 100 int3, 100 int1, then $plain_want; found: $(cat "$tmp/out")"
"$CDT" report -i "$tmp/s.data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
	fail "profile not readable: $(cat "$tmp/rerr")"
# -F 4000: ~0.5 s of CPU gives ~2000; 200 is generous.
[ "$(kv memory_samples)" -ge 200 ] 2>/dev/null ||
	fail "expected >= 200 memory samples, found '$(kv memory_samples)'"
if grep -q '^agent_error,' "$tmp/summary"; then
	fail "agent errors: $(grep '^agent_error,' "$tmp/summary")"
fi

"$CDT" record -F 4000 -o "$tmp/b.data" "$W/sigtrap" --block >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] ||
	fail "sigtrap --block under cdt: expected exit 0, got $rc; stdout: $(cat "$tmp/out"); stderr: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/b.data" --csv --view threads >"$tmp/threads.csv" 2>"$tmp/rerr" ||
	fail "profile not readable: $(cat "$tmp/rerr")"
[ "$(($(wc -l <"$tmp/threads.csv") - 1))" -eq 2 ] ||
	fail "sigtrap --block runs 2 threads; the profile has: $(cat "$tmp/threads.csv")"
[ "$(head -n 1 "$tmp/threads.csv" | cut -d, -f6)" = mem_samples ] ||
	fail "threads CSV: expected column 6 to be mem_samples: $(head -n 1 "$tmp/threads.csv")"
# Each thread works ~0.25 s with SIGTRAP "blocked".
awk -F, 'NR > 1 && $6 < 100 { bad = 1 } END { exit bad }' "$tmp/threads.csv" ||
	fail "with SIGTRAP blocked by the program, each thread must still be sampled (>= 100): $(cat "$tmp/threads.csv")"
exit 0
