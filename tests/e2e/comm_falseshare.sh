#!/bin/sh
# cdt comm on comm_falseshare (ComDetective's False-Sharing benchmark): 4
# threads do atomic adds, with probability F to their own 8 bytes of the
# line `fs_line` (false sharing), else to the one variable `ts_word` on a
# line of its own (true sharing).  Designed: fs/(ts+fs) tracks F.
#   - F = 0.2, 0.5, 0.8: each fs_total/all_total within its tolerance of
#     F, and ordered, each step at least 0.05 (the design steps by 0.3;
#     cdt comm stepped by 0.15..0.29 in 6 runs; the noise of a ratio of a
#     few thousand weighted detections is about +-0.03).
#     Tolerance 0.15 at F = 0.5: there the two lines are symmetric, so
#     any unbiased detector gives 0.5 up to sampling noise (+-0.03; cdt
#     comm gave 0.44..0.51).  Tolerance 0.2 at F = 0.2 and 0.8: a
#     line's detections need not be linear in its share of the accesses.
#     Two samples meeting on it go like its square, which pulls the
#     fraction towards 0 and 1 (at F = 0.2 down to 0.04/(0.04+0.64) =
#     0.06, still within 0.2); watchpoints armed on whatever line another
#     thread published pull it towards 0.5 (cdt comm gave 0.20..0.31 and
#     0.71..0.77 in 6 runs).
#     A detector that swaps ts and fs (0.8 at F = 0.2), calls all of it
#     one kind, or says 0.5 whatever F is, fails.
#   - ts_total + fs_total = all_total in every run.
#   - F = 0.5: the all, ts and fs thread matrices are each uniform over
#     the 6 pairs; in the objects view at least 80% of fs_total is on
#     fs_line and of ts_total on ts_word (the rest is room for noise).
set -u
. "$(dirname "$0")/comm/lib.sh"
comm_init comm_falseshare

for f in 0.2 0.5 0.8; do
	comm_run "f$f" comm_falseshare -n 4 -f $f -t 1
	comm_totals "f$f"
	r=$(comm_ratio "$fs" "$all")
	echo "F=$f: all_total $all ts_total $ts fs_total $fs fs/all $r"
	case $f in
	0.2) r_lo=$r ;;
	0.5) r_mid=$r ;;
	0.8) r_hi=$r ;;
	esac
done

comm_assert "$r_lo >= 0.0 && $r_lo <= 0.4" "F=0.2: fs/all = $r_lo, expected 0.2 +- 0.2"
comm_assert "$r_mid >= 0.35 && $r_mid <= 0.65" "F=0.5: fs/all = $r_mid, expected 0.5 +- 0.15"
comm_assert "$r_hi >= 0.6 && $r_hi <= 1.0" "F=0.8: fs/all = $r_hi, expected 0.8 +- 0.2"
comm_assert "$r_lo + 0.05 <= $r_mid && $r_mid + 0.05 <= $r_hi" \
	"fs/all must rise with F by >= 0.05 a step: $r_lo (0.2), $r_mid (0.5), $r_hi (0.8)"

comm_check f0.5 all "$(pat_all 4)"
comm_check f0.5 ts "$(pat_all 4)"
comm_check f0.5 fs "$(pat_all 4)"
comm_totals f0.5
fs_obj=$(comm_obj f0.5 objects fs_line fs) || exit 1
ts_obj=$(comm_obj f0.5 objects ts_word ts) || exit 1
echo "F=0.5 objects: fs on fs_line $fs_obj of $fs, ts on ts_word $ts_obj of $ts"
comm_assert "$fs_obj >= 0.8 * $fs" "F=0.5: only $fs_obj of fs_total $fs is on fs_line (objects view)"
comm_assert "$ts_obj >= 0.8 * $ts" "F=0.5: only $ts_obj of ts_total $ts is on ts_word (objects view)"
exit 0
