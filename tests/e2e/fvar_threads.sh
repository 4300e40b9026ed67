#!/bin/sh
# cdt fvar on an imbalance: fvar_shapes -m imbalance -n 4 -r 2000 -u 80000
# has workload thread k (cdt thread k + 1; 0 is main) call share(k) 2000
# times, each call k + 1 units of about 26 us.  Ground truth:
#   - within a thread every call does the same work: in each thread the
#     instances' interquartile range is under 25% of their median, plus
#     what the host's speed spread the same calls by in the same run, as
#     the program measured every one of them (-T: share@K quartiles).  The
#     host's share is no excuse the program cannot show: without cdt its
#     calls spread by 0.5%; under cdt, usually 1-2%, but in some runs 15%,
#     when the host slowed the guest for part of the run (both halves seen
#     in the program's own clock).  Calls are 4 units of 20000 iterations
#     each (-u 80000): a trap's cost beyond the calibration, up to about
#     13 us on this KVM host on 2026-11-27 (cdt 40 us against the
#     program's 27 us for one unit), is then at most an eighth of the
#     shortest call, where at one unit it spread thread 1's instances by
#     24-31% with the program's own at 1%;
#   - across threads the totals are about 1:2:3:4 (a CV near
#     sd(1..4)/2.5 = 0.447): each thread's samples in share are its part
#     of all of share's samples, as the program's own medians split the
#     work (2000 calls each), and cv_threads is the CV of those samples
#     (population sd, over the 4 threads that run share);
#   - each thread's median instance is the program's own median of that
#     thread's calls plus a cost the same in every thread, within 10% of
#     a unit (medians of a cost this constant sit within a few percent,
#     see the interquartile ranges; see below);
#   - share is flagged (the paper's inter-thread threshold is 0.1).
# Margins: a thread's samples s_k are Poisson, sd sqrt(E_k) about their
# expected E_k, and each must be within 4 sd.  Not the CV against the
# program's within a fixed margin: at some 210 samples (E = 21, 42, 63,
# 85) the CV of Poisson counts has an sd of 0.061, so the +-0.12 this
# test once allowed was 2 sd (5.4% of runs outside it, in simulation),
# and CI and a stressed run failed it (0.595 against 0.442).  Medians, not means, within a thread: a few
# instances in a hundred run 20-40 us long on a loaded KVM guest (a sample
# inside one adds about 25 us the calibration does not take out, see
# cdt-fvar(1)), and thread 1 has only ~15 instances.
set -u
. "$(dirname "$0")/lib/common.sh"
need_debug_traps "fvar times instances between two traps"
need_workloads fvar_shapes

"$CDT" fvar -q -o "$tmp/imb.data" "$W/fvar_shapes" -m imbalance -n 4 -r 2000 -u 80000 \
	-T "$tmp/truth" 2>"$tmp/err" ||
	fail "cdt fvar: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/imb.data" --csv --view functions >"$tmp/fn" || fail "report functions"

set -- $(cols "$tmp/fn" function flagged instances cv_intra cv_threads threads |
	awk -F'\t' '$1 == "share" { print $2, $3, $4, $5, $6 }')
