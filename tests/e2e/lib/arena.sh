# The arena_scribbler workload under cdt (tests/e2e/arena_*.sh): a program
# that writes over cdt's shared record buffer, one way per MODE (see
# tests/workloads/arena_scribbler.c).  Sourced after common.sh.

need_workloads arena_scribbler

# csv_cols FILE COL...: as cols (common.sh), but a row may hold quoted
# fields; those rows give garbage, which no test here matches.
csv_cols() {
	_f=$1
	shift
	awk -F, -v want="$*" '
	{ sub(/\r$/, "") }
	NR == 1 { n = split(want, w, " "); for (i = 1; i <= NF; i++) idx[$i] = i; next }
	{ s = ""; for (k = 1; k <= n; k++) s = s (k > 1 ? "\t" : "") $(idx[w[k]]); print s }' "$_f"
}

# count WHAT: the records of one reason in cdt's "refused" line (0 if the
# reason is not named), WHAT being the line's own words for it.
count() {
	grep -a '^cdt: refused ' "$tmp/err" | sed -n "s/.*[:,] \([0-9][0-9]*\) $1.*/\1/p" | head -n 1 |
		grep . || echo 0
}

# scribble TOOL MODE: `cdt TOOL -o $tmp/TOOL.data arena_scribbler MODE`,
# then what every mode must give:
#  - cdt ends within 60 s (timeout's 124: it hung) with the program's own
#    status 3, not 125 (cdt failed) or 128+N (a crash);
#  - no sanitizer report (CDT is the ASan/UBSan build under make check),
#    and ingest and the profile agree on every record (no internal error);
#  - a readable profile: the text report, and the summary CSV saying
#    exit_status 3;
#  - the records from before the scribbling: both pre_worker threads,
#    with samples (their agent statistics, sent as they ended); under
#    record, their memory samples too (>= 50 each: ~300 at -F 1000, a rate
#    fixed as the overhead budget's is the machine's), in
#    mem_work; and from after it, the post_worker thread;
#  - no absurd figure: the counts the arena carries (dropped records, the
#    threads' agent statistics) are bounded by what the run could have
#    done, so no number of 16 digits or more (>= 10^15: a ns count of 11
#    days, a sample every ns for as long) is on stderr or in the summary;
#  - what was refused: rejected_records > 0 in the summary, the same total
#    on stderr's "cdt: refused N records" line, and each reason the
#    workload's ground truth ($tmp/truth) names, exactly or at least.
# Leaves cdt's stderr in $tmp/err, the summary in $tmp/summary, the
# threads view in $tmp/threads.csv, and rejected (the total) set.
scribble() {
	tool=$1 mode=$2 data=$tmp/$1.data
	what="cdt $tool arena_scribbler $mode"
	rm -f "$data" "$tmp/truth"
	ARENA_TRUTH=$tmp/truth timeout 60 "$CDT" "$tool" -F 1000 -o "$data" "$W/arena_scribbler" "$mode" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ "$rc" -ne 124 ] || fail "$what: hung (killed by timeout after 60 s); stderr: $(tail -c 2000 "$tmp/err")"
	if grep -aq -e 'AddressSanitizer' -e 'runtime error:' -e 'LeakSanitizer' -e 'internal error' "$tmp/err"; then
		fail "$what: $(grep -a -m 1 -A 30 -e Sanitizer -e 'runtime error:' -e 'internal error' "$tmp/err")"
	fi
	[ "$rc" -eq 3 ] || fail "$what: expected cdt to exit 3, the program's status, got $rc; stderr: $(tail -c 3000 "$tmp/err")"
	[ -s "$data" ] || fail "$what: no profile written; stderr: $(tail -c 2000 "$tmp/err")"
	"$CDT" report -i "$data" >/dev/null 2>"$tmp/rerr" ||
		fail "$what: the text report of the profile failed: $(cat "$tmp/rerr")"
	"$CDT" report -i "$data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
		fail "$what: the summary of the profile failed: $(cat "$tmp/rerr")"
	[ "$(kv exit_status)" = 3 ] || fail "$what: summary exit_status: expected 3, found '$(kv exit_status)'"
	[ "$(kv tool)" = "$tool" ] || fail "$what: summary tool: expected $tool, found '$(kv tool)'"

	absurd=$(grep -a -o -E '(^|[^0-9a-fA-Fx.])[0-9]{16,}' "$tmp/err" "$tmp/summary")
	[ -z "$absurd" ] || fail "$what: a figure no run can reach: $absurd; stderr: $(cat "$tmp/err")"

	# Before and after the scribbling.  (Forged records that pass the
	# checks may name threads anything: fields can be quoted, so cols,
	# which refuses quotes, is not for these views.)
	"$CDT" report -i "$data" --csv --view threads >"$tmp/threads.csv" 2>"$tmp/rerr" ||
		fail "$what: the threads view failed: $(cat "$tmp/rerr")"
	csv_cols "$tmp/threads.csv" name samples | awk -F'\t' '$1 == "pre_worker" && $2 > 0 { n++ }
		END { exit n != 2 }' ||
		fail "$what: expected the 2 pre_worker threads, with samples, from before the scribbling: $(cat "$tmp/threads.csv")"
	csv_cols "$tmp/threads.csv" name | grep -qx post_worker ||
		fail "$what: expected the post_worker thread, from after the scribbling: $(cat "$tmp/threads.csv")"
	if [ "$tool" = record ]; then
		"$CDT" report -i "$data" --csv --top 0 --view samples >"$tmp/samples.csv" 2>"$tmp/rerr" ||
			fail "$what: the samples view failed: $(cat "$tmp/rerr")"
		csv_cols "$tmp/threads.csv" thread name | awk -F'\t' '$2 == "pre_worker" { print $1 }' >"$tmp/pre"
		# In mem_work, but for random: forged mappings of the program's
		# own pid that pass the checks may hide its real ones.
		fn=mem_work
		[ "$mode" != random ] || fn=
		csv_cols "$tmp/samples.csv" thread function | awk -F'\t' -v fn="$fn" '
			FILENAME == ARGV[1] { pre[$1] = 1; next }
			($1 in pre) && (fn == "" || $2 == fn) { n[$1]++ }
			END { for (t in pre) if (n[t] < 50) { print "thread " t ": " n[t] + 0; exit 1 } }' \
			"$tmp/pre" - >"$tmp/why" ||
			fail "$what: expected >= 50 memory samples${fn:+ in $fn} from each pre_worker thread: $(cat "$tmp/why")"
	fi

	# What was refused.
	rejected=$(kv rejected_records)
	[ "$rejected" -gt 0 ] 2>/dev/null ||
		fail "$what: summary rejected_records: expected > 0, found '$rejected'; stderr: $(cat "$tmp/err")"
	line=$(grep -a '^cdt: refused ' "$tmp/err")
	[ -n "$line" ] || fail "$what: no 'cdt: refused ...' line on stderr: $(cat "$tmp/err")"
	[ "$(echo "$line" | awk '{ print $3 }')" = "$rejected" ] ||
		fail "$what: stderr says '$line', the summary rejected_records $rejected"
	[ -f "$tmp/truth" ] || fail "$what: the workload wrote no ground truth"
	while read -r key want; do
		case $key in
		rej_type) got=$(count 'of a type the agent does not write') ;;
		rej_size) got=$(count 'too short for their type') ;;
		rej_field) got=$(count 'with a field out of range') ;;
		rej_frame) got=$(count 'unframed') ;;
		*) continue ;;
		esac
		case $want in
		'>='*) [ "$got" -ge "${want#>=}" ] ;;
		*) [ "$got" -eq "$want" ] ;;
		esac || fail "$what: $key: expected $want refused, found $got: $line"
	done <"$tmp/truth"
}

# truth KEY: the workload's ground truth for KEY.
truth() {
	awk -v k="$1" '$1 == k { print $2; exit }' "$tmp/truth"
}
