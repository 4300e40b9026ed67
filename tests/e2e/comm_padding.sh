#!/bin/sh
# cdt comm on comm_padding: 4 threads increment their own counter in the
# static array `counters`; unpadded the 4 counters share the line at
# &counters[0] (64-byte aligned), --padded gives each its own line.
# Designed: unpadded, all pairs communicate by false sharing on that one
# line; padded, no communication.
#   unpadded:
#   - fs_total >= 80% of all_total, and the fs thread matrix uniform over
#     the 6 pairs (checker defaults, comm/check_matrix.sh);
#   - objects view: fs on counters >= 80% of fs_total; ts on counters
#     <= 10% of ts + fs on counters (no thread touches another's bytes);
#   - lines view: the line at &counters[0] (the workload prints the
#     address) holds >= 90% of the fs on counters.
#   padded:
#   - fs on counters <= 5% of the unpadded fs on counters, and all_total
#     <= 10% of the unpadded all_total (same length, 1 s).
#   unpadded --heap (the counters in one heap block from counters_new()):
#   - fs on the heap object named after its allocation site,
#     heap@comm_padding.c:LINE (counters_new), >= 80% of fs_total, and the
#     findings name it as false sharing.
# The 20%, 10% and 5% are room for sampling noise (stray matches around
# thread start); the design itself gives 100% and 0%.
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_padding

comm_run unpadded comm_padding -n 4 -t 1
comm_totals unpadded
all_u=$all fs_u=$fs
comm_assert "$fs_u >= 0.8 * $all_u" "unpadded: fs_total $fs_u of all_total $all_u; the design is all false sharing"
comm_check unpadded fs "$(pat_all 4)"
fs_obj=$(comm_obj unpadded objects counters fs) || exit 1
ts_obj=$(comm_obj unpadded objects counters ts) || exit 1
echo "unpadded: counters fs $fs_obj ts $ts_obj; fs_total $fs_u"
comm_assert "$fs_obj >= 0.8 * $fs_u" "unpadded: only $fs_obj of fs_total $fs_u is on counters (objects view)"
comm_assert "$ts_obj <= 0.1 * ($ts_obj + $fs_obj)" "unpadded: true sharing $ts_obj on counters (fs $fs_obj); no thread touches another's counter"

# The line of &counters[0]: this run's address, printed by the workload.
addr=$(sed -n 's/^comm_padding: .* counters=\(0x[0-9a-f]*\).*/\1/p' "$tmp/unpadded.out")
[ -n "$addr" ] || fail "unpadded: the workload did not print the address of counters"
want=$(comm_addr "$addr")
comm_viewcols unpadded lines line object fs >"$tmp/lines"
fs_line=0
while IFS='	' read -r line _obj lfs; do
	[ "$(comm_addr "$line")" = "$want" ] && fs_line=$lfs
done <"$tmp/lines"
echo "unpadded: fs on the line at $addr: $fs_line"
comm_assert "$fs_line >= 0.9 * $fs_obj" \
	"unpadded: the line at &counters[0] = $addr has fs $fs_line of the $fs_obj on counters (lines view: $(head -n 5 "$tmp/unpadded.lines.csv" | tr '\n' ' '))"

comm_run heap comm_padding -n 4 -H -t 1
comm_totals heap
fs_h=$fs
obj=$(comm_viewcols heap objects object | grep -m1 '^heap@comm_padding\.c:[0-9]* (counters_new)$') ||
	fail "heap: no object heap@comm_padding.c:N (counters_new) in the objects view: $(head -n 4 "$tmp/heap.objects.csv" | tr '\n' ' ')"
fs_hobj=$(comm_obj heap objects "$obj" fs) || exit 1
echo "heap: $obj fs $fs_hobj of fs_total $fs_h"
comm_assert "$fs_hobj >= 0.8 * $fs_h" "heap: only $fs_hobj of fs_total $fs_h is on $obj"
"$CDT" report -i "$tmp/heap.data" --view findings --width full | grep -F "false sharing (" |
	grep -qF ") on $obj (offset" ||
	fail "heap: the findings do not name false sharing on $obj"

comm_run padded comm_padding -n 4 -p -t 1
all_p=$(comm_sum padded all_total) || exit 1
fs_obj_p=$(comm_obj padded objects counters fs) || exit 1
echo "padded: counters fs $fs_obj_p, all_total $all_p"
comm_assert "$fs_obj_p <= 0.05 * $fs_obj" "padded: fs on counters $fs_obj_p, unpadded $fs_obj; padding must remove it"
comm_assert "$all_p <= 0.1 * $all_u" "padded: all_total $all_p, unpadded $all_u; padded counters share nothing"
exit 0
