#!/bin/sh
# Data objects: the workload `objects` allocates from known call sites
# (OBJECTS_TRUTH names them: file:line, blocks, bytes) and the allocs view
# must list each with exactly those blocks and bytes, named after the
# allocating line and with a call path through main; thread stacks and the
# anonymous mapping too.  Blocks that die young (10000 malloc/free pairs
# from one site) must not cost a record each.  The hot table must collect
# the samples (objects view), the samples view must name it with in-block
# offsets, and --no-objects must record none of it.  Last, the cost of a
# malloc/free pair and of a block that lives, plain and under cdt, printed
# (not asserted: shared machines are noisy).
set -u

: "${CDT:?CDT must name the cdt binary}" "${BUILD:?BUILD must name the build dir}"
W=$BUILD/workloads
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

fail() {
	echo "objects.sh: $*" >&2
	exit 1
}

[ -x "$W/objects" ] || fail "expected the workload $W/objects (make workloads)"

# -F 1000: the counts below need a rate the machine does not set.
OBJECTS_TRUTH=$tmp/truth "$CDT" record -F 1000 -o "$tmp/o.data" "$W/objects" 0.3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "cdt record objects: expected exit 0, got $rc: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/truth")" -eq 5 ] || fail "the workload wrote no ground truth: $(cat "$tmp/truth")"
"$CDT" report -i "$tmp/o.data" --csv --view allocs >"$tmp/allocs.csv" 2>"$tmp/err" ||
	fail "cdt report --view allocs failed: $(cat "$tmp/err")"
[ "$(head -n 1 "$tmp/allocs.csv")" = "object,kind,blocks,bytes,largest,samples,path" ] ||
	fail "allocs header: $(head -n 1 "$tmp/allocs.csv")"

# row NAME: the allocs row of that object, fields tab-separated (none of
# this workload's names or paths holds a comma or a quote).
row() {
	awk -F, -v n="$1" '$1 == n { gsub(/,/, "\t"); print; exit }' "$tmp/allocs.csv"
}

# site WHAT FUNCTION KIND: the object allocated at WHAT's line must exist
# with the truth's blocks and bytes, and a call path FUNCTION < main.
site() {
	what=$1 fn=$2 kind=$3
	set -- $(awk -v w="$what" '$1 == w { print $2, $3, $4 }' "$tmp/truth")
	loc=$1 blocks=$2 bytes=$3
	prefix=heap
	[ "$kind" = mmap ] && prefix=mmap
	name="$prefix@$loc ($fn)"
	r=$(row "$name")
	[ -n "$r" ] || fail "no object '$name' in the allocs view: $(cat "$tmp/allocs.csv")"
	echo "$r" | awk -F'\t' -v k="$kind" -v b="$blocks" -v y="$bytes" -v fn="$fn" -v loc="$loc" '
		$2 != k { print "kind " $2 ", expected " k; exit 1 }
		$3 != b { print "blocks " $3 ", expected " b; exit 1 }
		$4 != y { print "bytes " $4 ", expected " y; exit 1 }
		index($7, fn " (" loc ") < main (objects.c:") != 1 { print "path " $7; exit 1 }' >"$tmp/why" ||
		fail "$name: $(cat "$tmp/why")"
}

site small make_small heap
site table make_table heap
site grow grow heap
site map make_map mmap

# Churn: 10000 blocks, each freed at once; only the first few recorded.
set -- $(awk '$1 == "churn" { print $2 }' "$tmp/truth")
r=$(row "heap@$1 (churn)")
[ -n "$r" ] || fail "no churn object in the allocs view: $(cat "$tmp/allocs.csv")"
n=$(echo "$r" | cut -f3)
[ "$n" -ge 1 ] && [ "$n" -le 16 ] ||
	fail "churn: 10000 short-lived blocks must cost at most 16 records, found $n"

# Two threads, two stacks.
for t in T0 T1; do
	r=$(row "stack@$t")
	[ -n "$r" ] || fail "no stack@$t in the allocs view: $(cat "$tmp/allocs.csv")"
	echo "$r" | awk -F'\t' '$2 == "stack" && $4 > 65536 { ok = 1 } END { exit !ok }' ||
		fail "stack@$t: expected kind stack and a size, found: $r"
done

# The sweep of the table is where the samples go.
set -- $(awk '$1 == "table" { print $2 }' "$tmp/truth")
table="heap@$1 (make_table)"
"$CDT" report -i "$tmp/o.data" --csv --view objects >"$tmp/objects.csv" 2>"$tmp/err" ||
	fail "cdt report --view objects failed: $(cat "$tmp/err")"
awk -F, -v n="$table" 'NR > 1 { all += $2; if ($1 == n) t = $2 }
	END { if (all < 100 || t * 2 < all) { print t + 0 " of " all + 0; exit 1 } }' \
	"$tmp/objects.csv" >"$tmp/why" ||
	fail "the table must hold most samples: $(cat "$tmp/why"): $(cat "$tmp/objects.csv")"
"$CDT" report -i "$tmp/o.data" --csv --view samples >"$tmp/samples.csv" 2>"$tmp/err" ||
	fail "cdt report --view samples failed: $(cat "$tmp/err")"
awk -F, -v n="$table" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["object"] == n { k++; if ($c["offset"] >= 32768) bad++ }
	END { if (k < 100 || bad) { print k + 0 " samples, " bad + 0 " beyond the block"; exit 1 } }' \
	"$tmp/samples.csv" >"$tmp/why" || fail "samples view, table: $(cat "$tmp/why")"

# --no-objects: no heap, mapping or stack objects, and the summary says so.
"$CDT" record --no-objects -q -o "$tmp/n.data" "$W/objects" 0.05 >/dev/null 2>"$tmp/err" ||
	fail "cdt record --no-objects failed: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/n.data" --csv --view allocs >"$tmp/n.csv" 2>"$tmp/err" ||
	fail "cdt report --view allocs (no objects) failed: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/n.csv")" -eq 1 ] || fail "--no-objects recorded objects: $(cat "$tmp/n.csv")"
"$CDT" report -i "$tmp/n.data" --csv --view summary | grep -qx 'objects,off' ||
	fail "--no-objects: the summary must say objects,off"
"$CDT" report -i "$tmp/o.data" --csv --view summary | grep -qx 'objects,on' ||
	fail "the summary must say objects,on"

# What a block costs: best of 3, plain and under cdt (1 Hz sampling).
best() {
	for i in 1 2 3; do "$@" 2>/dev/null; done | awk '{ v = $(NF - 1) + 0; if (!b || v < b) b = v } END { print b }'
}
for mode in "--churn 2000000" "--keep 200000"; do
	# shellcheck disable=SC2086
	plain=$(best plain "$W/objects" $mode)
	# shellcheck disable=SC2086
	under=$(best "$CDT" record -q -F 1 -o "$tmp/c.data" "$W/objects" $mode)
	echo "objects $mode: $plain ns plain, $under ns under cdt record --objects"
done
exit 0
