#!/bin/sh
# cdt comm on comm_globals: separate global variables on one line,
# `limit` then hits_a, hits_b, hits_c, hits_d; 3 workers each increment
# their own counter (hits_a, hits_b, hits_c), none touches limit or hits_d
# in its loop.  Designed: false sharing among the three, on the bytes of
# hits_a, hits_b and hits_c, named so (not after limit, the line's first
# symbol, nor after hits_a alone):
#   - objects view: hits_a, hits_b, hits_c each >= 15% of fs_total (a
#     third each by design; each thread's part of the line's weight), no
#     weight on limit or hits_d;
#   - findings: false sharing on "hits_a, hits_b, hits_c" at the line the
#     workload prints, which "also holds limit, hits_d";
#   - padded (-p, each variable on its own line): all_total <= 10% of the
#     unpadded one.
# The 15% leaves room for sampling noise: each thread's part rests on
# hundreds of detections here.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_globals

comm_run unpadded comm_globals -n 3 -t 1
comm_totals unpadded
fs_u=$fs all_u=$all
for v in hits_a hits_b hits_c; do
	w=$(comm_obj unpadded objects "$v" fs) || exit 1
	echo "unpadded: $v fs $w of fs_total $fs_u"
	comm_assert "$w >= 0.15 * $fs_u" "unpadded: $v has fs $w of $fs_u: $(tr '\n' ' ' <"$tmp/unpadded.objects.csv")"
done
for v in limit hits_d; do
	w=$(comm_obj unpadded objects "$v" all) || exit 1
	comm_assert "$w == 0" "unpadded: $v, which no worker touches, has $w: $(tr '\n' ' ' <"$tmp/unpadded.objects.csv")"
done
line=$(sed -n 's/^comm_globals: .* line=\(0x[0-9a-f]*\).*/\1/p' "$tmp/unpadded.out")
[ -n "$line" ] || fail "unpadded: the workload did not print its line"
"$CDT" report -i "$tmp/unpadded.data" --csv --view findings >"$tmp/findings" || fail "findings view failed"
grep -F "false sharing (" "$tmp/findings" | grep -F " on hits_a, hits_b, hits_c (offset " |
	grep -F "line $line," | grep -qF "the line also holds limit, hits_d)" ||
	fail "unpadded: expected false sharing on hits_a, hits_b, hits_c at line $line, also holding limit, hits_d: $(cat "$tmp/findings")"

comm_run padded comm_globals -n 3 -p -t 1
all_p=$(comm_sum padded all_total) || exit 1
echo "padded: all_total $all_p, unpadded $all_u"
comm_assert "$all_p <= 0.1 * $all_u" "padded: all_total $all_p, unpadded $all_u; padded variables share nothing"
exit 0
