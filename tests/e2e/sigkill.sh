#!/bin/sh
# The program is killed from outside with SIGKILL: nothing in it can run,
# yet cdt must exit 137, say the program was killed, and write a readable
# profile holding the samples taken until then.
set -u

: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
W=$BUILD/workloads
tmp=$(mktemp -d) || exit 1
cdt_pid='' target=''
# Only what this test started, by pid, and only while it may still run.
cleanup() {
	if [ -n "$cdt_pid" ]; then
		[ -n "$target" ] || target=$(child_of "$cdt_pid")
		kill -KILL "$cdt_pid" 2>/dev/null
	fi
	for p in $target; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "sigkill.sh: $*" >&2
	exit 1
}

# The child processes of a pid.
child_of() {
	c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
	[ -n "$c" ] || c=$(awk -v pp="$1" '$1 == "PPid:" && $2 == pp {
		f = FILENAME; sub(/^\/proc\//, "", f); sub(/\/status$/, "", f); print f }' \
		/proc/[0-9]*/status 2>/dev/null)
	echo $c # one line
}

# wait_ready FILE: until the sleeper said ready (20 s at most).
wait_ready() {
	n=0
	until grep -q '^ready' "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -le 200 ] || fail "the sleeper did not say ready within 20 s; stderr: $(cat "$tmp/err")"
		kill -0 "$cdt_pid" 2>/dev/null || fail "cdt ended before the sleeper was ready: $(cat "$tmp/err")"
		sleep 0.1
	done
}

kv() {
	awk -F, -v k="$1" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$tmp/summary"
}

[ -x "$W/sleeper" ] || fail "expected the workload $W/sleeper (make workloads)"

"$CDT" record -o "$tmp/k.data" "$W/sleeper" 2 30 >"$tmp/out" 2>"$tmp/err" </dev/null &
cdt_pid=$!
wait_ready "$tmp/out"
target=$(child_of "$cdt_pid")
[ -n "$target" ] || fail "cannot find the program started by cdt (pid $cdt_pid)"
[ "$(echo "$target" | wc -w)" -eq 1 ] || fail "expected one child of cdt, found: $target"
grep -q sleeper "/proc/$target/cmdline" 2>/dev/null ||
	fail "cdt's child $target is not the sleeper: $(tr '\0' ' ' <"/proc/$target/cmdline")"
sleep 0.5 # let the three threads collect samples
kill -KILL "$target" || fail "cannot send SIGKILL to $target"
wait "$cdt_pid"
rc=$?
cdt_pid='' target=''
[ "$rc" -eq 137 ] || fail "expected cdt to exit 137 (128+SIGKILL), got $rc; stderr: $(cat "$tmp/err")"
grep -q 'killed by signal 9' "$tmp/err" ||
	fail "stderr must say the program was killed by signal 9; found: $(cat "$tmp/err")"
[ -f "$tmp/k.data" ] || fail "no profile written after SIGKILL; stderr: $(cat "$tmp/err")"

"$CDT" report -i "$tmp/k.data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
	fail "the profile is not readable: $(cat "$tmp/rerr")"
[ "$(kv exit_status)" = 137 ] || fail "summary exit_status: expected 137, found '$(kv exit_status)'"
[ "$(kv ended)" = "killed by a signal" ] ||
	fail "summary ended: expected 'killed by a signal', found '$(kv ended)'"
# 0.5 s of three threads at 4 kHz gives thousands; 100 is generous.
[ "$(kv memory_samples)" -ge 100 ] 2>/dev/null ||
	fail "expected >= 100 memory samples in the profile, found '$(kv memory_samples)'"
[ "$(kv threads)" -eq 3 ] 2>/dev/null || fail "expected the 3 threads of the sleeper, found '$(kv threads)'"
# Every thread sampled: each ran ~0.3 s of CPU, ~1200 samples; 50 is generous.
"$CDT" report -i "$tmp/k.data" --csv --view threads >"$tmp/threads.csv" 2>"$tmp/rerr" ||
	fail "threads view failed: $(cat "$tmp/rerr")"
[ "$(head -n 1 "$tmp/threads.csv" | cut -d, -f6)" = mem_samples ] ||
	fail "threads CSV: expected column 6 to be mem_samples: $(head -n 1 "$tmp/threads.csv")"
awk -F, 'NR > 1 { n++; if ($6 < 50) bad = 1 } END { exit bad || n != 3 }' "$tmp/threads.csv" ||
	fail "expected 3 threads with >= 50 memory samples each: $(cat "$tmp/threads.csv")"
"$CDT" report -i "$tmp/k.data" >/dev/null 2>"$tmp/rerr" ||
	fail "the text report of the profile failed: $(cat "$tmp/rerr")"
exit 0
