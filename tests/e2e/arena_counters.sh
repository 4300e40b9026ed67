#!/bin/sh
# The arena's numbers are untrusted too.  The program sets the shared
# header's count of dropped records to 2^64-1 and of bytes to
# 13863210061016419131 (a scribbled run once printed "18446744073709551615
# records (13863210061016419131 bytes) were dropped" and stored it), and
# forges the agent statistics of a thread "forged_stats" (7.6e18 samples,
# 1.4e19 ns in handlers).  cdt must bound every such count by what the run
# could have done, and report those past it as overwritten by the
# program, never as a figure: on stderr, in the summary (dropped_records
# "overwritten by the program", threads_overwritten 1) and in the
# threads view (which keeps the thread, with no statistics).
set -u

. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arena.sh"

for tool in record comm; do
	scribble "$tool" counters
	grep -aq "^cdt: the record buffer's count of dropped records was overwritten by the program" "$tmp/err" ||
		fail "$tool: no line saying the drop count was overwritten: $(cat "$tmp/err")"
	! grep -aq 'record buffer overflowed' "$tmp/err" ||
		fail "$tool: a forged drop count printed as a figure: $(grep -a overflowed "$tmp/err")"
	grep -aq '^cdt: the agent statistics of 1 thread (thread 4194321) were overwritten by the program' "$tmp/err" ||
		fail "$tool: no line saying a thread's statistics were overwritten: $(cat "$tmp/err")"
	[ "$(kv dropped_records)" = "overwritten by the program" ] ||
		fail "$tool: summary dropped_records: expected 'overwritten by the program', found '$(kv dropped_records)'"
	case $(kv threads_overwritten) in
	"1 "*) ;;
	*) fail "$tool: summary threads_overwritten: expected 1, found '$(kv threads_overwritten)'" ;;
	esac
	csv_cols "$tmp/threads.csv" name samples | awk -F'\t' '$1 == "forged_stats" { n++; if ($2 + 0 > 1e9) bad = 1 }
		END { exit n != 1 || bad }' ||
		fail "$tool: expected the thread forged_stats, without its forged samples: $(cat "$tmp/threads.csv")"
done
exit 0
