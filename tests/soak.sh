#!/bin/sh
# The suite, RUNS times in a row (default 20), with LOAD busy loops on the
# other cores (default 1: stress-ng --cpu 1), the way a shared CI runner
# is: `make soak` or `sh tests/soak.sh [RUNS [LOAD]]` after `make check`
# built everything.  Prints one line per run and "N/RUNS passed"; keeps the
# log of each failed run in $SOAK_DIR (default build/soak).  Exit 0 only
# if every run passed.
: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
runs=${1:-20}
load=${2:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${SOAK_DIR:-$BUILD/soak}
mkdir -p "$dir" || exit 1
stress=''
if [ "$load" -gt 0 ]; then
	command -v stress-ng >/dev/null || { echo "soak: stress-ng is not installed (make deps)"; exit 2; }
	stress-ng --cpu "$load" --timeout 0 >/dev/null 2>&1 &
	stress=$!
fi
trap '[ -z "$stress" ] || kill "$stress" 2>/dev/null' EXIT
trap 'exit 1' INT TERM
ok=0
for i in $(seq 1 "$runs"); do
	t0=$(date +%s)
	if sh "$top/tests/run.sh" >"$dir/run.$i.log" 2>&1 </dev/null; then
		ok=$((ok + 1))
		echo "run $i: ok ($(($(date +%s) - t0)) s)"
		rm -f "$dir/run.$i.log"
	else
		echo "run $i: FAILED ($(($(date +%s) - t0)) s): $(tail -n 2 "$dir/run.$i.log" | head -n 1); log in $dir/run.$i.log"
	fi
done
echo "$ok/$runs passed with stress-ng --cpu $load"
[ "$ok" -eq "$runs" ]
