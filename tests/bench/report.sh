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
# it.  comm records are summed as they are read (lib/comm.c, comm_fold),
# so their RSS stays that of the aggregate; record samples are kept (the
# samples view lists them; 56 bytes each).  The machine should be
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
ROUNDS=${BENCH_ROUNDS:-3}
RECORDS=${RECORDS:-1000000}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -x "$CDT" ] || die "no cdt front end at $CDT (make cdt)"
for g in genprofile genrecord; do
	[ -x "$BUILD/bench/$g" ] || die "no profile generator at $BUILD/bench/$g (make $BUILD/bench/$g)"
done
case $ROUNDS in '' | *[!0-9]* | 0) die "BENCH_ROUNDS must be a positive number" ;; esac
case $RECORDS in '' | *[!0-9]* | 0) die "RECORDS must be a positive number" ;; esac
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$tmp/rusage" "$top/tests/bench/rusage.c" ||
	die "cannot build tests/bench/rusage.c"
R=$tmp/rusage

# row NAME RUNFILE MB: the medians of a run file.
row() {
	awk -v name="$1" -v mb="$3" '
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
		printf "%-26s %7.3f %7.3f %7.1f %7.1f  %s\n", name, m, median(c, n), median(r, n), mb,
			m < 1 ? "ok" : "OVER 1 s"
	}' "$2"
}

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
	row "$name" "$tmp/run" "$mb"
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
