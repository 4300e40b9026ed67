#!/bin/sh
# C++ names are shown demangled, as written: a program built here with
# g++ does its memory work in ns::sweep(long volatile*, int), and cdt
# record's functions view must name it so, in a run that reads the
# symbol table (libstdc++'s demangler is loaded then, not at every start)
# and in one that takes the names kept from it (lib/core/symcache.c).
set -u
. "$(dirname "$0")/lib/common.sh"
CXX=${CXX:-g++}
command -v "$CXX" >/dev/null || { echo "skip: needs $CXX"; exit 77; }
export XDG_CACHE_HOME="$tmp/cache"

cat >"$tmp/sweep.cc" <<'EOF2'
namespace ns {
__attribute__((noinline)) void sweep(volatile long *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] += i;
}
}
static volatile long a[1 << 16];
int main()
{
	for (int r = 0; r < 4000; r++)
		ns::sweep(a, 1 << 16);
	return 0;
}
EOF2
"$CXX" -O1 -g -o "$tmp/sweep" "$tmp/sweep.cc" 2>"$tmp/err" || fail "$CXX failed: $(cat "$tmp/err")"
want='ns::sweep(long volatile*, int)'
for run in 1 2; do
	"$CDT" record -q -o "$tmp/s$run.data" "$tmp/sweep" >/dev/null 2>"$tmp/err" ||
		fail "run $run: cdt record: $(cat "$tmp/err")"
	"$CDT" report -i "$tmp/s$run.data" --csv --view functions >"$tmp/f$run.csv" 2>"$tmp/err" ||
		fail "run $run: functions view: $(cat "$tmp/err")"
	grep -qF "\"$want (sweep.cc:" "$tmp/f$run.csv" ||
		fail "run $run: no samples in '$want': $(head -n 5 "$tmp/f$run.csv")"
	! grep -q '_Z' "$tmp/f$run.csv" || fail "run $run: a mangled name: $(grep _Z "$tmp/f$run.csv" | head -n 3)"
done
[ -n "$(ls "$XDG_CACHE_HOME/cdt/sym" 2>/dev/null)" ] || fail "no symbols kept after run 1"
echo "named $want, from the symbol table and from the kept symbols"
