#!/bin/sh
# cdt fvar on functions that do their work in libc, through the PLT:
# fvar_libc's threads call copy_a() and copy_b() in turn, each calling
# memcpy and then strlen (64 KiB each) through the PLT.  Ground truth:
#   - memcpy and strlen are one function each, one row each in the
#     functions view, with their share and their instances on that row
#     (memcpy once read as 4 rows: its share on one with no instance,
#     instances on rows keyed by where a late trap found them);
#   - their contexts are the two call sites in copy_a and copy_b, which
#     hold their share (samples whose caller was not found would be a
#     third context);
#   - a sample in memcpy or strlen counts for its caller too, through the
#     PLT stub (share is inclusive): copy_a's share is at least what its
#     two callees' contexts in it hold, run's is the whole run.
# Margins: each of some 370 samples with its caller found counts for the
# caller exactly, so the inclusive shares hold to the sample; 10% is for
# samples where the return address is not (yet, or any more) on the
# stack, none in 5 runs here.  memcpy and strlen take about 60% and 35%
# of the samples (sd about 0.025 at 370 samples): a share above 0.15 is
# 8 sd away from failing; 2 CPU seconds a thread gave 100-160 instances
# of memcpy, 56-98 of strlen, for the 30 asked.
set -u
. "$(dirname "$0")/lib/common.sh"
need_debug_traps "fvar times instances between two traps"
need_workloads fvar_libc
src="$(dirname "$0")/../workloads/fvar_libc.c"

"$CDT" fvar -q -o "$tmp/plt.data" "$W/fvar_libc" -n 2 -t 2 2>"$tmp/err" ||
	fail "cdt fvar: exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/plt.data" --csv --view functions >"$tmp/fn.csv" || fail "report functions"
"$CDT" report -i "$tmp/plt.data" --csv --view contexts >"$tmp/ctx.csv" || fail "report contexts"
cols "$tmp/fn.csv" function instances share >"$tmp/fn" || fail "columns: $(head -n 1 "$tmp/fn.csv")"
cols "$tmp/ctx.csv" function call_site share >"$tmp/ctx" || fail "columns: $(head -n 1 "$tmp/ctx.csv")"

# The callees by their call sites, whatever libc's names for them are.
line() { grep -n "$1" "$src" | head -n 1 | cut -d: -f1; }
a_cp=$(line 'memcpy(w->dst'); a_len=$(line 'strlen(w->dst'); b_cp=$(line 'memcpy(w->src'); b_len=$(line 'strlen(w->src')
callee() { awk -F'\t' -v site="$1 (fvar_libc.c:$2)" '$2 == site { print $1; exit }' "$tmp/ctx"; }
cp=$(callee copy_a "$a_cp")
len=$(callee copy_a "$a_len")
[ -n "$cp" ] && [ -n "$len" ] && [ "$cp" != "$len" ] ||
	fail "no contexts for memcpy and strlen at fvar_libc.c:$a_cp and :$a_len: $(cat "$tmp/ctx")"
echo "memcpy is $cp, strlen is $len"
[ "$(callee copy_b "$b_cp")" = "$cp" ] && [ "$(callee copy_b "$b_len")" = "$len" ] ||
	fail "copy_b's calls are not of the same functions: $(cat "$tmp/ctx")"

for f in "$cp" "$len"; do
	rows=$(awk -F'\t' -v f="$f" '$1 == f' "$tmp/fn")
	echo "$rows"
	[ "$(printf '%s\n' "$rows" | wc -l)" = 1 ] || fail "$f is $(printf '%s\n' "$rows" | wc -l) rows"
	printf '%s\n' "$rows" | awk -F'\t' '{ exit !($2 >= 30 && $3 > 0.15) }' ||
		fail "$f: its instances (30 or more) and share (over 0.15) are not on one row"
	awk -F'\t' -v f="$f" -v a="copy_a (fvar_libc.c:" -v b="copy_b (fvar_libc.c:" '
		$1 == f { all += $3; if (index($2, a) == 1 || index($2, b) == 1) in_copy += $3; else print "other call site: " $0 }
		END { printf "%s: %.4f of its share at its call sites in copy_a and copy_b\n", f, all ? in_copy / all : 0
		      exit !(all > 0 && in_copy >= 0.9 * all) }' "$tmp/ctx" ||
		fail "$f's share is not at its call sites"
done

# Inclusive shares through the PLT.
awk -F'\t' -v cp="$cp" -v len="$len" '
	FILENAME == ARGV[1] { share[$1] = $3; next }
	($1 == cp || $1 == len) && $2 ~ /^copy_[ab] / { split($2, w, " "); callees[w[1]] += $3 }
	END {
		for (c = 0; c < 2; c++) {
			f = c ? "copy_b" : "copy_a"
			printf "%s: share %.4f, its calls of memcpy and strlen %.4f\n", f, share[f], callees[f]
			if (!(callees[f] > 0.2 && share[f] >= 0.9 * callees[f])) bad = 1
		}
		printf "run: share %.4f\n", share["run"]
		exit bad || !(share["run"] >= 0.9)
	}' "$tmp/fn" "$tmp/ctx" || fail "callers do not hold their callees' samples"
