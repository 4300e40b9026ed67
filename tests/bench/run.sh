#!/bin/sh
# Overhead benchmark of a cdt tool (make bench runs it for each).
#
#   tests/bench/run.sh [record|comm|fvar|numa|membound]      (default record)
#
# For each workload it runs BENCH_ROUNDS rounds (default 5); each round
# runs the program plain and under `cdt TOOL -q`, alternating which goes
# first, and the table gives medians over rounds.  record: arrays 4,
# threads 4, stencil, short-lived threads (threadchurn: 20000 empty ones,
# 64 alive at once; fork-join steps of 4 fresh threads of 3 ms), then trap
# costs and soft accuracy.  comm: the same five (the comm ground-truth
# workloads run for a fixed wall time, so they cannot show a slowdown),
# then stencil, the larger kernel, at 2, 4,
# 8 and 16 threads for how overhead scales with threads.  fvar: its
# workloads with a fixed amount of work (fvar_shapes -N: mix, recursive,
# 1 us calls, an imbalance of 4 threads), dlloop (a library dlopened and
# dlclosed 1000 times), programs cdt's authors did not
# write (xz, zstd, sort, where installed), then the peer: uftrace recording
# every call of the same 1 us-call program built with -pg, against the
# same plain and against cdt fvar on it.  numa: numa_jacobi with a fixed
# number of sweeps (4 workers), pagefaulter (4 GB of first touches by 2
# threads: pages filled, then one byte each) with first touch watched,
# with --no-faults and in counting mode (--count), then xz, zstd and sort.
# membound: arrays, stencil and numa_jacobi (fixed work), the soft
# estimate with and without its probe (--no-probe), then xz, zstd and
# sort; counting mode needs a hardware PMU, and says so where there is
# none.  What is measured (tests/bench/rusage.c):
#
#   plain s     wall time of the plain program
#   cdt s       wall time of the whole `cdt record` command: start, the
#               program under the agent, symbolizing, writing the profile
#   time x      median of the per-round ratios cdt s / plain s
#   prog x      the same for the program's own wall time under the agent
#               (what the program feels; time x adds cdt's start and its
#               work after the program ended: symbols, the profile file)
#   cpu x       the same for CPU time (user+sys): cdt and all its children
#               against the plain program
#   rss MB      peak RSS of the program process itself, plain / under cdt.
#               Under cdt the program is started by a second copy of the
#               rusage wrapper, itself run by cdt, so the figure is the
#               program's own (agent, its alternate stacks and the touched
#               pages of the shared record buffer included) and not cdt's
#   rss x       median of the per-round ratios of those two peaks
#   cdt MB      peak RSS of the largest process of the cdt run (ru_maxrss
#               is a maximum over processes, not a sum), i.e. the front
#               end's own peak when it is larger than the program's
#   samples     timer samples taken in the cdt run (summary samples_taken)
#   us/smp in   agent handler time per sample (summary us_per_sample,
#               single steps included)
#   us/smp all  the program's extra CPU time per sample: (its CPU under cdt
#               - its CPU plain) / samples; includes the kernel's signal
#               delivery and the single-step traps
#   steps/smp   soft source: single steps per sample (summary single_steps
#               / samples_taken), each one more trap and signal
#   traps       comm: watchpoint traps taken (summary traps_taken)
#   us/trap in  comm: agent handler time per trap (summary us_per_trap)
#
# Then the cost of a debug-register trap, from watchme (2 threads, 20000
# bump() calls each) at 1 Hz sampling (so samples do not count), for a
# data watchpoint (watched_counter:w) and an execute breakpoint (bump:x):
# in-handler microseconds per trap (summary us_per_trap), and the extra
# CPU per trap of the whole cdt command, front end included, against the
# same command without --watch.  Last, soft-sampling accuracy over the arrays
# profiles of all rounds, as tests/e2e/accuracy.sh defines it.
#
# Environment: CDT_PLAIN (default ./cdt, the optimized front end), BUILD
# (default build), BENCH_ROUNDS, BENCH_OPTS (more `cdt record` options for
# the workload runs, e.g. "-F 2000"), CC.  The machine should be otherwise idle;
# nothing here asserts a figure.
set -u

