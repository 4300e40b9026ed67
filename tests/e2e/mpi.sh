#!/bin/sh
# A real MPI job under cdt: Open MPI's mpirun starts 2 ranks of
# tests/mpi/mpi_ring.c (built here with mpicc), each `cdt comm` around the
# program; the ranks pass a token around while two threads in each share
# a cache line (false sharing).  Checks:
# - with no -o, each rank writes cdt.data.RANK from the launcher's
#   OMPI_COMM_WORLD_RANK: cdt.data.0 and cdt.data.1, nothing else;
# - each file holds its own rank's threads (workers named r0w0, r0w1 in
#   rank 0, r1w* in rank 1), and the two ranks are two processes;
# - cdt report -i 'cdt.data.*' merges them: threads rank.thread (R.N with
#   R the file's rank), every thread of both files, and the two workers
#   of each rank communicate (>= 10: 0.3 s of CPU per worker gave 400 in
#   a measured run, where one trap alone weighs 32) and no pair of ranks.
# Open MPI without a network: OMPI_MCA_plm=isolated launches the local
# ranks without ssh/rsh, btl self,vader passes messages through shared
# memory only (no TCP), single_copy_mechanism none needs no ptrace rights
# (containers often deny them).  PMIx still needs the loopback interface.
# As root mpirun wants --allow-run-as-root.  Skips (77) without mpirun or
# mpicc, or if plain mpirun cannot start 2 ranks here.
set -u

. "$(dirname "$0")/lib/common.sh"

for c in mpirun mpicc; do
	command -v $c >/dev/null || { echo "skip: $c is not installed (Debian: openmpi-bin, libopenmpi-dev)"; exit 77; }
done
top=$(cd "$(dirname "$0")/../.." && pwd)
export OMPI_MCA_plm=isolated OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# Each rank's main thread waits for the token in MPI_Recv, which polls:
# without yielding it took ~0.9 s of CPU a rank, and under load rank 0's
# workers then met so rarely that they communicated 6 to 26 times in a
# 1 s run (9 failed a stress run); yielding, 78 and more in 5 loaded runs.
export OMPI_MCA_mpi_yield_when_idle=1
root=''
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
# mpi RUN ARGS...: mpirun with 2 ranks of ARGS in directory RUN; a hang
# would stall the suite, so it has a time limit.
mpi() {
	(cd "$1" && shift && timeout -k 5 120 mpirun $root --oversubscribe -np 2 "$@")
}

mkdir "$tmp/bin" "$tmp/plain" "$tmp/run" || exit 1
mpicc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -pthread -o "$tmp/bin/mpi_ring" \
	"$top/tests/mpi/mpi_ring.c" 2>"$tmp/cc.err" || fail "mpicc mpi_ring.c failed: $(cat "$tmp/cc.err")"
P=$tmp/bin/mpi_ring

if ! mpi "$tmp/plain" "$P" 0.01 >"$tmp/plain.out" 2>"$tmp/plain.err"; then
	echo "skip: mpirun cannot start 2 ranks here: $(grep -v -e '^-*$' "$tmp/plain.err" | head -n 2 | tr '\n' ' ')"
	exit 77
fi

# Without debug-register traps (some hypervisors), comm detects on
# samples alone, a count that grows with the square of the rate: at the
# rate this VM's 5% budget buys (a perf sample costs 50 us here) rank 1
# saw 4 to 29 in 0.3 s.  There the run is longer and at -F 2000 on the
# perf clock, as before the budget: 125 to 1300 in 1 s (a budget would
# set a rate by the load).  A 64 Ki-slot board keeps the main thread's
# polling stores from evicting the workers' line through a slot collision
# (of the default 127, each line the main thread stores to shares the
# workers' slot with odds of 1 in 127).
secs=0.3 opts=''
debug_traps || { secs=1 opts='-F 2000 --clock perf'; }
mpi "$tmp/run" "$CDT" comm -q --bb-size 65521 $opts "$P" $secs >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "mpirun -np 2 cdt comm mpi_ring: expected exit 0, got $rc: $(tail -n 20 "$tmp/err")"
grep -q '^mpi_ring: ranks=2 rounds=[1-9][0-9]* token=[0-9]*$' "$tmp/out" ||
	fail "mpi_ring under cdt: the ring went wrong: $(cat "$tmp/out")"
