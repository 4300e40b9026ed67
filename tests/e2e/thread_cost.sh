#!/bin/sh
# What cdt adds to a short-lived thread, counted in system calls (not
# timed: the suite asserts no wall-clock figure; tests/bench/run.sh
# threads measures it).  threadchurn starts 2000 empty threads, 64 alive
# at once, under strace -f -c, plain and under cdt record and cdt comm.
# Each thread's alternate signal stack was an mmap and a munmap of its
# own, each taking the process's mmap lock for writing while the other
# threads started and ended: 110 us of wall time a thread on this VM,
# most of what a thread cost (1.6x the plain program over 20000 of
# them).  A slot's stack is now kept for the next thread of the slot:
# at most a few more mmap and munmap calls than plain (one stack per
# slot ever used, and the agent's start), never one per thread.
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads threadchurn
command -v strace >/dev/null 2>&1 || { echo "skip: no strace on this host"; exit 77; }
N=2000

# calls FILE NAME: the calls of one system call in strace -c's table.
calls() {
	awk -v n="$2" '$NF == n { print $4; f = 1 } END { if (!f) print 0 }' "$1"
}

timeout 60 strace -f -c -o "$tmp/plain" "$W/threadchurn" $N 64 ||
	{ echo "skip: strace cannot trace here (exit $?)"; exit 77; }
for tool in record comm; do
	timeout 120 "$CDT" "$tool" -q -o "$tmp/$tool.data" strace -f -c -o "$tmp/$tool" \
		"$W/threadchurn" $N 64 2>"$tmp/err" || fail "cdt $tool strace threadchurn: exit $?: $(cat "$tmp/err")"
	for sc in mmap munmap; do
		p=$(calls "$tmp/plain" $sc) c=$(calls "$tmp/$tool" $sc)
		echo "$tool: $sc $c calls, plain $p, for $N threads"
		[ $((c - p)) -lt $((N / 10)) ] ||
			fail "cdt $tool: $((c - p)) more $sc calls than plain for $N threads: one per thread"
	done
done
exit 0
