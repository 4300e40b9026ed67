# Shared helpers of the `cdt comm` end-to-end tests (tests/e2e/comm_*.sh),
# sourced, POSIX sh.  Not a test itself: it lives below tests/e2e/ so the
# runner does not run it.
#
# A test does:
#   . "$(dirname "$0")/comm/lib.sh"
#   comm_init NAME
#   comm_run TAG WORKLOAD ARGS...   profile build/workloads/WORKLOAD under
#                                   `cdt comm`, with the workload's tid file
#   comm_check TAG KIND CELLS [checker options]
#   comm_totals TAG                 sets all, ts, fs (comm_no_fs TAG: and
#                                   checks fs is at most 10% of all)
#   ...
# Files of a run TAG in $tmp: TAG.data, TAG.out/.err (cdt's stdout, with
# the workload's summary line, and stderr), TAG.tids (worker tid), the
# CSV views TAG.VIEW.csv, TAG.map (worker index).
#
# Extra `cdt comm` options for every run (e.g. "--source soft -F 2000")
# may be given in CDT_COMM_ARGS; KEEP=1 keeps $tmp for a look.

COMM_DIR=$(cd "$(dirname "$0")/comm" && pwd)
# cols FILE COL... (the shared e2e helper; not the rest of lib/common.sh,
# whose set-up needs CDT)
E2E_CSV_ONLY=1
. "$COMM_DIR/../lib/common.sh"
unset E2E_CSV_ONLY

comm_init() {
	COMM_NAME=$1
	tmp=$(mktemp -d) || exit 1
	trap '[ -n "${KEEP:-}" ] && echo "$COMM_NAME: kept $tmp" >&2 || rm -rf "$tmp"' EXIT
	trap 'exit 1' INT TERM
}

fail() {
	echo "$COMM_NAME: $*" >&2
	exit 1
}

# comm_budget: COMM_BUDGET, the overhead budget of the runs.  Without
# debug-register traps (some hypervisors) comm detects on samples alone,
# a count that grows with the square of the rate.  The default 5% buys
# about 500 Hz on this project's bhyve guest, where a perf sample costs
# 50 us: an eighth of 2 kHz's detections, and under load the pattern
# checks lose their odds (a master run saw 13).  There the tests give
# comm 25%, what 2 kHz cost; with traps, the default (cdt.1).
COMM_BUDGET=unset
comm_budget() {
	[ "$COMM_BUDGET" = unset ] || return 0
	COMM_BUDGET=''
	"${CDT_PLAIN:-$CDT}" probe --csv 2>/dev/null | grep -q '^watchpoint_trap,ok' ||
		COMM_BUDGET='--max-overhead 25'
}

# comm_run TAG WORKLOAD ARGS...: run the workload under `cdt comm`; it
# must exit 0 (its self-check passed), and the profile must have all of
# the views the tests read.  Then map its workers to cdt's thread indices.
comm_run() {
	_tag=$1 _wl=$2
	shift 2
	: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
	[ -x "$BUILD/workloads/$_wl" ] || fail "expected the workload $BUILD/workloads/$_wl (make workloads)"
	comm_budget
	# shellcheck disable=SC2086 # CDT_COMM_ARGS is a list of words
	"$CDT" comm -q -o "$tmp/$_tag.data" $COMM_BUDGET ${CDT_COMM_ARGS:-} \
		"$BUILD/workloads/$_wl" -T "$tmp/$_tag.tids" "$@" >"$tmp/$_tag.out" 2>"$tmp/$_tag.err"
	_rc=$?
	[ $_rc -eq 0 ] || fail "cdt comm $_wl $*: expected exit 0 (the workload's), got $_rc; stderr: $(tail -n 20 "$tmp/$_tag.err")"
	[ -s "$tmp/$_tag.data" ] || fail "cdt comm $_wl $*: no profile written"
	grep -q "^$_wl: " "$tmp/$_tag.out" || fail "cdt comm $_wl $*: the workload's summary line is not on stdout"
	[ -s "$tmp/$_tag.tids" ] || fail "cdt comm $_wl $*: the workload wrote no tids"
	for _v in matrix threads summary; do
		comm_view "$_tag" $_v
	done
	comm_map "$_tag"
}

