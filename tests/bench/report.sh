#!/bin/sh
# How long the text report of a large profile takes, and how much memory
# (make bench).
#
# Generated profiles of RECORDS records (default 1000000):
#   comm, 64 threads      tests/bench/genprofile.c, 20000 cache lines
#   comm, 256 threads     the same with 256 threads
#   comm, 4 ranks merged  4 files of RECORDS/4 records, 64 threads each,
#                         read with -i 'cdt.data.*'
#   record, 64 threads    tests/bench/genrecord.c: samples with symbols
# each reported BENCH_ROUNDS times (default 3) as `cdt report -i FILE
# >/dev/null` (the whole text report: every view of the default report).
# Rows, medians over rounds (tests/bench/rusage.c):
#
#   wall s     start to exit
#   cpu s      user + sys
#   rss MB     peak RSS
#   file MB    size of the profile(s) on disk (compressed)
#
# The target is under 1 s; the last column says whether the median met
# it.  comm records are summed as they are read (lib/tools/comm/model.c, comm_fold),
# so their RSS stays that of the aggregate; record samples are kept (the
# samples view lists them; 56 bytes each).  The machine should be
# otherwise idle.
#
# Environment: CDT_PLAIN (default ./cdt), BUILD (default build),
# BENCH_ROUNDS, RECORDS, CC.
set -u

. "$(dirname "$0")/lib.sh"
ROUNDS=${BENCH_ROUNDS:-3}
RECORDS=${RECORDS:-1000000}
need_gen genprofile genrecord
need_count BENCH_ROUNDS "$ROUNDS"
need_count RECORDS "$RECORDS"
build_rusage

# bench STEM NAME ARGS...: time `cdt report ARGS` ROUNDS times; the
# profiles are $tmp/STEM.*.
bench() {
	stem=$1 name=$2
	shift 2
	: >"$tmp/run"
	for r in $(seq 1 "$ROUNDS"); do
		"$R" -o "$tmp/run" "$CDT" report "$@" >/dev/null 2>"$tmp/err" ||
			die "cdt report $* failed: $(cat "$tmp/err")"
	done
	mb=$(du -ck "$tmp/$stem".* | awk 'END { print $1 / 1024 }')
	row_medians "$name" "$tmp/run" '%-26s %7.3f %7.3f %7.1f %7.1f  %s\n' "$mb"
}

G=$BUILD/bench
"$G/genprofile" -o "$tmp/comm64.data" -n "$RECORDS" -t 64 || die "genprofile failed"
"$G/genprofile" -o "$tmp/comm256.data" -n "$RECORDS" -t 256 || die "genprofile failed"
for r in 0 1 2 3; do
	"$G/genprofile" -o "$tmp/ranks.data.$r" -n $((RECORDS / 4)) -t 64 -s $((r + 7)) ||
		die "genprofile failed"
done
"$G/genrecord" -o "$tmp/record64.data" -n "$RECORDS" -t 64 || die "genrecord failed"

printf 'cdt report, text: %d rounds, medians; %s records per profile; %s, %s CPUs\n\n' \
	"$ROUNDS" "$RECORDS" "$("$CDT" --version)" "$(getconf _NPROCESSORS_ONLN)"
printf '%-26s %7s %7s %7s %7s  %s\n' "" "wall s" "cpu s" "rss MB" "file MB" "< 1 s"
bench comm64 "comm, 64 threads" -i "$tmp/comm64.data"
bench comm256 "comm, 256 threads" -i "$tmp/comm256.data"
bench ranks "comm, 4 ranks merged" -i "$tmp/ranks.data.*"
bench record64 "record, 64 threads" -i "$tmp/record64.data"
