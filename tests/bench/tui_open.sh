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

. "$(dirname "$0")/lib.sh"
ROUNDS=${BENCH_ROUNDS:-5}
RECORDS=${RECORDS:-1000000}
GEN=$BUILD/bench/genprofile
need_gen genprofile
command -v script >/dev/null 2>&1 || die "script(1) is needed for a terminal (bsdutils)"
need_count BENCH_ROUNDS "$ROUNDS"
build_rusage

# row NAME RUNFILE: the medians of a run file.
row() {
	row_medians "$1" "$2" '%-34s %7.3f %7.3f %7.1f  %s\n'
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