TOOL=${1:-record}
case $TOOL in record | comm | fvar | numa | membound) ;; *) echo "usage: run.sh [record|comm|fvar|numa|membound]" >&2; exit 2 ;; esac
. "$(dirname "$0")/lib.sh"
W=$BUILD/workloads
ROUNDS=${BENCH_ROUNDS:-5}
for w in arrays threads stencil watchme comm_p2p comm_falseshare fvar_shapes fvar_shapes_pg \
	numa_jacobi pagefaulter dlloop threadchurn; do
	[ -x "$W/$w" ] || die "no workload $W/$w (make workloads)"
done
need_count BENCH_ROUNDS "$ROUNDS"
build_rusage

# kv PROFILE KEY: a value from a profile's summary.
kv() {
	"$CDT" report -i "$1" --csv --view summary |
		awk -F, -v k="$2" '$1 == k { sub(/^[^,]*,/, ""); print; exit }'
}

# run_plain TAG ARGS...: one plain run, measured into $tmp/TAG.plain.
run_plain() {
	tag=$1
	shift
	"$R" -o "$tmp/$tag.plain" "$@" >/dev/null 2>"$tmp/err" ||
		die "$* failed plain: $(cat "$tmp/err")"
}

# run_cdt TAG DATA CDTOPTS -- ARGS...: one run under cdt; the whole cdt
# command into $tmp/TAG.cdt, the program alone into $tmp/TAG.target.
run_cdt() {
	tag=$1 data=$2
	shift 2
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	"$R" -o "$tmp/$tag.cdt" "$CDT" "$TOOL" -q -o "$data" $opts "$R" -o "$tmp/$tag.target" "$@" \
		>/dev/null 2>"$tmp/err" || die "cdt $TOOL$opts $* failed: $(cat "$tmp/err")"
}

# The rows of a run file as "wall cpu maxrss_kb", one per round.
fields() {
	awk "$RUN_AWK"'{ print w[n], c[n], k[n] }' "$1"
}

printf 'cdt %s overhead: %d rounds per workload, medians; %s, %s CPUs\n' "$TOOL" "$ROUNDS" \
	"$("$CDT" --version)" "$(getconf _NPROCESSORS_ONLN)"
printf 'source: %s%s\n\n' "$("$CDT" probe --csv 2>/dev/null | awk -F, '$1 == "source.record" { print $2 }')" "${BENCH_OPTS:+, options: $BENCH_OPTS}"
header() {
	printf '%-12s %7s %7s %6s %6s %6s %13s %6s %7s %8s %9s %10s %9s %7s %10s\n' workload \
		"plain s" "cdt s" "time x" "prog x" "cpu x" "rss MB p/cdt" "rss x" "cdt MB" samples \
		"us/smp in" "us/smp all" "steps/smp" traps "us/trap in"
}

