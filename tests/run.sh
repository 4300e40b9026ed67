#!/bin/sh
# The test runner of `make check`: unit tests (cmocka, ASan/UBSan), the
# fuzz corpus replay, then end-to-end tests (tests/e2e/*.sh) against the
# ASan/UBSan front end.  A test passes with 0, skips with 77 (its first
# line starting "skip" says why) and fails otherwise.  Every test runs
# under a time limit (TEST_TIMEOUT seconds, 300 by default; the NUMA
# guest's 600): one past it is killed with everything it started and
# fails by name, never a silent wait.  The last line is the summary.
: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
export CDT BUILD CDT_PLAIN
# The agent runs inside targets without ASan; the front end's leak checker
# must not follow the target through fork.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0 failed=""
log=$(mktemp)
# Tests never touch the user's cache: the suite's own, so the sample
# clock is calibrated once a suite (lib/core/clockcal.c), by its first run.
cache=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$cache"' EXIT
export XDG_CACHE_HOME="$cache"

# timeout runs the test in a process group of its own and kills the
# whole group (cdt, the programs, qemu) when the limit passes.
run() {
	name=$1; shift
	limit=${TEST_TIMEOUT:-300}
	case $name in e2e/numa_guest) limit=${TEST_TIMEOUT:-600} ;; esac
	t0=$(date +%s)
	timeout -k 10 "$limit" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - t0))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "ok   $name (${secs} s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "skip $name: $(grep -m1 '^skip' "$log" | sed 's/^skip: *//')"
	else
		fail=$((fail + 1)); failed="$failed $name"
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			echo "FAIL $name: timed out after $limit s (TEST_TIMEOUT), killed"
		else
			echo "FAIL $name (exit $rc, ${secs} s)"
		fi
		sed 's/^/    /' "$log" | tail -40
	fi
}

for t in "$BUILD"/asan/tests/test_* "$BUILD"/tests/agent_*; do
	[ -x "$t" ] && run "unit/$(basename "$t")" "$t"
done
if [ -x "$BUILD/asan/tests/fuzz_replay" ]; then
	run fuzz/corpus-replay "$BUILD/asan/tests/fuzz_replay" "$top/tests/fuzz/corpus"
fi
# The front end behind the reader: its own corpus, and the reader's too.
if [ -x "$BUILD/asan/tests/fuzz_replay_profile" ]; then
	run fuzz/profile-replay "$BUILD/asan/tests/fuzz_replay_profile" \
		"$top/tests/fuzz/corpus-profile" "$top/tests/fuzz/corpus"
fi
for t in "$top"/tests/e2e/*.sh; do
	[ -f "$t" ] && run "e2e/$(basename "$t" .sh)" sh "$t"
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
