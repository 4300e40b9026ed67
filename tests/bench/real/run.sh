#!/bin/sh
# Overhead of cdt's tools, and of perf record, on real programs
# (make bench-real; not part of make check).
#
#   tests/bench/real/run.sh
#
# Programs, each at 2, 4 and 8 threads (oversubscribed on a 2-core
# machine), each with a fixed amount of work:
#   pigz      pigz -p N on 24 MiB of generated text, to /dev/null
#   xz        xz -TN -1 on 4 MiB in 512 KiB blocks (so that 8 threads
#             have blocks to take), to /dev/null
#   zstd      zstd -TN -9 -B1M on 12 MiB (1 MiB jobs, for the same
#             reason), to /dev/null
#   sort      sort --parallel=N -S 100M on 12 MiB of short lines, LC_ALL=C
#   linreg    Phoenix-style linear regression, per-thread sums side by
#             side in one array (false sharing): 16 Mi points, 9 passes
#   jacobi    2-D Jacobi stencil, OpenMP parallel for: 2048^2, 110 sweeps
#   wordcount word count of 16 MiB into one shared hash table, striped
#             mutexes
#   pipeline  a producer, N-1 workers, 6000 blocks of 64 KiB through a
#             bounded queue (mutex and condition variables)
#   rounds    2000 rounds of N workers made afresh, each with a heap block
#             malloc hands on to the next round's (no sharing: padding
#             them to lines, "rounds N 2000 pad", takes as long plainly)
#   globals   30 million adds shared out among N threads, each to its own
#             counter, separate globals eight to a line (false sharing:
#             "globals N 30 pad", a line each, took 0.09 s plain here
#             against 0.53 s at 2 threads)
#   histo     a byte histogram of 400 MiB (1 MiB of input gone over again)
#             shared out among N threads, their blocks of header and
#             counters back to back: thread k's rare top counts share a
#             line with thread k+1's header, read at every byte (false
#             sharing: "histo N 400 pad" starts each block on a line)
# Each takes about 0.4 to 0.6 s plain on two idle cores, up to twice that
# with the other core busy.
# The last seven are built from this folder (make bench-real builds them
# into build/bench/real/ with gentext, which writes the text inputs); they
# print a checksum, and a profiled run whose output differs from the
# plain run's is a failure.
#
# Configurations, all in the same rounds: plain; cdt comm, record, fvar,
# numa and membound, each `cdt TOOL -q -o FILE` at its defaults; perf
# record -e task-clock -F 2000 -q (2000 Hz is cdt comm's soft rate).
# Each round runs every configuration once, in an order rotated from
# round to round and row to row, so none always goes first.  membound's
# calibration is made before any timing.  What is measured
# (tests/bench/rusage.c):
#
#   plain wall s  median wall time of the plain program
#   plain cpu s   median CPU time (user+sys) of the plain program
#   wall          the configuration's whole command (cdt's start, the
#                 program under the agent, symbolizing, writing the
#                 profile; or perf record and its file) against the plain
#                 run of the same round: median of the per-round ratios
#   cpu           the same for CPU time, the command and all its children
#   prog          the same for the program's own wall time, measured by a
#                 second rusage wrapper that cdt (or perf) runs
#   FAIL          a run exited non-zero or printed another checksum; its
#                 stderr's tail is printed after the table
#   -             not measured (perf absent or refused)
# After the rows, per configuration, the geometric mean and the maximum of
# each column over the rows.
#
# Environment: BENCH_ROUNDS (default 3), BENCH_TOOLS (configurations, of
# "plain comm record fvar numa membound perf"; plain is always run),
# BENCH_PROGS (programs, of the list above), BENCH_THREADS (default
# "2 4 8"), BENCH_PERF_HZ (default 2000), BENCH_OPTS (more options for
# every cdt tool), BENCH_CSV (a file to write the table to as CSV, one line
# per program, threads and configuration), CDT_PLAIN (default ./cdt),
# BUILD (default build), CC.  About 7 minutes with the defaults on two
# cores, the other one busy.  Nothing here asserts a figure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
real_top=$(cd "$here/../../.." && pwd)
# lib.sh takes the tree from $0, two levels up: name the front end and
# the build directory for it, then correct top.
CDT_PLAIN=${CDT_PLAIN:-$real_top/cdt}
BUILD=${BUILD:-$real_top/build}
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"
top=$real_top
# Decimal points in awk's output, and sort's fastest collation.
LC_ALL=C
export LC_ALL

