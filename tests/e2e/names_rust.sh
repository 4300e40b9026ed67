#!/bin/sh
# A Rust program is named after its own lines and functions: comm_arc
# makes an Arc<Vec<AtomicU64>> in main (ARC_LINE) and each thread's
# closure loads and stores its own element (ADD_LINE, core's atomics
# inlined).  Under cdt record (samples need no detection):
#   - the top object is heap@comm_arc.rs:ARC_LINE (comm_arc::main), not
#     Rust's alloc (alloc.rs) nor the C main the runtime starts from;
#   - the top function is comm_arc::main::{{closure}} (comm_arc.rs:ADD_LINE);
#   - no function keeps its hash (comm_arc::main, not
#     comm_arc::main::h0123456789abcdef), as rustc-demangle shows them.
# The workload is built only where rustc is (make workloads).
set -u
. "$(dirname "$0")/lib/common.sh"
wl=$W/comm_arc
if [ ! -x "$wl" ]; then
	command -v rustc >/dev/null || { echo "skip: no rustc here, so no Rust workload (comm_arc)"; exit 77; }
	fail "expected the workload $wl (make workloads, with rustc)"
fi
src=$(dirname "$0")/../workloads/comm_arc.rs
al=$(grep -n '// ARC_LINE' "$src" | cut -d: -f1)
ad=$(grep -n '// ADD_LINE' "$src" | cut -d: -f1)
obj="heap@comm_arc.rs:$al (comm_arc::main)"
fn="comm_arc::main::{{closure}} (comm_arc.rs:$ad)"

"$CDT" record -q -o "$tmp/r.data" "$wl" 0.3 >"$tmp/out" 2>"$tmp/err" || fail "cdt record comm_arc: exit $?: $(tail -n 5 "$tmp/err")"
"$CDT" report -i "$tmp/r.data" --csv --view functions >"$tmp/f.csv" || fail "functions view failed"
"$CDT" report -i "$tmp/r.data" --csv --view objects >"$tmp/o.csv" || fail "objects view failed"
sed -n 2p "$tmp/o.csv" | grep -qF "$obj," || fail "the top object is not $obj: $(head -n 3 "$tmp/o.csv")"
sed -n 2p "$tmp/f.csv" | grep -qF "$fn," || fail "the top function is not $fn: $(head -n 3 "$tmp/f.csv")"
! grep -Eq '::h[0-9a-f]{16}' "$tmp/f.csv" || fail "a Rust hash in a name: $(grep -E '::h[0-9a-f]{16}' "$tmp/f.csv" | head -n 2)"
echo "named $obj and $fn"
