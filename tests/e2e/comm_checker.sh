#!/bin/sh
# Self-test of the comm tests' matrix checker (comm/check_matrix.sh) and
# helpers (comm/lib.sh), on hand-made CSV: no cdt needed.
#   - every designed pattern of the comm tests passes with honest noise
#     (cells of one weight 0.6x..1.4x apart, 8% of the mass spread over
#     the other cells), given as an upper triangle, a lower one or both;
#     so does the most uneven ring cdt comm gave;
#   - no pattern passes as another: every ordered pair of distinct
#     patterns over 4 threads, and over 8, fails;
#   - uniform, transposed, shifted, missing-edge, stranger-thread and
#     diagonal matrices fail; a worker-to-index map is honoured;
#   - malformed CSV (missing column, quoted field, thousands separator,
#     bad number, duplicate or asymmetric cell, no rows) fails, bad usage
#     exits 2;
#   - the lib's pattern generators, summary, cell and map helpers work.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_checker
CHECK="sh $COMM_DIR/check_matrix.sh"

HDR='matrix,level,from,to,count'

# mk FILE N CELLS [MODE [BG]]: a matrix CSV with the cells of CELLS
# (i-j or i-j:w) at weight w times a deterministic factor 0.6..1.4, and a
# background of BG (default 0.08) times their total spread evenly over
# the other cells off the diagonal.  MODE: upper (i<j rows), lower (i>j)
# or both.  Also ts and core rows that must be ignored; counts scaled
# like a real profile (x 1e5).
mk() {
	awk -v n="$2" -v cells="$3" -v mode="${4:-upper}" -v bg="${5:-0.08}" -v hdr="$HDR" '
	BEGIN {
		print hdr
		m = split(cells, cl, ",")
		for (c = 1; c <= m; c++) {
			w = 1; cell = cl[c]
			if (cell ~ /:/) { split(cell, cw, ":"); cell = cw[1]; w = cw[2] }
			split(cell, ij, "-")
			i = ij[1] + 0; j = ij[2] + 0
			if (i > j) { t = i; i = j; j = t }
			# 0.6 .. 1.4, different for each cell, the same every run.
			f = 0.6 + 0.8 * ((c * 37 + i * 11 + j * 7) % 17) / 16
			v[i, j] = w * f; sum += w * f
		}
		others = n * (n - 1) / 2 - m
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) {
			x = ((i, j) in v) ? v[i, j] : others ? bg * sum / others : 0
			x *= 1e5
			if (mode != "lower") printf "all,thread,%d,%d,%.6g\n", i, j, x
			if (mode != "upper") printf "all,thread,%d,%d,%.6g\n", j, i, x
			printf "ts,thread,%d,%d,%.6g\n", i, j, 1e9 * (i + j)
		}
		printf "all,core,0,1,12345\nall,core,1,1,999\n"
	}' >"$1"
}

# expect RC WHAT DESC CHECK-ARGS...: the checker must exit RC (WHAT).
expect() {
	_want=$1 _what=$2 _d=$3
	shift 3
	$CHECK "$@" >"$tmp/o" 2>&1
	_rc=$?
	[ $_rc -eq "$_want" ] || fail "expected $_what (exit $_want), got $_rc: $_d: $(cat "$tmp/o")"
}
# pass/fails/usage_err DESC CHECK-ARGS...: it must accept / reject / see
# bad usage.
pass() { expect 0 "a match" "$@"; }
fails() { expect 1 "a mismatch" "$@"; }
usage_err() { expect 2 "a usage error" "$@"; }

# csv ROW...: a matrix CSV of the header and ROWs.
csv() {
	echo "$HDR"
	printf '%s\n' "$@"
}

# ---- pattern generators ----
[ "$(pat_all 4)" = "0-1,0-2,0-3,1-2,1-3,2-3" ] || fail "pat_all 4: $(pat_all 4)"
[ "$(pat_star 4)" = "0-1,0-2,0-3" ] || fail "pat_star 4: $(pat_star 4)"
[ "$(pat_ring 4)" = "0-1,1-2,2-3,0-3" ] || fail "pat_ring 4: $(pat_ring 4)"
[ "$(pat_ring 2)" = "0-1" ] || fail "pat_ring 2: $(pat_ring 2)"
[ "$(pat_chain 4)" = "0-1,1-2,2-3" ] || fail "pat_chain 4: $(pat_chain 4)"
[ "$(pat_pairs 4)" = "0-1,2-3" ] || fail "pat_pairs 4: $(pat_pairs 4)"
[ "$(pat_xor 4 2)" = "0-1,2-3,0-2,1-3" ] || fail "pat_xor 4 2: $(pat_xor 4 2)"
[ "$(pat_xor 4 3)" = "0-1,2-3,0-2,1-3,0-3,1-2" ] || fail "pat_xor 4 3: $(pat_xor 4 3)"
[ "$(pat_xor 8 1)" = "$(pat_pairs 8)" ] || fail "pat_xor 8 1: $(pat_xor 8 1)"
[ "$(pat_xor 4 2 2)" = "0-2,1-3" ] || fail "pat_xor 4 2 2: $(pat_xor 4 2 2)"

