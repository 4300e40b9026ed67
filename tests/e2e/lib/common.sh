# Shared set-up and helpers of the end-to-end tests; each tests/e2e/*.sh
# starts with
#	. "$(dirname "$0")/lib/common.sh"
# (This file is below lib/ because tests/run.sh runs every tests/e2e/*.sh.)
#
# Afterwards CDT and BUILD are absolute paths (tests may cd), W names the
# built workloads, me the test (for messages) and tmp a fresh directory,
# removed at exit unless KEEP is set.  A test that starts cdt in the
# background keeps its pid in cdt_pid, and the program's in target, while
# they may still run: exit kills those, and only those.
#
# comm/lib.sh takes only cols from here: with E2E_CSV_ONLY=1, sourcing
# stops right after cols, before the set-up that needs CDT (the comm
# checker self-test, comm_checker.sh, runs without cdt).

# cols FILE COL...: the named columns of a CSV file, tab-separated,
# without the header; CRLF line ends are taken.  Fails (exit 2) on a
# missing column or a quoted field.
cols() {
	_f=$1
	shift
	awk -F, -v want="$*" '
	{ sub(/\r$/, "") }
	/"/ { print "cols: quoted CSV field on line " NR ": " $0 > "/dev/stderr"; exit 2 }
	NR == 1 {
		n = split(want, w, " ")
		for (i = 1; i <= NF; i++) idx[$i] = i
		for (k = 1; k <= n; k++)
			if (!(w[k] in idx)) { print "cols: no column " w[k] " in: " $0 > "/dev/stderr"; exit 2 }
		next
	}
	{ s = ""; for (k = 1; k <= n; k++) s = s (k > 1 ? "\t" : "") $(idx[w[k]]); print s }' "$_f"
}

[ -z "${E2E_CSV_ONLY:-}" ] || return 0

: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
case $CDT in /*) ;; */*) CDT=$(pwd)/$CDT ;; esac
case ${CDT_PLAIN:-} in /* | '') ;; */*) CDT_PLAIN=$(pwd)/$CDT_PLAIN ;; esac
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
W=$BUILD/workloads
me=${0##*/}
tmp=$(mktemp -d) || exit 1
cdt_pid='' target=''

e2e_cleanup() {
	if [ -n "$cdt_pid" ]; then
		[ -n "$target" ] || target=$(child_of "$cdt_pid")
		kill -KILL "$cdt_pid" 2>/dev/null
	fi
	for p in $target; do kill -KILL "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap e2e_cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "$me: $*" >&2
	exit 1
}

# plain CMD...: a workload run without cdt, time-boxed (PLAIN_TIMEOUT, 60
# s): one that hangs on this host (an int1 that never advances, say) ends
# with 124 and a line on stderr naming it, for the caller's fail message,
# long before the suite's limit on the whole test.
plain() {
	timeout -k 5 "${PLAIN_TIMEOUT:-60}" "$@"
	_rc=$?
	if [ $_rc -eq 124 ] || [ $_rc -eq 137 ]; then
		echo "$me: $* without cdt: timed out after ${PLAIN_TIMEOUT:-60} s" >&2
		return 124
	fi
	return $_rc
}

# need_workloads NAME...: the workloads the test runs are built.
need_workloads() {
	for w in "$@"; do
		[ -x "$W/$w" ] || fail "expected the workload $W/$w (make workloads)"
	done
}

# kv KEY: a value of the summary view (CSV) saved in $tmp/summary.
kv() {
	awk -F, -v k="$1" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$tmp/summary"
}

# child_of PID: the child processes of a pid, on one line.
child_of() {
	c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
	[ -n "$c" ] || c=$(awk -v pp="$1" '$1 == "PPid:" && $2 == pp {
		f = FILENAME; sub(/^\/proc\//, "", f); sub(/\/status$/, "", f); print f }' \
		/proc/[0-9]*/status 2>/dev/null)
	echo $c # one line
}

# debug_traps: 0 when this machine delivers debug-register traps (cdt
# probe: watchpoint_trap ok), 1 when not: some hypervisors (a bhyve guest)
# open breakpoints but never fire them.  The probe takes some 50 ms (the
# plain front end); its answer is kept for the rest of the test.
debug_traps_v=''
debug_traps() {
	if [ -z "$debug_traps_v" ]; then
		debug_traps_v=$("${CDT_PLAIN:-$CDT}" probe --csv 2>/dev/null |
			awk -F, '$1 == "watchpoint_trap" { print $2; exit }')
		[ -n "$debug_traps_v" ] || fail "cdt probe reports no watchpoint_trap"
	fi
	[ "$debug_traps_v" = ok ]
}

# need_debug_traps [WHAT]: skip the test (exit 77, the line tests/run.sh
# shows) on a machine that does not deliver debug-register traps.
need_debug_traps() {
	debug_traps && return 0
	echo "skip: debug-register traps are not delivered on this machine (cdt probe: watchpoint_trap fail)${1:+; $1}"
	exit 77
}

# dram_short WHAT GOT PEAK MAX: true if GOT GB/s, what the program itself
# measured, is under 65% of PEAK GB/s, the DRAM peak the verdict used ("-":
# none, and the run counts).  This host's DRAM is shared with its other
# guests, and such a run has no designed answer (e2e/membound_kernels
# says why): it is said and run again, and after MAX of them in the test
# the test fails.
dram_redo=0
dram_short() {
	[ "$3" != - ] && awk -v o="$2" -v p="$3" 'BEGIN { exit !(o < 0.65 * p) }' || return 1
	dram_redo=$((dram_redo + 1))
	echo "$1: got $2 GB/s by its own clock, under 65% of the DRAM peak ($3 GB/s): run again"
	[ $dram_redo -le "$4" ] ||
		fail "under 65% of the DRAM peak in $dram_redo runs: the machine's DRAM is not there to test"
}