# bench TAG PROGRAM ARGS...: the rounds of one workload, one table row;
# PROGRAM is a workload's name, or an absolute path.
bench() {
	name=$1 prog=$2
	shift 2
	case $prog in /*) path=$prog ;; *) path=$W/$prog ;; esac
	: >"$tmp/$name.samples"
	# Unmeasured: the first run of a program that faults in gigabytes
	# pays for the hypervisor backing the guest's memory, which later
	# runs, plain or not, do not.
	"$path" "$@" >/dev/null 2>&1
	for r in $(seq 1 "$ROUNDS"); do
		if [ $((r % 2)) -eq 1 ]; then
			run_plain "$name" "$path" "$@"
			run_cdt "$name" "$tmp/$name.$r.data" ${BENCH_OPTS:-} -- "$path" "$@"
		else
			run_cdt "$name" "$tmp/$name.$r.data" ${BENCH_OPTS:-} -- "$path" "$@"
			run_plain "$name" "$path" "$@"
		fi
		d=$tmp/$name.$r.data
		echo "$(kv "$d" samples_taken) $(kv "$d" us_per_sample) $(kv "$d" single_steps)" \
			"$(kv "$d" traps_taken) $(kv "$d" us_per_trap)" >>"$tmp/$name.samples"
	done
	fields "$tmp/$name.plain" >"$tmp/p"
	fields "$tmp/$name.cdt" >"$tmp/c"
	fields "$tmp/$name.target" >"$tmp/t"
	paste -d' ' "$tmp/p" "$tmp/c" "$tmp/t" "$tmp/$name.samples" | awk -v name="$name" "$MEDIAN_AWK"'
	{
		n++
		pw[n] = $1; cw[n] = $4; tx[n] = $4 / $1; cx[n] = $5 / $2; px[n] = $7 / $1
		pr[n] = $3 / 1024; tr[n] = $9 / 1024; rx[n] = $9 / $3; cr[n] = $6 / 1024
		sm[n] = $10; us[n] = $11; all[n] = $10 ? ($8 - $2) / $10 * 1e6 : 0
		st[n] = $10 ? $12 / $10 : 0; tp[n] = $13; ut[n] = $14
	}
	END {
		printf "%-12s %7.2f %7.2f %6.2f %6.2f %6.2f %6.1f/%6.1f %6.2f %7.1f %8d %9.2f %10.2f %9.2f %7d %10.2f\n",
			substr(name, 1, 12), median(pw, n), median(cw, n), median(tx, n), median(px, n),
			median(cx, n),
			median(pr, n), median(tr, n), median(rx, n), median(cr, n), median(sm, n),
			median(us, n), median(all, n), median(st, n), median(tp, n), median(ut, n)
	}'
}

# peer TAG PROGRAM ARGS...: uftrace recording every call of PROGRAM, the
# same plain, and cdt fvar on it, alternating, medians: one row.
peer() {
	name=$1 path=$2
	shift 2
	rm -f "$tmp/peer.plain" "$tmp/peer.uft" "$tmp/peer.fvar"
	for r in $(seq 1 "$ROUNDS"); do
		"$R" -o "$tmp/peer.plain" "$path" "$@" >/dev/null 2>&1 || die "$path $* failed"
		rm -rf "$tmp/uft"
		"$R" -o "$tmp/peer.uft" uftrace record -d "$tmp/uft" "$path" "$@" >/dev/null 2>&1 ||
			die "uftrace record $path $* failed"
		"$R" -o "$tmp/peer.fvar" "$CDT" fvar -q -o "$tmp/peer.data" "$path" "$@" >/dev/null 2>&1 ||
			die "cdt fvar $path $* failed"
	done
	fields "$tmp/peer.plain" >"$tmp/p"
	fields "$tmp/peer.uft" >"$tmp/u"
	fields "$tmp/peer.fvar" >"$tmp/f"
	paste -d' ' "$tmp/p" "$tmp/u" "$tmp/f" | awk -v name="$name" "$MEDIAN_AWK"'
	{ n++; pw[n] = $1; ux[n] = $4 / $1; fx[n] = $7 / $1 }
	END { printf "%-26s %8.2f %11.2f %10.2f\n", name, median(pw, n), median(ux, n), median(fx, n) }'
}

# Programs cdt's authors did not write, on a file of their own making:
# xz, zstd and sort where installed.
others() {
	head -c 3000000 /dev/urandom | od -An -tx1 | head -c 4000000 >"$tmp/in.txt"
	command -v xz >/dev/null && bench xz "$(command -v xz)" -T1 -6 -c -k "$tmp/in.txt"
	command -v zstd >/dev/null && bench zstd "$(command -v zstd)" -T1 -15 -c "$tmp/in.txt"
	# sort needs more input to run long enough to measure.
	for i in 1 2 3 4 5 6 7 8; do cat "$tmp/in.txt"; done >"$tmp/sort.txt"
	command -v sort >/dev/null && bench sort "$(command -v sort)" --parallel=2 -S 64M "$tmp/sort.txt"
}

if [ "$TOOL" = numa ]; then
	header
	bench jacobi numa_jacobi -t 4 -N 3000
	bench jacobi-par numa_jacobi -t 4 -N 3000 --init parallel
	# 4 GB of first touches: filled as a program fills its data, then
	# one byte a page (nothing but faults, the worst case); the same
	# without watching faults, and in counting mode.
	bench faulter pagefaulter -t 2 -m 512 -r 8
	bench faulter-1 pagefaulter -t 2 -m 512 -r 8 -1
	given=${BENCH_OPTS:-} # run_cdt sets opts
	BENCH_OPTS="$given --no-faults"
	bench faulter-nof pagefaulter -t 2 -m 512 -r 8 -1
	BENCH_OPTS="$given --count"
	bench faulter-cnt pagefaulter -t 2 -m 512 -r 8 -1
	bench jacobi-cnt numa_jacobi -t 4 -N 3000
	BENCH_OPTS=$given
	others
	exit 0
fi

if [ "$TOOL" = membound ]; then
	# The calibration first, unmeasured: a run without one makes it.
	"$CDT" membound -q -o "$tmp/cal.data" true 2>/dev/null
	if "$CDT" probe --csv 2>/dev/null | grep -q '^hw_pmu,yes'; then
		echo "counting mode: the runs below count on this PMU"
	else
		echo "counting mode: not measured here (no hardware PMU); the runs below are the soft estimate"
	fi
	header
	bench arrays arrays 4
	bench stencil stencil
	bench jacobi numa_jacobi -t 4 -N 3000
	given=${BENCH_OPTS:-} # run_cdt sets opts
	BENCH_OPTS="$given --no-probe"
	bench stencil-np stencil
	bench jacobi-np numa_jacobi -t 4 -N 3000
	BENCH_OPTS=$given
	others
	exit 0
fi

if [ "$TOOL" = fvar ]; then
	header
	bench mix fvar_shapes -m mix -N 4000
	bench recursive fvar_shapes -m recursive -N 1000
	bench tiny fvar_shapes -m tiny -u 1000 -N 10000
	bench imbalance fvar_shapes -m imbalance -n 4 -r 4000
	# A library loaded and unloaded 1000 times: the agent's work per dlopen.
	bench dlloop dlloop 1000
	others
	if command -v uftrace >/dev/null; then
		cd "$tmp" || die "cannot cd to $tmp" # -pg programs write gmon.out where they run
		printf '\n%-26s %8s %11s %10s\n' "1 us calls, -pg build" "plain s" "uftrace x" "cdt fvar x"
		peer "fvar_shapes_pg -m tiny" "$W/fvar_shapes_pg" -m tiny -u 1000 -N 10000
		# Calls ten times shorter: a tracer's cost grows with the call rate.
		peer "fvar_shapes_pg -m tiny -u 100" "$W/fvar_shapes_pg" -m tiny -u 100 -N 50000
	fi
	exit 0
fi

if [ "$TOOL" = comm ]; then
	header
	bench arrays arrays 4
	bench threads threads 4
	bench stencil stencil
	bench churn threadchurn 20000 64
	bench forkjoin threadchurn 400 4 3000
	printf '\nthread scaling (stencil THREADS 1024 2000)\n'
	header
	for n in 2 4 8 16; do
		bench "stencil$n" stencil "$n" 1024 2000
	done
	exit 0
fi

header
bench arrays arrays 4
bench threads threads 4
bench stencil stencil
# Short-lived threads: 20000 empty ones, 64 alive at once (what a thread's
# start and end cost), and fork-join steps of 4 fresh threads of 3 ms.
bench churn threadchurn 20000 64
bench forkjoin threadchurn 400 4 3000

# Traps: in-handler cost from the profile (us_per_trap, or the threads
# view's handler_us weighted by traps when the summary lacks it), and the
# extra CPU per trap of the whole cdt run (program and front end) against
# the same cdt run without --watch.  The program cannot be wrapped here:
# --watch looks the symbol up in the program cdt starts.
trap_cost() {
	spec=$1
	: >"$tmp/trap.rows"
	rm -f "$tmp/nowatch.cdt" "$tmp/watch.cdt"
	for r in $(seq 1 "$ROUNDS"); do
		"$R" -o "$tmp/nowatch.cdt" "$CDT" record -q -F 1 -o "$tmp/nowatch.data" \
			"$W/watchme" 2 20000 >/dev/null 2>"$tmp/err" || die "watchme under cdt failed: $(cat "$tmp/err")"
		"$R" -o "$tmp/watch.cdt" "$CDT" record -q -F 1 --watch "$spec" -o "$tmp/trap.data" \
			"$W/watchme" 2 20000 >/dev/null 2>"$tmp/err" ||
			die "watchme under cdt --watch $spec failed: $(cat "$tmp/err")"
		traps=$(kv "$tmp/trap.data" traps)
		inh=$(kv "$tmp/trap.data" us_per_trap)
		if [ -z "$inh" ]; then
			inh=$("$CDT" report -i "$tmp/trap.data" --csv --view threads |
				awk -F, 'NR > 1 { t += $10; us += $10 * $11 } END { printf "%.2f", t ? us / t : 0 }')
		fi
		echo "$traps $inh" >>"$tmp/trap.rows"
	done
	fields "$tmp/nowatch.cdt" >"$tmp/p"
	fields "$tmp/watch.cdt" >"$tmp/t"
	paste -d' ' "$tmp/p" "$tmp/t" "$tmp/trap.rows" | awk -v spec="$spec" "$MEDIAN_AWK"'
	{ n++; tr[n] = $7; inh[n] = $8; all[n] = $7 ? ($5 - $2) / $7 * 1e6 : 0 }
	END { printf "%-22s %8d %12.2f %12.2f\n", spec, median(tr, n), median(inh, n), median(all, n) }'
}

printf '\n%-22s %8s %12s %12s\n' "watchme 2 20000, -F 1" traps "us/trap in" "us/trap all"
trap_cost watched_counter:w
trap_cost bump:x

# Accuracy over every arrays profile.
printf '\n'
for r in $(seq 1 "$ROUNDS"); do
	"$CDT" report -i "$tmp/arrays.$r.data" --csv --top 0 --view samples | tail -n +2
done | awk -F, '
BEGIN {
	obj["read_a"] = "arr_load64";  kind["read_a"] = "load";  size["read_a"] = 8
	obj["write_b"] = "arr_store32"; kind["write_b"] = "store"; size["write_b"] = 4
	obj["rmw_c"] = "arr_rmw64";    kind["rmw_c"] = "rmw";    size["rmw_c"] = 8
	obj["read_d"] = "arr_load16";  kind["read_d"] = "load";  size["read_d"] = 2
}
($10 in obj) && $15 ~ /a/ {
	n++; per[$10]++
	if ($13 == obj[$10] && $6 == kind[$10] && $7 == size[$10]) { ok++; okf[$10]++ }
}
END {
	printf "accuracy: %.1f%% of %d samples\n", n ? 100 * ok / n : 0, n
	printf "  (arrays 4, soft source: samples in read_a/write_b/rmw_c/read_d naming that function'"'"'s array, kind and size;"
	for (f in per) printf " %s %d/%d", f, okf[f], per[f]
	printf ")\n"
}'