# ---- every pattern passes as itself, and no pattern as another ----
for n in 4 8; do
	set -- "all:$(pat_all $n)" "star:$(pat_star $n)" "ring:$(pat_ring $n)" "chain:$(pat_chain $n)" \
		"pairs:$(pat_pairs $n)" "phases2:$(pat_xor $n 2)" "phase2only:$(pat_xor $n 2 2)" \
		"shifted_pairs:$(awk -v n=$n 'BEGIN { for (i = 1; i + 1 < n; i += 2) s = s (s == "" ? "" : ",") i "-" (i + 1); print s }')"
	for got in "$@"; do
		gname=${got%%:*} gcells=${got#*:}
		for mode in upper lower both; do
			mk "$tmp/m.csv" $n "$gcells" $mode
			pass "$gname as itself, n=$n, $mode" -n $n -e "$gcells" "$tmp/m.csv"
		done
		for want in "$@"; do
			wname=${want%%:*} wcells=${want#*:}
			[ "$wname" = "$gname" ] && continue
			mk "$tmp/m.csv" $n "$gcells"
			fails "matrix $gname checked as $wname, n=$n" -n $n -e "$wcells" "$tmp/m.csv"
		done
	done
done

# ---- specific wrong answers, 4 threads ----
P=$(pat_pairs 4)
mk "$tmp/m.csv" 4 "$P"
pass "pairs" -n 4 -e "$P" "$tmp/m.csv"
fails "pairs, transposed to (0,2),(1,3)" -n 4 -e "0-2,1-3" "$tmp/m.csv"
# One pair 10x weaker than designed: still the pattern, but mincell sees it.
mk "$tmp/m.csv" 4 "0-1:10,2-3:1"
pass "pairs with a 10x weaker pair, designed so" -n 4 -e "0-1:10,2-3:1" "$tmp/m.csv"
fails "pairs with a 10x weaker pair, designed equal" -n 4 -e "$P" "$tmp/m.csv"
# The most uneven honest ring seen from cdt comm (without the workloads'
# CPU moves): cells 1 : 0.43 : 0.33 : 0.15 pass; one edge 5x below the
# others' mean does not.
csv all,thread,0,1,100 all,thread,1,2,43 all,thread,2,3,15 all,thread,0,3,33 >"$tmp/m.csv"
pass "uneven honest ring" -n 4 -e "$(pat_ring 4)" "$tmp/m.csv"
csv all,thread,0,1,100 all,thread,1,2,100 all,thread,2,3,15 all,thread,0,3,100 >"$tmp/m.csv"
fails "ring with one edge at 0.19 of the mean" -n 4 -e "$(pat_ring 4)" "$tmp/m.csv"
# The most uneven honest ring with the other core busy: one edge 4x the
# others (cos 0.79); every edge is there, so it is the ring.
csv all,thread,0,1,100 all,thread,1,2,23 all,thread,2,3,23 all,thread,0,3,26 >"$tmp/m.csv"
pass "uneven honest ring, other core busy" -n 4 -e "$(pat_ring 4)" "$tmp/m.csv"
# Four of six pairs, nothing else: not uniform.
csv all,thread,0,1,100 all,thread,1,2,100 all,thread,2,3,100 all,thread,0,3,100 >"$tmp/m.csv"
fails "a ring checked as uniform" -n 4 -e "$(pat_all 4)" "$tmp/m.csv"
# A ring with one edge missing.
mk "$tmp/m.csv" 4 "0-1,1-2,2-3"
fails "ring missing the edge (0,3)" -n 4 -e "$(pat_ring 4)" "$tmp/m.csv"
# A star on the wrong thread.
mk "$tmp/m.csv" 4 "0-1,1-2,1-3"
fails "star on thread 1" -n 4 -e "$(pat_star 4)" "$tmp/m.csv"
# Heavy background: 25% of the designed mass spread over the other cells.
mk "$tmp/m.csv" 4 "$P" upper 0.25
fails "pairs over a 25% background" -n 4 -e "$P" "$tmp/m.csv"
# Mass on the diagonal (a thread with itself) counts against.
csv all,thread,0,1,100 all,thread,2,3,100 all,thread,1,1,100 >"$tmp/m.csv"
fails "diagonal mass" -n 4 -e "$P" "$tmp/m.csv"
pass "diagonal mass designed (core level style)" -n 4 -e "0-1,2-3,1-1" "$tmp/m.csv"
# Only thread-level rows of the chosen matrix count.
csv fs,thread,0,1,100 fs,thread,2,3,90 all,thread,0,2,100 all,thread,1,3,100 fs,core,0,2,1000 >"$tmp/m.csv"
pass "fs rows" -k fs -n 4 -e "$P" "$tmp/m.csv"
fails "all rows are another pattern" -k all -n 4 -e "$P" "$tmp/m.csv"
pass "core rows" -k fs -l core -n 4 -e "0-2" "$tmp/m.csv"
fails "ts rows: none" -k ts -n 4 -e "$P" "$tmp/m.csv"
grep -q "no communication" "$tmp/o" || fail "no rows: expected 'no communication', got: $(cat "$tmp/o")"
# Extra columns, other column order, CRLF line ends, exponents.
printf 'count,to,extra,from,level,matrix\r\n1.5e+06,1,x,0,thread,all\r\n1.4e6,3,y,2,thread,all\r\n' >"$tmp/m.csv"
pass "columns by name, CRLF, exponents" -n 4 -e "$P" "$tmp/m.csv"

# ---- the worker-to-index map ----
# Workers 0..3 are indices 0,2,1,3 (say a helper thread came between).
csv all,thread,0,2,100 all,thread,1,3,110 >"$tmp/m.csv"
printf '0 0\n1 2\n2 1\n3 3\n' >"$tmp/map"
pass "mapped pairs" -m "$tmp/map" -n 4 -e "$P" "$tmp/m.csv"
fails "the same without the map" -n 4 -e "$P" "$tmp/m.csv"
# Index 5 is no worker: its cells count against.
csv all,thread,0,2,100 all,thread,1,3,100 all,thread,0,5,60 >"$tmp/m.csv"
fails "a stranger thread with 23% of the mass" -m "$tmp/map" -n 4 -e "$P" "$tmp/m.csv"
printf '0 0\n1 2\n2 1\n2 3\n' >"$tmp/map"
usage_err "a worker mapped twice" -m "$tmp/map" -n 4 -e "$P" "$tmp/m.csv"
printf '0 0\n1 2\n2 2\n' >"$tmp/map"
usage_err "an index mapped twice" -m "$tmp/map" -n 4 -e "$P" "$tmp/m.csv"

# ---- malformed input: the tool's output is wrong, exit 1 ----
printf 'matrix,level,from,to\nall,thread,0,1\n' >"$tmp/m.csv"
fails "no count column" -n 4 -e "$P" "$tmp/m.csv"
csv 'all,thread,0,1,"1,000"' >"$tmp/m.csv"
fails "quoted field" -n 4 -e "$P" "$tmp/m.csv"
csv all,thread,0,1,1,000 all,thread,2,3,1000 >"$tmp/m.csv"
fails "thousands separator, unquoted" -n 4 -e "$P" "$tmp/m.csv"
csv 'all,thread,0,1,1 000' >"$tmp/m.csv"
fails "thousands separator, a space" -n 4 -e "$P" "$tmp/m.csv"
csv all,thread,0,1,-5 all,thread,2,3,5 >"$tmp/m.csv"
fails "negative count" -n 4 -e "$P" "$tmp/m.csv"
csv all,thread,0,x,5 >"$tmp/m.csv"
fails "bad index" -n 4 -e "$P" "$tmp/m.csv"
csv all,thread,0,1,5 all,thread,0,1,5 all,thread,2,3,5 >"$tmp/m.csv"
fails "duplicate cell" -n 4 -e "$P" "$tmp/m.csv"
csv all,thread,0,1,5 all,thread,1,0,7 all,thread,2,3,5 >"$tmp/m.csv"
fails "not symmetric" -n 4 -e "$P" "$tmp/m.csv"
csv all,thread,0,1,0 all,thread,2,3,0 >"$tmp/m.csv"
fails "all zero" -n 4 -e "$P" "$tmp/m.csv"
: >"$tmp/m.csv"
fails "empty file" -n 4 -e "$P" "$tmp/m.csv"

# ---- usage errors, exit 2 ----
mk "$tmp/m.csv" 4 "$P"
usage_err "no -n" -e "$P" "$tmp/m.csv"
usage_err "no -e" -n 4 "$tmp/m.csv"
usage_err "cell beyond N" -n 4 -e "0-4" "$tmp/m.csv"
usage_err "bad cell" -n 4 -e "0:1" "$tmp/m.csv"
usage_err "cell twice" -n 4 -e "0-1,1-0" "$tmp/m.csv"
usage_err "no such file" -n 4 -e "$P" "$tmp/nonexistent.csv"

# ---- lib helpers on a fake run "f" ----
printf 'key,value\nall_total,2000.5\nts_total,1500.25\nfs_total,500.25\nsamples,99\n' >"$tmp/f.summary.csv"
[ "$(comm_sum f all_total)" = "2000.5" ] || fail "comm_sum all_total: $(comm_sum f all_total)"
comm_totals f
[ "$all $ts $fs" = "2000.5 1500.25 500.25" ] || fail "comm_totals: $all $ts $fs"
(comm_no_fs f >/dev/null 2>&1) && fail "comm_no_fs: fs 500.25 of all 2000.5 must fail"
[ "$(comm_ratio 500.25 2000.5)" = "0.2501" ] || fail "comm_ratio: $(comm_ratio 500.25 2000.5)"
[ "$(comm_ratio 1 0)" = "none" ] || fail "comm_ratio by 0: $(comm_ratio 1 0)"
printf 'key,value\nall_total,2000\nts_total,1000\nfs_total,500\n' >"$tmp/g.summary.csv"
(comm_totals g >/dev/null 2>&1) && fail "comm_totals: ts + fs != all must fail"
printf 'key,value\nall_total,2000\nts_total,1800\nfs_total,200\n' >"$tmp/g.summary.csv"
comm_no_fs g
printf 'key,value\nall_total,1 000\nts_total,1000\nfs_total,0\n' >"$tmp/h.summary.csv"
(comm_sum h all_total >/dev/null 2>&1) && fail "comm_sum: '1 000' must fail"
(comm_assert "1 > 2" "x" 2>/dev/null) && fail "comm_assert 1 > 2 must fail"
comm_assert "0.3 <= 0.35" "comm_assert 0.3 <= 0.35"
# Threads view with more columns, the tids of a workload, the map.
printf 'index,pid,tid,name,samples\n0,100,100,w,5\n1,100,103,w,5\n2,100,101,w,5\n3,100,102,w,5\n' >"$tmp/f.threads.csv"
printf '0 100\n1 101\n2 102\n' >"$tmp/f.tids"
comm_map f 2>/dev/null
[ "$(tr '\n' ' ' <"$tmp/f.map")" = "0 0 1 2 2 3 " ] || fail "comm_map: $(cat "$tmp/f.map")"
[ "$(comm_nworkers f)" = 3 ] || fail "comm_nworkers: $(comm_nworkers f)"
printf '0 100\n1 999\n' >"$tmp/f.tids"
(comm_map f >/dev/null 2>&1) && fail "comm_map: an unknown tid must fail"
printf '0 100\n1 101\n2 102\n' >"$tmp/f.tids"
comm_map f 2>/dev/null
csv all,thread,0,2,7.5 all,thread,3,2,2 fs,thread,2,0,1 >"$tmp/f.matrix.csv"
[ "$(comm_cell f all 0 1)" = "7.5" ] || fail "comm_cell f all 0 1: $(comm_cell f all 0 1)"
[ "$(comm_cell f all 2 1)" = "2" ] || fail "comm_cell f all 2 1: $(comm_cell f all 2 1)"
[ "$(comm_cell f fs 1 0)" = "1" ] || fail "comm_cell f fs 1 0: $(comm_cell f fs 1 0)"
[ "$(comm_cell f all 0 2)" = "0" ] || fail "comm_cell f all 0 2: $(comm_cell f all 0 2)"
comm_check f all "0-1,1-2:0.3" >/dev/null
(comm_check f all "0-2" >/dev/null 2>&1) && fail "comm_check: a wrong pattern must fail"
echo "checker self-test: all cases as expected"
exit 0