# comm_view TAG VIEW: $tmp/TAG.VIEW.csv from the profile of run TAG.
comm_view() {
	"$CDT" report -i "$tmp/$1.data" --csv --view="$2" >"$tmp/$1.$2.csv" 2>"$tmp/$1.$2.err" ||
		fail "cdt report --csv --view=$2 ($1): $(cat "$tmp/$1.$2.err")"
	[ -s "$tmp/$1.$2.csv" ] || fail "cdt report --csv --view=$2 ($1): empty output"
}

# comm_viewcols TAG VIEW COL...: cols of view VIEW of run TAG (made
# with comm_view if not there yet).
comm_viewcols() {
	_vtag=$1 _view=$2
	shift 2
	[ -s "$tmp/$_vtag.$_view.csv" ] || comm_view "$_vtag" "$_view"
	cols "$tmp/$_vtag.$_view.csv" "$@" 2>"$tmp/$_vtag.colerr" ||
		fail "$_view view ($_vtag): $(cat "$tmp/$_vtag.colerr")"
}

# comm_map TAG: $tmp/TAG.map, "worker index" for every worker, from the
# workload's tids and the threads view.  Every worker must be a thread of
# the profile.  cdt numbers threads in creation order from 0 = main, and
# the workloads create worker k as the k-th thread, so the map should be
# the identity; the tests go by tids all the same.
comm_map() {
	comm_viewcols "$1" threads index tid >"$tmp/$1.itid"
	awk -F'\t' 'FILENAME == ARGV[1] { idx[$2] = $1; next }
		!($2 in idx) { print "worker " $1 " (tid " $2 ") is not in the threads view" > "/dev/stderr"; bad = 1; next }
		{ print $1, idx[$2] }
		END { exit bad }' "$tmp/$1.itid" FS=' ' "$tmp/$1.tids" >"$tmp/$1.map" 2>"$tmp/$1.maperr" ||
		fail "$(cat "$tmp/$1.maperr"); threads view: $(cat "$tmp/$1.threads.csv")"
	awk '$1 != $2 { exit 1 }' "$tmp/$1.map" ||
		echo "$COMM_NAME: note: worker != thread index in run $1: $(tr '\n' ' ' <"$tmp/$1.map")" >&2
}

# comm_nworkers TAG: how many workers run TAG had.
comm_nworkers() {
	wc -l <"$tmp/$1.tids" | tr -d ' '
}

# comm_check TAG KIND CELLS [check_matrix options]: the KIND (all|ts|fs)
# thread matrix of run TAG against the designed CELLS.
comm_check() {
	_tag=$1 _kind=$2 _cells=$3
	shift 3
	sh "$COMM_DIR/check_matrix.sh" -k "$_kind" -l thread -m "$tmp/$_tag.map" \
		-n "$(comm_nworkers "$_tag")" -e "$_cells" "$@" "$tmp/$_tag.matrix.csv" >"$tmp/$_tag.check" 2>&1
	_rc=$?
	cat "$tmp/$_tag.check"
	[ $_rc -eq 0 ] || fail "run $_tag: the $_kind matrix does not match the designed cells $_cells: $(cat "$tmp/$_tag.check")"
}

# comm_sum TAG KEY: the value of KEY in the summary view of run TAG.
comm_sum() {
	comm_viewcols "$1" summary key value >"$tmp/$1.kv"
	_val=$(awk -F'\t' -v k="$2" '$1 == k { print $2; n++ } END { exit n != 1 }' "$tmp/$1.kv") ||
		fail "summary view ($1): expected one row $2; got: $(cat "$tmp/$1.summary.csv")"
	comm_isnum "$_val" || fail "summary view ($1): $2 = '$_val' is not a plain number"
	echo "$_val"
}