ROUNDS=${BENCH_ROUNDS:-3}
TOOLS=${BENCH_TOOLS:-plain comm record fvar numa membound perf}
PROGS=${BENCH_PROGS:-pigz xz zstd sort linreg jacobi wordcount pipeline rounds globals histo}
THREADS=${BENCH_THREADS:-2 4 8}
PERF_HZ=${BENCH_PERF_HZ:-2000}
CSV=${BENCH_CSV:-}
RB=$BUILD/bench/real
need_count BENCH_ROUNDS "$ROUNDS"
need_count BENCH_PERF_HZ "$PERF_HZ"
for t in $THREADS; do need_count BENCH_THREADS "$t"; done
for c in $TOOLS; do
	case $c in plain | comm | record | fvar | numa | membound | perf) ;; *) die "unknown configuration $c in BENCH_TOOLS" ;; esac
done
for p in $PROGS; do
	case $p in
	pigz | xz | zstd | sort) ;;
	linreg | jacobi | wordcount | pipeline | rounds | globals | histo)
		[ -x "$RB/$p" ] || die "no $RB/$p (make bench-real)" ;;
	*) die "unknown program $p in BENCH_PROGS" ;;
	esac
done
[ -x "$RB/gentext" ] || die "no $RB/gentext (make bench-real)"
build_rusage
start=$(date +%s)

# The configurations other than plain, in the table's order.
CFGS=
for c in comm record fvar numa membound perf; do
	case " $TOOLS " in *" $c "*) CFGS="$CFGS $c" ;; esac
done
CFGS=${CFGS# }

printf 'cdt overhead on real programs: %d rounds, medians of per-round ratios to plain; %s, %s CPUs\n' \
	"$ROUNDS" "$("$CDT" --version)" "$(getconf _NPROCESSORS_ONLN)"
printf 'source: %s%s; perf record -e task-clock -F %s\n' \
	"$("$CDT" probe --csv 2>/dev/null | awk -F, '$1 == "source.record" { print $2 }')" \
	"${BENCH_OPTS:+, cdt options: $BENCH_OPTS}" "$PERF_HZ"

# perf: absent or refused leaves its column empty ("-").
absent=
case " $CFGS " in *" perf "*)
	if ! command -v perf >/dev/null; then
		echo "perf: not installed (Debian: linux-perf); its column is left empty"
		absent=perf
	elif ! perf record -e task-clock -F "$PERF_HZ" -o "$tmp/perf.data" -q -- true >/dev/null 2>"$tmp/err"; then
		echo "perf: perf record refused ($(tail -n 1 "$tmp/err")); its column is left empty"
		absent=perf
	fi ;;
esac
# membound's calibration, untimed: a run without one makes it.
case " $CFGS " in *" membound "*)
	"$CDT" membound -q -o "$tmp/cal.data" true 2>"$tmp/err" ||
		"$CDT" membound --calibrate --quick >/dev/null 2>>"$tmp/err" ||
		echo "membound: no calibration ($(tail -n 1 "$tmp/err"))" ;;
esac

# The inputs, the same bytes every time.
for p in $PROGS; do
	case $p in
	pigz) "$RB/gentext" 24 >"$tmp/pigz.txt" ;;
	xz) "$RB/gentext" 4 >"$tmp/xz.txt" ;;
	zstd) "$RB/gentext" 12 >"$tmp/zstd.txt" ;;
	sort) "$RB/gentext" 12 3 >"$tmp/sort.txt" ;;
	esac || die "gentext failed"
done

