#!/bin/sh
# Under a launcher each rank writes its own profile: with no -o, the
# default name is cdt.data.RANK when OMPI_COMM_WORLD_RANK or SLURM_PROCID
# holds a number, and plain cdt.data otherwise (no variable, or a value
# that is not a number).  Each file must be a readable profile.
set -u

. "$(dirname "$0")/lib/common.sh"

need_workloads exitwith

# A clean environment as far as launchers go.
unset OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK SLURM_PROCID MV2_COMM_WORLD_RANK

# check DIR WANT VAR=VALUE...: run cdt in DIR with that environment; the
# only file written must be WANT, and readable.
check() {
	dir=$tmp/$1 want=$2
	shift 2
	mkdir "$dir" || exit 1
	(cd "$dir" && env "$@" "$CDT" record -q "$W/exitwith" 0 >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ "$rc" -eq 0 ] || fail "$*: expected exit 0, got $rc; stderr: $(cat "$tmp/err")"
	[ "$(ls -A "$dir")" = "$want" ] ||
		fail "$*: expected exactly the file $want, found: $(ls -A "$dir" | tr '\n' ' ')"
	"$CDT" report -i "$dir/$want" --csv --view summary >/dev/null 2>"$tmp/err" ||
		fail "$*: $want is not readable: $(cat "$tmp/err")"
}

check ompi cdt.data.3 OMPI_COMM_WORLD_RANK=3
check slurm cdt.data.5 SLURM_PROCID=5
check none cdt.data CDT_E2E_NO_RANK=1
check notnum cdt.data OMPI_COMM_WORLD_RANK=x3

# -o wins over the rank.
mkdir "$tmp/explicit"
(cd "$tmp/explicit" && env OMPI_COMM_WORLD_RANK=3 "$CDT" record -q -o mine.data "$W/exitwith" 0 \
	>/dev/null 2>"$tmp/err") || fail "-o with a rank set: cdt failed: $(cat "$tmp/err")"
[ "$(ls -A "$tmp/explicit")" = mine.data ] ||
	fail "-o mine.data with a rank set: expected only mine.data, found: $(ls -A "$tmp/explicit" | tr '\n' ' ')"
exit 0
