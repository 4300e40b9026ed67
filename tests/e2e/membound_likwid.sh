#!/bin/sh
# cdt membound's calibration against its peer, likwid-bench: the read
# bandwidth of one core per level (L1, L2, L3 where cdt found one, DRAM)
# agrees within 15% with likwid-bench's read kernel of the same width
# (load_avx512, load_avx or load_sse, by what cdt used), on the buffer
# size cdt measured the level with (half its size; DRAM: the sweep's
# largest), on the same CPU (likwid's S0:...:1 and cdt's first CPU of
# socket 0 are CPU 0).
#
# This VM's speed is not steady: a busy neighbour (stress-ng --cpu 1, or
# the other tests) shares the CPU in slices of a few ms, and the host
# slows a core down for seconds at a time (likwid's default 1 s runs at
# 24 KiB: 168 to 331 GB/s in a row; with 3 ms runs, -i 40000: 130 to 365,
# against cdt's best of 2 ms runs, 347).  Both sides are therefore taken
# at their best of short runs, as x86-membench and cdt do: likwid with
# -i for about 2 ms a run, like cdt's (a long run averages the
# slices in, 20-35% lower at L1 and L2 under stress-ng); and interleaved,
# so that both see the same spells: three rounds of a quick cdt
# calibration and likwid runs per level (8 at L1 and L2, 3 at L3 and
# DRAM), one more round of likwid only (cdt's runs hold 8 of 2 ms each per
# level, likwid's one: the best of more is higher under load by itself,
# and with one or three likwid runs a level cdt's L1 best read 1.17x and
# 1.20x likwid's under stress).
# cdt's rounds are compared only on a level whose buffer matches the
# first round's (the measured L3 size can move by a step).  A level that still
# disagrees after these rounds gets three more of both (see compare).
#
# One margin is wider, on one side: in L2, cdt may read up to 25% faster
# than likwid-bench.  likwid's figure there is held back by its harness,
# not by the hardware: its own load_avx512 loop (4 vmovapd, add, cmp, jl),
# timed the way cdt times its kernel, reads 512 KiB at 216 GB/s, cdt's
# kernel 220, while likwid-bench itself never gave more than 194 in some
# 40 runs: an offset of about 1.14, so 15% of noise on top would be 1.31.
# The ratios of the bests seen: 0.96 to 1.19 in 19 runs of this test
# under stress-ng --cpu 1; at 15% it would fail about half the time.
#
# The same holds at L1 for the AVX-512 kernels, on a Cascade Lake guest:
# likwid's load_avx512 runs 4 loads and 3 loop instructions an iteration,
# and likwid itself reports 0.78 cycles a cache line at 16 KiB, where two
# loads a cycle allow 0.5: its best of 5 runs read 246 to 303 GB/s, cdt's
# 8 loads an iteration 335.  So with avx512, L1 too may read up to 25%
# faster than likwid-bench.
#
# And DRAM is shared with the other guests of the host: its bandwidth
# changes 2x within seconds (one core: 15 to 41 GB/s in consecutive runs
# of either tool, likwid 8 to 21 in three runs in a row), so the best of
# runs seconds apart compares two different machines.  DRAM passes if the
# bests agree, or if one round's cdt figure agrees with the likwid runs
# right after it.  So does L3, which the host's other guests share too
# (cdt's L3 read 0.83x likwid's best once, with the machine at a load of
# 4, while each round agreed).  Both use 4 KiB pages here (CDT_CALIB_NO_HUGEPAGES):
# with huge pages cdt reads DRAM 10-25% faster than likwid can.
set -u
. "$(dirname "$0")/lib/common.sh"
command -v likwid-bench >/dev/null || { echo "skip: likwid-bench not installed (Debian: likwid)"; exit 77; }
export XDG_CACHE_HOME="$tmp/cache"
# likwid's buffers are 4 KiB pages (THP is madvise-only in Debian's
# default); cdt's huge pages read DRAM faster (streams prefetch across
# 4 KiB): compare like with like.
export CDT_CALIB_NO_HUGEPAGES=1
# Nothing of either tool lands in the caller's directory.
cd "$tmp" || exit 1

# kern_of: likwid's read kernel of the width cdt used (the cache file's isa).
kern=''
kern_of() {
	case $(sed -n 's/^isa //p' "$XDG_CACHE_HOME"/cdt/membound-*.txt) in
	avx512) kern=load_avx512 ;;
	avx2) kern=load_avx ;;
	sse2) kern=load_sse ;;
	*) fail "no isa line in $(ls "$XDG_CACHE_HOME"/cdt)" ;;
	esac
	likwid-bench -t $kern -w S0:64kB:1 -i 10 >"$tmp/lk" 2>&1 ||
		{ echo "skip: likwid-bench cannot run $kern here: $(tail -n 2 "$tmp/lk" | tr '\n' ' ')"; exit 77; }
}