# run_one CFG PROG THREADS ROUND: one measured run, its figures appended
# to $tmp/row as "CFG ROUND wall cpu prog_wall ok", the program's stdout
# (our programs only) in $tmp/out.CFG.ROUND.
run_one() {
	cfg=$1 prog=$2 n=$3 r=$4
	out=/dev/null
	case $prog in
	pigz) set -- pigz -p "$n" -c "$tmp/pigz.txt" ;;
	xz) set -- xz "-T$n" -1 --block-size=512KiB -c "$tmp/xz.txt" ;;
	zstd) set -- zstd -q "-T$n" -9 -B1M -c "$tmp/zstd.txt" ;;
	sort) set -- sort "--parallel=$n" -S 100M "$tmp/sort.txt" ;;
	linreg) set -- "$RB/linreg" "$n" 16 9 ;;
	jacobi) set -- "$RB/jacobi" "$n" 2048 110 ;;
	wordcount) set -- "$RB/wordcount" "$n" 16 ;;
	pipeline) set -- "$RB/pipeline" "$n" 6000 ;;
	rounds) set -- "$RB/rounds" "$n" 2000 ;;
	globals) set -- "$RB/globals" "$n" 30 ;;
	histo) set -- "$RB/histo" "$n" 400 ;;
	esac
	case $prog in linreg | jacobi | wordcount | pipeline | rounds | globals | histo) out=$tmp/out.$cfg.$r ;; esac
	m=$tmp/m
	rm -f "$m" "$m.prog" "$tmp/data"
	case $cfg in
	plain) "$R" -o "$m" "$@" >"$out" 2>"$tmp/err" ;;
	perf) "$R" -o "$m" perf record -e task-clock -F "$PERF_HZ" -o "$tmp/data" -q -- \
		"$R" -o "$m.prog" "$@" >"$out" 2>"$tmp/err" ;;
	*) # shellcheck disable=SC2086
		"$R" -o "$m" "$CDT" "$cfg" -q -o "$tmp/data" ${BENCH_OPTS:-} \
		"$R" -o "$m.prog" "$@" >"$out" 2>"$tmp/err" ;;
	esac
	st=$?
	if [ "$st" -ne 0 ] || [ ! -s "$m" ]; then
		{
			echo "FAIL: $prog $n $cfg, round $r: exit $st"
			tail -n 5 "$tmp/err" | sed 's/^/  | /'
		} >>"$tmp/fail"
		echo "$cfg $r 0 0 0 0" >>"$tmp/row"
		rm -f "$tmp/out.$cfg.$r"
		return
	fi
	[ -s "$m.prog" ] || cp "$m" "$m.prog"
	echo "$cfg $r $(awk "$RUN_AWK"'END { print w[1], c[1] }' "$m")" \
		"$(awk "$RUN_AWK"'END { print w[1] }' "$m.prog") 1" >>"$tmp/row"
}

# Table layout: the row's name, then three ratio columns a configuration.
printf '\n%-9s %3s %7s %6s' "" "" plain plain
for c in $CFGS; do printf ' %-20s' "  $c"; done
printf '\n%-9s %3s %7s %6s' program thr "wall s" "cpu s"
for c in $CFGS; do printf ' %6s %6s %6s' wall cpu prog; done
printf '\n'
[ -n "$CSV" ] && echo "program,threads,config,plain_wall_s,plain_cpu_s,wall_x,cpu_x,prog_x,status" >"$CSV"
: >"$tmp/fail"
: >"$tmp/sum"