if grep -q -e 'AddressSanitizer' -e 'runtime error:' "$tmp/err"; then
	fail "sanitizer report: $(cat "$tmp/err")"
fi
[ "$(ls "$tmp/run" | tr '\n' ' ')" = "cdt.data.0 cdt.data.1 " ] ||
	fail "expected cdt.data.0 and cdt.data.1 (one per rank), found: $(ls -A "$tmp/run" | tr '\n' ' ')"

cd "$tmp/run" || exit 1
# report OUT ARGS...: cdt report ARGS > OUT; it must succeed.
report() {
	out=$1
	shift
	"$CDT" report "$@" >"$out" 2>"$tmp/rerr" || fail "cdt report $*: failed: $(cat "$tmp/rerr")"
}

# Each file: its own rank's workers, none of the other's; one process each.
for r in 0 1; do
	report "t$r.csv" -i "cdt.data.$r" --csv --view threads
	names=$(cols "t$r.csv" name | grep '^r[0-9]w' | sort | tr '\n' ' ')
	[ "$names" = "r${r}w0 r${r}w1 " ] ||
		fail "cdt.data.$r: expected the workers r${r}w0 r${r}w1, found: $names"
	[ "$(cols "t$r.csv" pid | sort -u | wc -l)" -eq 1 ] ||
		fail "cdt.data.$r: expected the threads of one process: $(cat "t$r.csv")"
done
[ "$(cols t0.csv pid | head -n 1)" != "$(cols t1.csv pid | head -n 1)" ] ||
	fail "the two ranks must be two processes"

# Merged: rank.thread labels, every thread, each rank's own.
report m.csv -i 'cdt.data.*' --csv --view threads
[ "$(($(wc -l <m.csv) - 1))" -eq "$(($(wc -l <t0.csv) + $(wc -l <t1.csv) - 2))" ] ||
	fail "merged: expected every thread of both files: $(cat m.csv)"
cols m.csv index | grep -vqx '[01]\.[0-9][0-9]*' &&
	fail "merged: thread labels must be rank.thread: $(cols m.csv index | tr '\n' ' ')"
for r in 0 1; do
	got=$(cols m.csv index name | awk -F'\t' -v r=$r '$2 ~ /^r[0-9]w/ && $2 ~ "^r" r "w" { split($1, a, "."); print a[1] }' | sort -u)
	[ "$got" = "$r" ] || fail "merged: the workers of rank $r must be labelled $r.N: $(cols m.csv index name | tr '\t\n' ': ')"
done

# The two workers of each rank share a line; ranks share nothing.
report mx.csv -i 'cdt.data.*' --csv --view matrix
for r in 0 1; do
	a=$(cols m.csv index name | awk -F'\t' -v w="r${r}w0" '$2 == w { print $1 }')
	b=$(cols m.csv index name | awk -F'\t' -v w="r${r}w1" '$2 == w { print $1 }')
	n=$(awk -F, -v a="$a" -v b="$b" '$1 == "all" && $2 == "thread" && $3 == a && $4 == b { print $5 }' mx.csv)
	awk -v n="${n:-0}" 'BEGIN { exit !(n >= 10) }' ||
		fail "rank $r: workers $a and $b share a line, yet communicate '${n:-none}' (all matrix)"
done
awk -F, '$2 == "thread" && substr($3, 1, 1) != substr($4, 1, 1) && $5 + 0 != 0 { bad = 1 }
	END { exit bad }' mx.csv || fail "merged matrix: communication between ranks"
exit 0