# round N: a cdt calibration into cdt.N (level work rd), one likwid run a level.
: >"$tmp/likwid"
round() {
	if [ "$1" -ne 4 ]; then
		"$CDT" membound --calibrate --quick --force --csv >"$tmp/csv.$1" 2>"$tmp/err" ||
			fail "cdt --calibrate (round $1): exit $?: $(cat "$tmp/err")"
		cols "$tmp/csv.$1" level work_bytes rd_bw1_gbs | awk -F'\t' '$2 != "" && $3 != "" && $1 != "RDRAM"' \
			>"$tmp/cdt.$1" || fail "cdt CSV (round $1)"
	fi
	[ -n "$kern" ] || kern_of
	while IFS="$(printf '\t')" read -r lv work rd; do
		kb=$((work / 1024))
		# Passes for about 2 ms at cdt's speed (DRAM: 3 passes, ~30 ms;
		# likwid's first pass can be slow).
		it=$(awk -v w="$work" -v g="$rd" 'BEGIN { i = int(0.002 * g * 1e9 / w); print i < 3 ? 3 : i }')
		# Several runs a level: cdt's figure is the best of 8 passes a
		# round, and a best of fewer runs is lower under load by itself.
		# Under stress-ng one likwid run of 2 ms at L1 reads anywhere
		# from 98 to 375 GB/s (8 in a row), and one run a level let cdt's
		# L1 best read 1.17x, three 1.20x: 8 of the cheap levels' runs
		# (about 30 ms each), 3 of L3's and DRAM's.
		n=3
		case $lv in L1 | L2) n=8 ;; esac
		for k in $(seq "$n"); do
			mbs=$(likwid-bench -t $kern -w "S0:${kb}kB:1" -i "$it" 2>"$tmp/lkerr" |
				awk '/^MByte\/s:/ { print $2 }')
			[ -n "$mbs" ] || [ "$k" -gt 1 ] ||
				fail "likwid-bench -t $kern -w S0:${kb}kB:1 -i $it gave no MByte/s: $(tail -n 3 "$tmp/lkerr")"
			[ -z "$mbs" ] || echo "$lv $work $mbs $1" >>"$tmp/likwid"
		done
	done <"$tmp/cdt.1"
}
# compare: the table in $tmp/cmp; 1 if a level disagrees.  Per level:
# cdt's best (rounds with the first round's buffer), likwid's best; DRAM
# and L3 also round by round (cdt's round against likwid's runs right
# after it, within 5 s).
compare() {
	for r in $cdt_rounds; do sed "s/^/$r\t/" "$tmp/cdt.$r"; done | awk -F'\t' -v lkf="$tmp/likwid" -v kern="$kern" '
		BEGIN {
			while ((getline l < lkf) > 0) {
				split(l, f, " ")
				if (f[3] / 1000 > lk[f[1]]) lk[f[1]] = f[3] / 1000
				lkwork[f[1]] = f[2]
				if (f[3] / 1000 > lkr[f[1], f[4]]) lkr[f[1], f[4]] = f[3] / 1000
			}
		}
		{
			r = $1; l = $2
			if (!(l in lkwork)) next # not in round 1: likwid did not run it
			if (!(l in work)) { work[l] = $3; order[n++] = l }
			if ($3 != work[l]) next
			if ($4 > cdt[l]) cdt[l] = $4
			if (lkr[l, r] > 0 && $4 / lkr[l, r] >= 0.85 && $4 / lkr[l, r] <= 1.15) paired[l] = r " (" $4 " vs " lkr[l, r] ")"
		}
		END {
			bad = 0
			printf "%-6s %12s %10s %10s %7s\n", "level", "bytes", "cdt GB/s", "likwid", "ratio"
			for (i = 0; i < n; i++) {
				l = order[i]
				ratio = lk[l] > 0 ? cdt[l] / lk[l] : 0
				ok = ratio >= 0.85 && ratio <= (l == "L2" || (l == "L1" && kern == "load_avx512") ? 1.25 : 1.15)
				why = ok ? "" : "  <- beyond 15%"
				if (!ok && (l == "DRAM" || l == "L3") && (l in paired)) { ok = 1; why = "  (round " paired[l] " agrees)" }
				printf "%-6s %12s %10.1f %10.1f %7.3f%s\n", l, work[l], cdt[l], lk[l], ratio, why
				if (!ok) bad = 1
			}
			exit bad
		}' >"$tmp/cmp"
}
cdt_rounds="1 2 3"
for r in 1 2 3 4; do round $r; done
# A level's best that misses is a slow spell that happened to hold every
# one of cdt's 16 ms at that level, and none of likwid's runs around them
# (CI, unloaded: cdt's L1 145.8 GB/s in each of 3 rounds, likwid's 287.5,
# every other level within 5%).  Both figures are maxima over runs, so
# three more rounds of both give each side more chances at the machine's
# full speed; a real difference of the kernels stays in all six.
compare
rc=$?
if [ $rc -ne 0 ]; then
	sed 's/^/first rounds: /' "$tmp/cmp"
	cdt_rounds="1 2 3 5 6 7"
	for r in 5 6 7; do round $r; done
	compare
	rc=$?
fi
cat "$tmp/cmp"
[ $rc -eq 0 ] || fail "cdt and likwid-bench ($kern) disagree by more than 15%: $(cat "$tmp/cmp")"
exit 0
