#!/bin/sh
# Soft-sampling accuracy against ground truth: in the arrays workload each
# of four functions touches exactly one static array with one kind and
# size of access (read_a: arr_load64 load 8, write_b: arr_store32 store 4,
# rmw_c: arr_rmw64 rmw 8, read_d: arr_load16 load 2).  Of the memory
# samples whose function is one of them, at least 90% must name that
# function's array, kind and size; at least 200 such samples, and 20 in
# each function, are expected.  The rate is the one the overhead budget
# sets (cdt.1), so the clock is the POSIX one wherever its tick is cheap;
# 24 iterations (~3 s of CPU) give ~1000 samples here and >= 750 even at
# one a 4 ms tick, with read_d, the least sampled, at ~6%: ~45, 5 sd
# above 20.
set -u

. "$(dirname "$0")/lib/common.sh"

if [ ! -x "$W/arrays" ]; then
	echo "skip: workload $W/arrays not built (tests/workloads/arrays.c missing?)"
	exit 77
fi

"$CDT" record -o "$tmp/a.data" "$W/arrays" 4 24 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "cdt record arrays 4: expected exit 0, got $rc; stderr: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/a.data" --csv --top 0 --view samples >"$tmp/samples.csv" 2>"$tmp/err" ||
	fail "samples view failed: $(cat "$tmp/err")"
want='thread,pid,tid,time_ns,cpu,kind,size,addr,ip,function,file,line,object,offset,flags'
[ "$(head -n 1 "$tmp/samples.csv")" = "$want" ] ||
	fail "samples CSV header: expected '$want', found '$(head -n 1 "$tmp/samples.csv")'"

# Columns: 6 kind, 7 size, 10 function, 13 object, 15 flags.
awk -F, '
BEGIN {
	obj["read_a"] = "arr_load64";  kind["read_a"] = "load";  size["read_a"] = 8
	obj["write_b"] = "arr_store32"; kind["write_b"] = "store"; size["write_b"] = 4
	obj["rmw_c"] = "arr_rmw64";    kind["rmw_c"] = "rmw";    size["rmw_c"] = 8
	obj["read_d"] = "arr_load16";  kind["read_d"] = "load";  size["read_d"] = 2
}
NR > 1 && ($10 in obj) && $15 ~ /a/ {
	n++; per[$10]++
	if ($13 == obj[$10] && $6 == kind[$10] && $7 == size[$10]) { ok++; okf[$10]++ }
	else if (bad < 5) { bad++; print "wrong: " $0 > "/dev/stderr" }
}
END {
	printf "accuracy: %.1f%% of %d samples", n ? 100 * ok / n : 0, n
	for (f in per) printf " %s=%d/%d", f, okf[f], per[f]
	printf "\n"
	for (f in obj) if (per[f] < 20) few = 1
	exit !(n >= 200 && ok * 10 >= n * 9 && !few)
}' "$tmp/samples.csv" >"$tmp/acc" 2>"$tmp/wrong"
rc=$?
cat "$tmp/acc"
[ $rc -eq 0 ] || fail "expected >= 90% of >= 200 samples right, >= 20 per function; $(cat "$tmp/acc"); e.g. $(cat "$tmp/wrong")"
exit 0