# The configurations of a round, plain included, rotated by K places.
# shellcheck disable=SC2086 # CFGS and the halves are lists of words
rotate() {
	k=$1
	set -- plain $CFGS
	k=$((k % $#))
	i=0 head='' tail=''
	for c in "$@"; do
		if [ $i -lt $k ]; then tail="$tail $c"; else head="$head $c"; fi
		i=$((i + 1))
	done
	echo $head $tail
}

row=0
for p in $PROGS; do
	case $p in pigz | xz | zstd | sort)
		if ! command -v "$p" >/dev/null; then
			echo "$p: not installed, skipped (make bench-real installs it)"
			continue
		fi ;;
	esac
	for n in $THREADS; do
		: >"$tmp/row"
		for r in $(seq 1 "$ROUNDS"); do
			for c in $(rotate $((row + r - 1))); do
				case " $absent " in *" $c "*) continue ;; esac
				run_one "$c" "$p" "$n" "$r"
			done
		done
		row=$((row + 1))
		# A profiled run must print what the plain run printed.
		if [ -f "$tmp/out.plain.1" ]; then
			for f in "$tmp"/out.*; do
				cmp -s "$f" "$tmp/out.plain.1" && continue
				c=${f#"$tmp"/out.}
				echo "BAD ${c%.*}" >>"$tmp/row"
				{
					echo "FAIL: $p $n ${c%.*}, round ${c##*.}: output differs from the plain run's"
					echo "  | plain: $(head -c 200 "$tmp/out.plain.1")"
					echo "  | this:  $(head -c 200 "$f")"
				} >>"$tmp/fail"
			done
			rm -f "$tmp"/out.*
		fi
		awk -v prog="$p" -v thr="$n" -v cfgs="$CFGS" -v absent=" $absent " -v rounds="$ROUNDS" \
			-v csv="$CSV" -v sum="$tmp/sum" "$MEDIAN_AWK"'
		$1 == "BAD" { bad[$2] = 1; next }
		{ W[$1, $2] = $3; C[$1, $2] = $4; P[$1, $2] = $5; if (!$6) bad[$1] = 1 }
		END {
			for (i = 1; i <= rounds; i++) { pw[i] = W["plain", i]; pc[i] = C["plain", i] }
			if (bad["plain"]) {
				printf "%-9s %3d %7s %6s  FAIL (the plain run)\n", prog, thr, "FAIL", ""
				if (csv != "") printf "%s,%d,plain,,,,,,FAIL\n", prog, thr >> csv
				exit
			}
			mw = median(pw, rounds); mc = median(pc, rounds)
			printf "%-9s %3d %7.2f %6.2f", prog, thr, mw, mc
			nc = split(cfgs, cf, " ")
			for (k = 1; k <= nc; k++) {
				c = cf[k]
				if (index(absent, " " c " ")) {
					printf " %6s %6s %6s", "-", "-", "-"
					if (csv != "") printf "%s,%d,%s,%.4f,%.4f,,,,absent\n", prog, thr, c, mw, mc >> csv
					continue
				}
				if (bad[c]) {
					printf " %6s %6s %6s", "FAIL", "", ""
					if (csv != "") printf "%s,%d,%s,%.4f,%.4f,,,,FAIL\n", prog, thr, c, mw, mc >> csv
					continue
				}
				for (i = 1; i <= rounds; i++) {
					wx[i] = W[c, i] / W["plain", i]
					cx[i] = C[c, i] / C["plain", i]
					px[i] = P[c, i] / W["plain", i]
				}
				a = median(wx, rounds); b = median(cx, rounds); d = median(px, rounds)
				printf " %5.2fx %5.2fx %5.2fx", a, b, d
				if (csv != "") printf "%s,%d,%s,%.4f,%.4f,%.4f,%.4f,%.4f,ok\n", prog, thr, c, mw, mc, a, b, d >> csv
				printf "%s %.6f %.6f %.6f %s/%d\n", c, a, b, d, prog, thr >> sum
			}
			printf "\n"
		}' "$tmp/row"
	done
done

# Geometric mean and maximum of each column over the rows measured.
[ -n "$CFGS" ] && awk -v cfgs="$CFGS" '
{ n[$1]++; for (j = 2; j <= 4; j++) { lg[$1, j] += log($j); if ($j > mx[$1, j]) { mx[$1, j] = $j; at[$1, j] = $5 } } }
END {
	nc = split(cfgs, cf, " ")
	printf "%-9s %3s %7s %6s", "geomean", "", "", ""
	for (k = 1; k <= nc; k++)
		for (j = 2; j <= 4; j++)
			if (n[cf[k]]) printf " %5.2fx", exp(lg[cf[k], j] / n[cf[k]]); else printf " %6s", "-"
	printf "\n%-9s %3s %7s %6s", "max", "", "", ""
	for (k = 1; k <= nc; k++)
		for (j = 2; j <= 4; j++)
			if (n[cf[k]]) printf " %5.2fx", mx[cf[k], j]; else printf " %6s", "-"
	printf "\n"
	if (NR) {
		printf "max wall at:"
		for (k = 1; k <= nc; k++) if (n[cf[k]]) printf " %s %s;", cf[k], at[cf[k], 2]
		printf "\n"
	}
}' "$tmp/sum"

if [ -s "$tmp/fail" ]; then
	printf '\nfailures (stderr tails):\n'
	cat "$tmp/fail"
fi
printf '\nsuite time: %d s\n' $(($(date +%s) - start))