[ $# -eq 5 ] || fail "no row for share: $(cat "$tmp/fn")"
echo "share: flagged $1, $2 instances, cv_intra $3, cv_threads $4 over $5 threads"
[ "$1" = 1 ] || fail "share is not flagged"
[ "$5" = 4 ] || fail "share ran in $5 threads, not 4"
"$CDT" report -i "$tmp/imb.data" --csv --top 0 --view instances >"$tmp/inst" || fail "report instances"
# The program's own spread of share's calls, by cdt thread (K + 1).
awk '/^share@/ { sub(/share@/, ""); printf "%d %.4f\n", $1 + 1, ($4 - $2) / $3 }' "$tmp/truth" >"$tmp/host"
[ "$(wc -l <"$tmp/host")" = 4 ] || fail "the workload wrote no quartiles of share: $(cat "$tmp/truth")"
cols "$tmp/inst" function thread cpu | awk -F'\t' '$1 == "share" { print $2, $3 }' | sort -k1,1n -k2,2n |
	awk -v hostf="$tmp/host" '
	BEGIN { while ((getline l < hostf) > 0) { split(l, f, " "); host[f[1]] = f[2] } }
	function check(   q1, q3, md) {
		if (n < 8) return
		q1 = v[int(n / 4)]; md = v[int(n / 2)]; q3 = v[int(3 * n / 4)]
		printf "thread %d: %d instances, median %.0f ns, interquartile range %.1f%% of it (the program saw %.1f%%)\n", t, n, md, 100 * (q3 - q1) / md, 100 * host[t]
		if (q3 - q1 > (0.25 + host[t]) * md) bad = 1
	}
	$1 != t { check(); t = $1; n = 0 }
	{ v[n++] = $2 }
	END { check(); exit bad }' >"$tmp/spread" || fail "share's instances spread within a thread: $(cat "$tmp/spread")"
cat "$tmp/spread"
# Each thread's samples in share against its part of the work as the
# program ran it (2000 calls each of its median), and cv_threads as the
# CV of those samples.
"$CDT" report -i "$tmp/imb.data" --csv --view threads >"$tmp/thr" || fail "report threads"
cols "$tmp/thr" function thread samples | awk -F'\t' '$1 == "share" { print $2, $3 }' |
	awk -v truthf="$tmp/truth" -v cv="$4" '
	BEGIN { while ((getline l < truthf) > 0) if (split(l, f, " ") == 4 && sub(/^share@/, "", f[1])) { md[f[1] + 1] = f[3]; w += f[3] } }
	{ s[$1] = $2; all += $2; n++ }
	END {
		if (n != 4 || w <= 0) { print "threads of share: " n; exit 1 }
		for (k = 1; k <= 4; k++) {
			e = all * md[k] / w; z = (s[k] - e) / sqrt(e); m += s[k] / 4
			printf "thread %d: %d samples in share, %.1f expected (%.1f sd off)\n", k, s[k], e, z
			if (z > 4 || z < -4) bad = 1
		}
		for (k = 1; k <= 4; k++) v += (s[k] - m) ^ 2 / 4
		printf "their CV %.4f, cv_threads %s\n", sqrt(v) / m, cv
		exit bad || (sqrt(v) / m - cv > 0.0005 || cv - sqrt(v) / m > 0.0005)
	}' || fail "share's samples across threads do not follow the work"

# Each thread's median instance against the program's own median of all
# its calls (-T), less a measuring cost that is the same in every thread:
# some c within 25% of a unit (what the calibration leaves in; under
# stress-ng 0.14 to 0.15 units) must put every thread's median within 10%
# of a unit of the program's.  The program's medians, not k units: alone
# on this host the workload's calls ran 1 : 2.28 : 2.98 : 4.61 units in one
# run and 1 : 1.74 : 2.98 : 3.50 in the next (when fewer threads than
# vCPUs are left, a call runs without its busy sibling), and a line fitted
# to such medians put thread 3 0.27 units off where it sat on the
# program's.  Where the host spread the program's calls of thread k by a
# fraction h of their median, cdt's median may move by h k units too: the
# next call after a sample is a fair pick of the calls but the sample
# lands in slow stretches more often (a run that straddled a slowdown
# put thread 3's median 0.34 units off, with the calls spread by 14.5%).
awk -v truthf="$tmp/truth" '
	BEGIN {
		while ((getline l < truthf) > 0)
			if (split(l, f, " ") == 4 && sub(/^share@/, "", f[1])) {
				k = f[1] + 1; pm[k] = f[3]; h[k] = (f[4] - f[2]) / f[3]; unit += f[3] / 10
			}
	}
	/^thread [0-9]+: / { sub(/:/, "", $2); md[$2] = $6 }
	END {
		if (unit <= 0) exit 1
		lo = -0.25; hi = 0.25
		for (k = 1; k <= 4; k++) {
			o[k] = (md[k] - pm[k]) / unit; room = 0.1 + h[k] * k
			printf "thread %d median: %.2f units over the program'\''s %.0f ns (room %.2f about c)\n", k, o[k], pm[k], room
			if (o[k] - room > lo) lo = o[k] - room
			if (o[k] + room < hi) hi = o[k] + room
		}
		printf "a unit: %.0f ns; a common c within 0.25 units: %s\n", unit, lo <= hi ? sprintf("%.2f to %.2f", lo, hi) : "none"
		exit lo > hi
	}' "$tmp/spread" || fail "per-thread medians are not the program's plus one cost"