# comm_cell TAG KIND I J: the count of workers I and J in the KIND thread
# matrix of run TAG (0 if absent).
comm_cell() {
	awk -F, -v kind="$2" -v wi="$3" -v wj="$4" -v mapf="$tmp/$1.map" '
	FILENAME == mapf { split($0, m, " "); idx[m[1]] = m[2]; next }
	FNR == 1 { sub(/\r$/, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ sub(/\r$/, "") }
	$col["matrix"] == kind && $col["level"] == "thread" {
		f = $col["from"]; t = $col["to"]
		if ((f == idx[wi] && t == idx[wj]) || (f == idx[wj] && t == idx[wi])) v = $col["count"]
	}
	END { print v + 0 }' "$tmp/$1.map" "$tmp/$1.matrix.csv"
}

# comm_obj TAG VIEW NAME COL: the sum of column COL (ts or fs) over the
# rows of view VIEW (objects or lines) whose object is NAME: exactly, or
# NAME followed by a non-identifier character (a renderer may add an
# offset or the module: "counters+8", "counters [comm_padding]").
comm_obj() {
	comm_viewcols "$1" "$2" object "$4" >"$tmp/$1.$2.obj"
	awk -F'\t' -v name="$3" '
	{ o = $1; if (substr(o, 1, length(name)) != name) next
	  rest = substr(o, length(name) + 1); if (rest != "" && rest ~ /^[A-Za-z0-9_]/) next
	  if ($2 !~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) { print "bad count: " $2 > "/dev/stderr"; exit 1 }
	  s += $2 }
	END { printf "%.10g\n", s }' "$tmp/$1.$2.obj" || fail "$2 view ($1): bad $4 column"
}

# comm_addr ADDR: an address, 0x-hex or decimal, as a decimal string.
comm_addr() {
	case $1 in
	0x* | 0X*) printf '%d\n' "$1" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

comm_isnum() {
	case $1 in
	'' | *[!0-9.eE+-]*) return 1 ;;
	esac
	awk -v s="$1" 'BEGIN { exit !(s ~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) }'
}

# comm_ratio A B: A / B, or "none" when B is 0.
comm_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "none"; else printf "%.4f\n", a / b }'
}

# comm_assert EXPR MESSAGE: fail with MESSAGE unless the awk expression
# EXPR (numbers only) is true.
comm_assert() {
	awk "BEGIN { exit !($1) }" || fail "$2 (want $1)"
}

# comm_sums TAG: sets all, ts and fs to the all_total, ts_total and
# fs_total of run TAG.  (Not in $(...): fail would only leave the
# subshell.)
comm_sums() {
	all=$(comm_sum "$1" all_total) || exit 1
	ts=$(comm_sum "$1" ts_total) || exit 1
	fs=$(comm_sum "$1" fs_total) || exit 1
}

# comm_totals TAG: comm_sums, checking that all > 0 and ts + fs = all
# within 1%.
comm_totals() {
	comm_sums "$1"
	comm_assert "$all > 0" "run $1: no communication detected (all_total = $all)"
	comm_assert "($ts + $fs - $all) <= 0.01 * $all && ($all - $ts - $fs) <= 0.01 * $all" \
		"run $1: ts_total $ts + fs_total $fs != all_total $all"
}

# comm_no_fs TAG: comm_totals, and fs_total <= 10% of all_total, for the
# designs without false sharing (10% is room for noise).
comm_no_fs() {
	comm_totals "$1"
	comm_assert "$fs <= 0.1 * $all" "run $1: fs_total $fs of all_total $all; the design has no false sharing"
}

# Designed patterns as check_matrix cell lists, over workers 0..N-1.
# pat_all N: every pair.  pat_star N: 0 with everybody.  pat_ring N:
# k with k+1 mod N.  pat_chain N: k with k+1.  pat_pairs N: 2j with 2j+1.
# pat_xor N P [FROM]: k with k XOR p for p = FROM..P (FROM default 1).
pat_all() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) s = s (s == "" ? "" : ",") i "-" j; print s }'
}
pat_star() {
	awk -v n="$1" 'BEGIN { for (j = 1; j < n; j++) s = s (s == "" ? "" : ",") 0 "-" j; print s }'
}
pat_ring() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) { j = (i + 1) % n; if (n > 2 || i == 0) s = s (s == "" ? "" : ",") (i < j ? i "-" j : j "-" i) }; print s }'
}
pat_chain() {
	awk -v n="$1" 'BEGIN { for (i = 0; i + 1 < n; i++) s = s (s == "" ? "" : ",") i "-" (i + 1); print s }'
}
pat_pairs() {
	awk -v n="$1" 'BEGIN { for (i = 0; i + 1 < n; i += 2) s = s (s == "" ? "" : ",") i "-" (i + 1); print s }'
}
pat_xor() {
	awk -v n="$1" -v np="$2" -v p0="${3:-1}" '
	function xor(a, b,   r, bit) { r = 0; for (bit = 1; a > 0 || b > 0; bit *= 2) { if ((a % 2) != (b % 2)) r += bit; a = int(a / 2); b = int(b / 2) } return r }
	BEGIN { for (p = p0; p <= np; p++) for (i = 0; i < n; i++) { j = xor(i, p); if (i < j) s = s (s == "" ? "" : ",") i "-" j }; print s }'
}
