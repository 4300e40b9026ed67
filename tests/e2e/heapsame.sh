#!/bin/sh
# cdt must not move the program's heap, under any tool.  heapseq makes a
# fixed sequence of 1000 malloc, calloc, realloc, aligned_alloc and free
# calls in the main thread (after starting a second thread), then 1000 in
# the second thread, and writes where each block falls: its page offset,
# its distance from the thread's first block and its usable size.  Every
# line must be the plain program's.  Each thing cdt once took from the
# program's heap shows here: pthread_getattr_np's fopen of /proc/self/maps
# and CPU set at each thread start (0x870 bytes before main's first block),
# and the agent's TLS block, which made each new thread's vector of TLS
# blocks 16 bytes longer (the main thread's blocks after it moved).
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads heapseq

plain "$W/heapseq" 1000 "$tmp/plain" || fail "heapseq plain: exit $?"
[ "$(wc -l <"$tmp/plain")" -gt 1000 ] || fail "heapseq plain wrote $(wc -l <"$tmp/plain") lines"
for tool in comm record numa membound fvar; do
	timeout 120 "$CDT" $tool -q -o "$tmp/h.data" "$W/heapseq" 1000 "$tmp/$tool" \
		>/dev/null 2>"$tmp/err" || fail "cdt $tool heapseq: exit $?: $(cat "$tmp/err")"
	cmp -s "$tmp/plain" "$tmp/$tool" ||
		fail "cdt $tool moved the program's heap: $(diff "$tmp/plain" "$tmp/$tool" |
			grep -c '^<') of $(wc -l <"$tmp/plain") blocks differ, the first:
$(diff "$tmp/plain" "$tmp/$tool" | head -4)"
done
echo "heap as plain under comm, record, numa, membound and fvar: $(wc -l <"$tmp/plain") blocks"
exit 0
