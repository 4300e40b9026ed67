#!/bin/sh
# The overhead budget (--max-overhead, lib/agent/clock.c) and the sample
# clocks, on two programs whose behaviour is known:
#   - threads 2: two threads compute on the two CPUs, hardly switching.
#     At the defaults the perf clock keeps sampling (it buys more samples
#     than a tick's), the summary's own estimate of what the samples cost
#     stays within the budget, and a budget five times smaller keeps
#     its own and gives fewer samples per CPU second;
#   - handoff: 8 threads hand work on every 10 us (tens of thousands of
#     switches, each 10-20 us under a perf clock in a VM): the governor
#     moves them to the POSIX clock, which most samples then come from.
#   - -F fixes the rate: no budget, a warning when the rate costs more
#     than the budget, and about the rate asked for; --clock posix at
#     100 Hz samples at about 100 Hz, all from the POSIX clock.
#   - bad values of --max-overhead and --clock are refused (exit 125).
# The estimate weighs the counts with this machine's calibration; the
# estimate's bound here is the budget plus a half for the first window
# of each thread, spent before its cost is known (1 ms of CPU on the
# perf clock).  The rates are those of the agent's own accounting: a
# sample is counted, or not, whatever the machine's load.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads threads handoff

# run NAME OPTS... -- PROG ARGS: record, and the summary into $tmp/summary.
run() {
	name=$1
	shift
	"$CDT" record -o "$tmp/$name.data" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
		fail "$name: exit $?: $(tail -n 5 "$tmp/$name.err")"
	"$CDT" report -i "$tmp/$name.data" --csv --view summary >"$tmp/summary" ||
		fail "$name: report failed"
	cp "$tmp/summary" "$tmp/$name.summary"
}

# est: the overhead estimate's percentage from the summary.
est() {
	kv overhead_est | sed 's/^"//; s/%.*//'
}

check() { # check NAME AWK-CONDITION MESSAGE (with v, r, p set)
	awk -v v="$(est)" -v r="$(kv sample_rate_hz)" -v p="$(kv sample_clock_posix)" \
		"BEGIN { exit !($2) }" || fail "$1: $3 (overhead_est $(kv overhead_est), " \
		"sample_rate_hz $(kv sample_rate_hz), sample_clock_posix $(kv sample_clock_posix))"
}

run compute -- "$W/threads" 2 0.5
[ "$(kv overhead_budget)" = 5% ] || fail "compute: overhead_budget $(kv overhead_budget), not 5%"
grep -q '5% overhead budget' "$tmp/compute.err" || fail "the banner names no budget: $(cat "$tmp/compute.err")"
check compute "v != \"\" && v <= 7.5" "the estimate is over the budget"
check compute "p <= 0.5" "most samples should come from the perf clock"
rate=$(kv sample_rate_hz)
echo "compute: $(kv overhead_est), $rate samples/s, posix share $(kv sample_clock_posix)"

run small --max-overhead 1 -- "$W/threads" 2 0.5
[ "$(kv overhead_budget)" = 1% ] || fail "small: overhead_budget $(kv overhead_budget), not 1%"
check small "v <= 1.5 && r < $rate" "a budget of 1% must cost <= 1.5% and sample less than 5% does"
echo "--max-overhead 1: $(kv overhead_est), $(kv sample_rate_hz) samples/s"

run handoff -- "$W/handoff" none 1 8 40000 10
check handoff "p >= 0.7" "a program that switches every 10 us must go to the POSIX clock"
check handoff "v <= 7.5" "the estimate is over the budget"
echo "handoff: $(kv overhead_est), $(kv sample_rate_hz) samples/s, posix share $(kv sample_clock_posix)"

run fixed -F 5000 -- "$W/threads" 2 0.5
case $(kv overhead_budget) in none*) ;; *) fail "-F: overhead_budget $(kv overhead_budget)" ;; esac
grep -q 'over the 5% overhead budget; the rate given overrides it' "$tmp/fixed.err" ||
	fail "-F 5000: no warning of its cost: $(cat "$tmp/fixed.err")"
check fixed "r >= 2500" "-F 5000 must sample near 5 kHz"

run posix --clock posix -F 100 -- "$W/threads" 2 0.5
[ "$(kv sample_clock)" = posix ] || fail "posix: sample_clock $(kv sample_clock)"
check posix "p == 1 && r >= 60 && r <= 110" "--clock posix -F 100 must sample about 100 Hz, all POSIX"

for bad in -1 101 abc 5x ''; do
	"$CDT" record --max-overhead "$bad" -o "$tmp/x.data" "$W/threads" 1 0.01 >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 125 ] || fail "--max-overhead '$bad': exit $rc, not 125"
	grep -q -- '--max-overhead takes a percentage' "$tmp/err" ||
		fail "--max-overhead '$bad': $(cat "$tmp/err")"
done
"$CDT" record --clock tick -o "$tmp/x.data" "$W/threads" 1 0.01 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 125 ] && grep -q -- '--clock takes auto, perf or posix' "$tmp/err" ||
	fail "--clock tick: exit $rc: $(cat "$tmp/err")"
exit 0
