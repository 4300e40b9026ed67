# The common part of the benchmark scripts (run.sh, report.sh,
# tui_open.sh), sourced by each as
#
#   . "$(dirname "$0")/lib.sh"
#
# It sets top (the source tree), CDT (CDT_PLAIN, default ./cdt) and BUILD
# (default build), both made absolute, and tmp, a scratch directory
# removed on exit; defines die and the helpers below; and stops with a
# message when there is no cdt front end.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
CDT=${CDT_PLAIN:-$top/cdt}
BUILD=${BUILD:-$top/build}
case $CDT in /*) ;; *) CDT=$(pwd)/$CDT ;; esac
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -x "$CDT" ] || die "no cdt front end at $CDT (make cdt)"

# need_gen NAME...: the profile generators $BUILD/bench/NAME must be built.
need_gen() {
	for g in "$@"; do
		[ -x "$BUILD/bench/$g" ] || die "no profile generator at $BUILD/bench/$g (make $BUILD/bench/$g)"
	done
}

# need_count NAME VALUE: VALUE (of the variable NAME) must be a whole
# number above 0.
need_count() {
	case $2 in '' | *[!0-9]* | 0) die "$1 must be a positive number" ;; esac
}

# build_rusage: compile tests/bench/rusage.c into $tmp; R is the program.
build_rusage() {
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$tmp/rusage" "$top/tests/bench/rusage.c" ||
		die "cannot build tests/bench/rusage.c"
	R=$tmp/rusage
}

# Awk text to put in front of an awk program: median(a, n), the median
# of a[1..n] (it sorts a).
MEDIAN_AWK='
function median(a, n,   i, j, x) {
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

# Awk text, the same and more, for a run file of rusage (one round a
# line, key=value fields): round n (1, 2, ...) into w[n] (wall s), c[n]
# (user + sys s) and k[n] (peak RSS, kB).  Rules after it see them.
RUN_AWK=$MEDIAN_AWK'
{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	n++; w[n] = v["wall_s"]; c[n] = v["user_s"] + v["sys_s"]; k[n] = v["maxrss_kb"]
}'

# row_medians NAME RUNFILE FORMAT [MB]: one table row, printf FORMAT with
# NAME, the medians of wall s, CPU s and RSS MB, then MB if given, and
# "ok" or "OVER 1 s" as the median wall time is under 1 s or not.
row_medians() {
	awk -v name="$1" -v fmt="$3" -v mb="${4:-}" "$RUN_AWK"'
	END {
		for (i = 1; i <= n; i++) r[i] = k[i] / 1024
		m = median(w, n)
		if (mb == "")
			printf fmt, name, m, median(c, n), median(r, n), m < 1 ? "ok" : "OVER 1 s"
		else
			printf fmt, name, m, median(c, n), median(r, n), mb, m < 1 ? "ok" : "OVER 1 s"
	}' "$2"
}
