#!/bin/sh
# Data and code of a C++ program are named after the program's own lines,
# not the standard library's headers it inlined: comm_vector -l makes a
# std::vector<std::atomic<long>> in main (VECTOR_LINE) and each of its
# std::threads runs a lambda that loads and stores its own element
# through std::atomic (LOAD_LINE), all elements on one line.
#   - cdt comm: the objects view puts >= 80% of all on
#     heap@comm_vector.cc:VECTOR_LINE (main) (it was named after
#     new_allocator.h or alloc_traits.h, "via operator new"); the code
#     view >= 80% on main::{lambda}::operator() (comm_vector.cc:LOAD_LINE)
#     (it was std::thread::_State_impl<...>::_M_run() (atomic_base.h:N)),
#     whose inlined calls go from std::atomic's (atomic_base.h) to it;
#     no object or code is named after a header's line;
#   - the load/add/store of -l is one read-modify-write to comm's soft
#     samples (the load's sample publishes the line as written): at
#     least as many detections on samples as on traps (it was none on
#     samples, and 0-10 on traps, so a stressed run could find nothing);
#   - cdt record: the same names for the samples' function and object.
# The 80% leaves room for detections at thread start and join; the
# design gives 100%.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init names_cxx
: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
src=$(dirname "$0")/../workloads/comm_vector.cc
vl=$(grep -n 'VECTOR_LINE \*/' "$src" | cut -d: -f1)
ll=$(grep -n 'LOAD_LINE \*/' "$src" | cut -d: -f1)
wl=$BUILD/workloads/comm_vector
[ -x "$wl" ] || fail "expected the workload $wl (make workloads)"
obj="heap@comm_vector.cc:$vl (main)"
code="main::{lambda}::operator() (comm_vector.cc:$ll)"

comm_budget
# shellcheck disable=SC2086 # lists of words
"$CDT" comm -q -o "$tmp/c.data" $COMM_BUDGET ${CDT_COMM_ARGS:-} "$wl" -l -t 1 >"$tmp/c.out" 2>"$tmp/c.err" ||
	fail "cdt comm comm_vector: exit $?: $(tail -n 5 "$tmp/c.err")"
"$CDT" report -i "$tmp/c.data" --csv --view summary >"$tmp/sum.csv" || fail "summary view failed"
ds=$(sed -n 's/^detections_on_samples,//p' "$tmp/sum.csv")
dt=$(sed -n 's/^detections_on_traps,//p' "$tmp/sum.csv")
[ "${ds:-0}" -gt 0 ] && [ "$ds" -ge "${dt:-0}" ] ||
	fail "the increments' loads detect nothing: $ds detections on samples, $dt on traps"
"$CDT" report -i "$tmp/c.data" --csv --view objects >"$tmp/objects.csv" || fail "objects view failed"
"$CDT" report -i "$tmp/c.data" --csv --view code >"$tmp/code.csv" || fail "code view failed"
# The code view's names have commas: read it with python's csv.
python3 - "$tmp/objects.csv" "$tmp/code.csv" "$obj" "$code" <<'PY' || fail "names: $(cat "$tmp/objects.csv" "$tmp/code.csv")"
import csv, re, sys
objs = list(csv.DictReader(open(sys.argv[1])))
codes = list(csv.DictReader(open(sys.argv[2])))
obj, code = sys.argv[3], sys.argv[4]
tot = sum(float(r["all"]) for r in objs)
mine = sum(float(r["all"]) for r in objs if r["object"] == obj)
print(f"objects: {obj} {mine} of {tot}")
assert tot > 0 and mine >= 0.8 * tot, "the vector's block is not named after main's line"
tot = sum(float(r["all"]) for r in codes)
row = [r for r in codes if r["location"] == code]
print(f"code: {code} {row[0]['all'] if row else 0} of {tot}; inlined: {row[0]['inlined'] if row else ''}")
assert row and float(row[0]["all"]) >= 0.8 * tot, "the lambda's line does not carry the code"
chain = row[0]["inlined"].split(" < ")
assert "atomic_base.h:" in chain[0] and chain[1] == code, "the inlined calls do not go from <atomic> to the lambda"
header = re.compile(r"\.h:\d+\)?$|\.h:\d+ \(")
bad = [r["object"] for r in objs if header.search(r["object"])] + \
      [r["location"] for r in codes if header.search(r["location"])]
assert not bad, f"named after a header: {bad}"
PY

"$CDT" record -q -o "$tmp/r.data" "$wl" -l -t 0.3 >/dev/null 2>"$tmp/r.err" ||
	fail "cdt record comm_vector: exit $?: $(tail -n 5 "$tmp/r.err")"
"$CDT" report -i "$tmp/r.data" --csv --view functions >"$tmp/f.csv" || fail "functions view failed"
"$CDT" report -i "$tmp/r.data" --csv --view objects >"$tmp/o.csv" || fail "record objects view failed"
sed -n 2p "$tmp/f.csv" | grep -qF "\"$code\"" || sed -n 2p "$tmp/f.csv" | grep -qF "$code," ||
	fail "record: the top function is not $code: $(head -n 3 "$tmp/f.csv")"
sed -n 2p "$tmp/o.csv" | grep -qF "$obj," || fail "record: the top object is not $obj: $(head -n 3 "$tmp/o.csv")"
echo "record: $code, $obj; comm: $ds detections on samples, $dt on traps"
exit 0
