# The sleeper workload under cdt, ended by a signal (sigint.sh, sigkill.sh).
# Sourced after common.sh.

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

# start_sleeper DATA: cdt records `sleeper 2 30` (three threads) into DATA
# in the background; returns once every thread runs, with cdt's pid in
# cdt_pid and the sleeper's in target.
start_sleeper() {
	rm -f "$tmp/out" "$1"
	"$CDT" record -F 1000 -o "$1" "$W/sleeper" 2 30 >"$tmp/out" 2>"$tmp/err" </dev/null &
	cdt_pid=$!
	wait_ready "$tmp/out"
	target=$(child_of "$cdt_pid")
	[ -n "$target" ] || fail "cannot find the program started by cdt (pid $cdt_pid)"
	[ "$(echo "$target" | wc -w)" -eq 1 ] || fail "expected one child of cdt, found: $target"
	grep -q sleeper "/proc/$target/cmdline" 2>/dev/null ||
		fail "cdt's child $target is not the sleeper: $(tr '\0' ' ' <"/proc/$target/cmdline")"
}

# check_killed DATA SIGNUM WHAT: cdt exited 128+SIGNUM (status in rc) and
# said why, and DATA is a readable profile saying so, with samples from
# each of the three threads.  The sleeper says ready only once each thread
# has used 0.25 s of CPU, however busy the machine (a fixed wait gave 22
# samples to a thread that the scheduler starved): at -F 1000 that is 250
# samples or more, a Poisson sd of 16, so 50 is 12 sd below.  The summary stays in $tmp/summary, the threads
# view in $tmp/threads.csv.  Messages start with WHAT.
check_killed() {
	[ "$rc" -eq $((128 + $2)) ] ||
		fail "$3: expected cdt to exit $((128 + $2)), got $rc; stderr: $(cat "$tmp/err")"
	grep -q "killed by signal $2" "$tmp/err" ||
		fail "$3: stderr must say the program was killed by signal $2; found: $(cat "$tmp/err")"
	[ -f "$1" ] || fail "$3: no profile written; stderr: $(cat "$tmp/err")"
	"$CDT" report -i "$1" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
		fail "$3: the profile is not readable: $(cat "$tmp/rerr")"
	[ "$(kv exit_status)" = $((128 + $2)) ] ||
		fail "$3: summary exit_status: expected $((128 + $2)), found '$(kv exit_status)'"
	[ "$(kv ended)" = "killed by a signal" ] ||
		fail "$3: summary ended: expected 'killed by a signal', found '$(kv ended)'"
	# 0.5 s of three threads at -F 1000 gives ~1500; 100 is generous.
	[ "$(kv memory_samples)" -ge 100 ] 2>/dev/null ||
		fail "$3: expected >= 100 memory samples in the profile, found '$(kv memory_samples)'"
	"$CDT" report -i "$1" --csv --view threads >"$tmp/threads.csv" 2>"$tmp/rerr" ||
		fail "$3: threads view failed: $(cat "$tmp/rerr")"
	[ "$(head -n 1 "$tmp/threads.csv" | cut -d, -f6)" = mem_samples ] ||
		fail "$3: threads CSV: expected column 6 to be mem_samples: $(head -n 1 "$tmp/threads.csv")"
	awk -F, 'NR > 1 { n++; if ($6 < 50) bad = 1 } END { exit bad || n != 3 }' "$tmp/threads.csv" ||
		fail "$3: expected 3 threads with >= 50 memory samples each: $(cat "$tmp/threads.csv")"
}
