#!/bin/sh
# A program whose signal handler blocks every signal (sigfillset(&sa.sa_mask))
# must not block cdt's SIGTRAP: its handler's samples land in the handler,
# not after it.  sigmask spends about half its CPU time in in_handler() (run
# from a SIGUSR1 handler) and half in in_main(), the same loop for the same
# count; it measures the halves' CPU time and prints in_handler's share,
# the truth (0.57 to 0.58 on a Cascade Lake guest, where the two copies of
# the loop do not run at the same speed; cdt's samples said so too).
#   - in_handler + in_main hold >= 90% of the samples (with SIGTRAP
#     blocked, the handler's samples land at raise() instead: about 50%);
#   - in_handler's share of the two is the truth within 0.05 + 4 sd, sd
#     the binomial sqrt(0.25/n) of n samples; 1600 rounds (~1.4 s of CPU)
#     give ~700 at the rate the overhead budget set here, and >= 350 at
#     the POSIX clock's slowest, one a 4 ms tick (0.05 + 0.107 then);
#     the 0.05 allows for samples that skid across the halves' edges.
#   - none of cdt's traps was left for the program (stray_traps counted).
set -u
. "$(dirname "$0")/lib/common.sh"
need_workloads sigmask

"$CDT" record -q -o "$tmp/p.data" "$W/sigmask" 1600 >"$tmp/out" 2>"$tmp/err" ||
	fail "cdt record sigmask: exit $?: $(tail -n 5 "$tmp/err")"
"$CDT" report -i "$tmp/p.data" --csv --view functions --top 0 >"$tmp/f.csv" 2>"$tmp/rerr" ||
	fail "cdt report: $(cat "$tmp/rerr")"
truth=$(sed -n "s/^sigmask: in_handler's share of the CPU time //p" "$tmp/err")
[ -n "$truth" ] || fail "sigmask printed no CPU time share: $(cat "$tmp/err")"
cols "$tmp/f.csv" function samples | awk -F'\t' -v truth="$truth" '
	{ all += $2 }
	$1 ~ /^in_handler / { h += $2 }
	$1 ~ /^in_main / { m += $2 }
	END {
		n = h + m
		if (n < 200) { printf "only %d samples in the two functions\n", n; exit 1 }
		share = h / n; sd = sqrt(0.25 / n); dev = share - truth; if (dev < 0) dev = -dev
		printf "in_handler %d, in_main %d, all %d: share %.3f (its CPU time %.3f +- %.3f), in both %.3f\n",
			h, m, all, share, truth, 0.05 + 4 * sd, n / all
		if (n < 0.9 * all) exit 1
		if (dev > 0.05 + 4 * sd) exit 1
	}' >"$tmp/verdict" || fail "samples not where the CPU time is: $(cat "$tmp/verdict")"
cat "$tmp/verdict"

# A program that takes SIGTRAP back through the raw system call keeps its
# own exit status (0), and cdt says that sampling stopped early.
"$CDT" record -o "$tmp/raw.data" "$W/sigmask" --raw 100 >"$tmp/out" 2>"$tmp/err" ||
	fail "cdt record sigmask --raw: expected the program's exit 0, got $?: $(tail -n 5 "$tmp/err")"
grep -q "replaced cdt's SIGTRAP handler.*sampling stopped early" "$tmp/err" ||
	fail "no message on stderr: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/raw.data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
	fail "cdt report: $(cat "$tmp/rerr")"
grep -q '^agent_error,.*sampling stopped early' "$tmp/summary" ||
	fail "the summary does not say that sampling stopped early: $(cat "$tmp/summary")"

# The program reads back the masks it set, though cdt keeps its own
# signals deliverable: the thread's mask, a new thread's, a handler's
# sa_mask, an SA_ONSTACK handler's disposition; every tool, as plain.
plain "$W/sigmask" --readback >"$tmp/plain" 2>&1 || fail "sigmask --readback fails without cdt: $(cat "$tmp/plain")"
grep -q '^sigprocmask: .* SIGTRAP 1$' "$tmp/plain" || fail "sigmask --readback: unexpected plain output: $(cat "$tmp/plain")"
for tool in record comm fvar; do
	"$CDT" $tool -q -o "$tmp/rb.data" "$W/sigmask" --readback >"$tmp/rb" 2>"$tmp/err" ||
		fail "cdt $tool sigmask --readback: exit $?: $(tail -n 5 "$tmp/err")"
	diff "$tmp/plain" "$tmp/rb" >"$tmp/diff" ||
		fail "cdt $tool: the program read back other masks than it set (< plain, > under cdt): $(cat "$tmp/diff")"
done
exit 0
