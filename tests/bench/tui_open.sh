#!/bin/sh
# How long `cdt report --tui` takes to open (make bench).
#
# A synthetic comm profile of RECORDS records (default 1000000, from
# tests/bench/genprofile.c) is opened BENCH_ROUNDS times (default 5) with
# CDT_TUI_EXIT_AFTER_DRAW=1, which makes the TUI return right after its
# first screen (the heatmap) is drawn; the pseudo-terminal comes from
# script(1).  Rows, medians over rounds (tests/bench/rusage.c):
#
#   wall s     from start to the first screen drawn and the terminal restored
#   cpu s      user + sys of cdt
#   rss MB     peak RSS of cdt
#
# for 64 and 256 threads, and, as a baseline, `cdt report --csv --view
# summary` on the same file: reading it and aggregating the matrices,
# which the TUI needs before it can draw.  The target is under 1 s; the
# last column says whether the median met it.  The machine should be
# otherwise idle.
#
# Environment: CDT_PLAIN (default ./cdt), BUILD (default build),
# BENCH_ROUNDS, RECORDS, CC.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
CDT=${CDT_PLAIN:-$top/cdt}
BUILD=${BUILD:-$top/build}
case $CDT in /*) ;; *) CDT=$(pwd)/$CDT ;; esac
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
ROUNDS=${BENCH_ROUNDS:-5}
RECORDS=${RECORDS:-1000000}
GEN=$BUILD/bench/genprofile
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -x "$CDT" ] || die "no cdt front end at $CDT (make cdt)"
[ -x "$GEN" ] || die "no profile generator at $GEN (make $BUILD/bench/genprofile)"
command -v script >/dev/null 2>&1 || die "script(1) is needed for a terminal (bsdutils)"
case $ROUNDS in '' | *[!0-9]* | 0) die "BENCH_ROUNDS must be a positive number" ;; esac
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$tmp/rusage" "$top/tests/bench/rusage.c" ||
	die "cannot build tests/bench/rusage.c"
R=$tmp/rusage

# row NAME RUNFILE: the medians of a run file.
row() {
	awk -v name="$1" '
	function median(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		n++; w[n] = v["wall_s"]; c[n] = v["user_s"] + v["sys_s"]; r[n] = v["maxrss_kb"] / 1024
	}
	END {
		m = median(w, n)
		printf "%-34s %7.3f %7.3f %7.1f  %s\n", name, m, median(c, n), median(r, n), m < 1 ? "ok" : "OVER 1 s"
	}' "$2"
}

printf 'cdt report --tui opening time: %d rounds, medians; %s records; %s, %s CPUs\n\n' "$ROUNDS" \
	"$RECORDS" "$("$CDT" --version)" "$(getconf _NPROCESSORS_ONLN)"
printf '%-34s %7s %7s %7s  %s\n' "" "wall s" "cpu s" "rss MB" "< 1 s"
for threads in 64 256; do
	data=$tmp/gen$threads.data
	"$GEN" -o "$data" -n "$RECORDS" -t "$threads" || die "genprofile failed"
	: >"$tmp/tui" && : >"$tmp/base"
	for r in $(seq 1 "$ROUNDS"); do
		script -qec "env TERM=xterm-256color CDT_TUI_EXIT_AFTER_DRAW=1 $R -o $tmp/tui $CDT report --tui -i $data" \
			/dev/null >"$tmp/out" 2>&1 </dev/null || die "cdt report --tui failed: $(tail -c 300 "$tmp/out")"
		"$R" -o "$tmp/base" "$CDT" report -i "$data" --csv --view summary >/dev/null 2>"$tmp/err" ||
			die "cdt report --csv failed: $(cat "$tmp/err")"
	done
	row "--tui, $threads threads" "$tmp/tui"
	row "baseline: read + aggregate" "$tmp/base"
done
