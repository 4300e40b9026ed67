#!/bin/sh
# cdt's own cost is never the finding: dlloop dlopens and dlcloses a
# library 1000 times while a second thread spins in spin_work.  At every
# dlopen the agent reads the modules' function tables again (fvar needs
# them in its handler); it once sorted every function of every module
# with glibc's qsort each time, so 34-46% of the samples fell in
# msort_with_tmp called from the agent, the first finding, and the
# program ran 30x slower.  Now a module's table is read once and kept,
# samples taken while the agent works are left out, and the agent's own
# frames are named [cdt agent], never a bare module offset.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads dlloop

timeout 120 "$CDT" fvar -q -o "$tmp/dl.data" "$W/dlloop" 1000 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "cdt fvar dlloop: exit $rc: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/dl.data" --csv --top 0 --show-all --view functions >"$tmp/fn" 2>"$tmp/rerr" ||
	fail "report functions: $(cat "$tmp/rerr")"
"$CDT" report -i "$tmp/dl.data" --view findings >"$tmp/findings" 2>"$tmp/rerr" ||
	fail "report findings: $(cat "$tmp/rerr")"
cols "$tmp/fn" function | grep -q '^spin_work$' || fail "no samples in the program's spin_work: $(cat "$tmp/fn")"
# The agent's work (its sort, its module walk) is not the program's.
bad=$(cols "$tmp/fn" function | grep -E -e 'msort|qsort' -e '^/proc/self/fd' -e '^[0-9]+[+@]0x')
[ -z "$bad" ] || fail "cdt's own work shown as the program's functions: $bad"
! grep -E -q -e 'msort|qsort' -e '(^| )[0-9]+\+0x' "$tmp/findings" ||
	fail "cdt's own work in the findings: $(cat "$tmp/findings")"
exit 0
