#!/bin/sh
# SIGINT and SIGTERM sent to cdt (by kill, not a terminal, so only cdt
# gets them): cdt forwards each to the program, which dies of it; cdt
# exits 128+N, says so, and writes a readable profile of what ran.
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
	echo "sigint.sh: $*" >&2
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

for sig in INT TERM; do
	case $sig in INT) num=2 ;; TERM) num=15 ;; esac
	rm -f "$tmp/out" "$tmp/s.data"
	"$CDT" record -o "$tmp/s.data" "$W/sleeper" 2 30 >"$tmp/out" 2>"$tmp/err" </dev/null &
	cdt_pid=$!
	wait_ready "$tmp/out"
	target=$(child_of "$cdt_pid")
	[ -n "$target" ] || fail "cannot find the program started by cdt (pid $cdt_pid)"
	[ "$(echo "$target" | wc -w)" -eq 1 ] || fail "expected one child of cdt, found: $target"
	sleep 0.5 # let the three threads collect samples
	kill -$sig "$cdt_pid" || fail "cannot send SIG$sig to cdt"
	# cdt must forward it: if it did not, the sleeper runs on (30 s).
	n=0
	while kill -0 "$cdt_pid" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -gt 100 ]; then
			fail "SIG$sig to cdt: the program still ran 10 s later (not forwarded?)"
		fi
		sleep 0.1
	done
	wait "$cdt_pid"
	rc=$?
	cdt_pid=
	[ "$rc" -eq $((128 + num)) ] ||
		fail "SIG$sig: expected cdt to exit $((128 + num)), got $rc; stderr: $(cat "$tmp/err")"
	kill -0 "$target" 2>/dev/null && fail "SIG$sig: the program $target is still running"
	target=
	grep -q "killed by signal $num" "$tmp/err" ||
		fail "SIG$sig: stderr must say the program was killed by signal $num; found: $(cat "$tmp/err")"
	"$CDT" report -i "$tmp/s.data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
		fail "SIG$sig: the profile is not readable: $(cat "$tmp/rerr")"
	[ "$(kv exit_status)" = $((128 + num)) ] ||
		fail "SIG$sig: summary exit_status: expected $((128 + num)), found '$(kv exit_status)'"
	[ "$(kv ended)" = "killed by a signal" ] ||
		fail "SIG$sig: summary ended: expected 'killed by a signal', found '$(kv ended)'"
	[ "$(kv memory_samples)" -ge 100 ] 2>/dev/null ||
		fail "SIG$sig: expected >= 100 memory samples, found '$(kv memory_samples)'"
	# Every thread sampled: each ran ~0.3 s of CPU, ~1200 samples; 50 is generous.
	"$CDT" report -i "$tmp/s.data" --csv --view threads >"$tmp/threads.csv" 2>"$tmp/rerr" ||
		fail "SIG$sig: threads view failed: $(cat "$tmp/rerr")"
	[ "$(head -n 1 "$tmp/threads.csv" | cut -d, -f6)" = mem_samples ] ||
		fail "SIG$sig: threads CSV: expected column 6 to be mem_samples: $(head -n 1 "$tmp/threads.csv")"
	awk -F, 'NR > 1 { n++; if ($6 < 50) bad = 1 } END { exit bad || n != 3 }' "$tmp/threads.csv" ||
		fail "SIG$sig: expected 3 threads with >= 50 memory samples each: $(cat "$tmp/threads.csv")"
done
exit 0
