#!/bin/sh
# cdt report: the default file names (record writes cdt.data, report reads
# it), --view list, the documented CSV header of every view with the same
# field count on every record (RFC 4180 quoting honoured), LF line ends,
# the default CSV view, the text report within 80 columns when stdout is
# not a terminal (and within --width N), and bad usage exiting 125.
set -u

. "$(dirname "$0")/lib/common.sh"

# fields FILE: the field count of every record, one per line, parsing
# RFC 4180 quotes (a quoted field may hold commas and doubled quotes).
fields() {
	awk '{
		n = 1; q = 0
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (q) { if (c == "\"") { if (substr($0, i + 1, 1) == "\"") i++; else q = 0 } }
			else if (c == "\"") q = 1
			else if (c == ",") n++
		}
		if (q) { print "unterminated quote on line " NR > "/dev/stderr"; exit 1 }
		print n
	}' "$1"
}

need_workloads watchme

cd "$tmp" || exit 1
# A high rate: this tests the views, and every view needs rows.
"$CDT" record -F 10000 --watch watched_counter:w "$W/watchme" 2 20000 >out 2>err
rc=$?
[ "$rc" -eq 0 ] || fail "cdt record: expected exit 0, got $rc: $(cat err)"
[ -f cdt.data ] || fail "cdt record without -o: expected ./cdt.data, found: $(ls -A | tr '\n' ' ')"
grep -q 'cdt.data' err || fail "cdt record must say which file it wrote: $(cat err)"
# Without debug-register traps (cdt probe: watchpoint_trap fail) --watch
# records none: the traps view is asserted empty instead, and the run and
# the summary must say why; every other view is asserted as anywhere.
traps=1
if ! debug_traps; then
	traps=0
	echo "$me: debug-register traps are not delivered on this machine: the traps view is checked empty, with the reason"
	grep -q 'cdt record: debug-register traps are not delivered on this machine (.*): --watch records no trap' err ||
		fail "cdt record --watch without traps must say so: $(cat err)"
fi

# --view list: one view per line, name first.
"$CDT" report --view list >list 2>err || fail "--view list failed: $(cat err)"
views="summary threads functions objects allocs samples traps"
for v in $views; do
	awk -v v="$v" '$1 == v { f = 1 } END { exit !f }' list || fail "--view list lacks '$v': $(cat list)"
done

header() {
	case $1 in
	summary) echo 'key,value' ;;
	threads) echo 'thread,pid,tid,name,samples,mem_samples,loads,stores,rmw,traps,handler_us' ;;
	functions) echo 'function,samples,percent,loads,stores,rmw,threads' ;;
	objects) echo 'object,samples,percent,loads,stores,rmw,threads' ;;
	allocs) echo 'object,kind,blocks,bytes,largest,samples,path' ;;
	samples) echo 'thread,pid,tid,time_ns,cpu,kind,size,addr,ip,function,file,line,object,offset,flags' ;;
	traps) echo 'thread,tid,time_ns,watched,object,kind,size,insn,location' ;;
	esac
}

for v in $(awk '{ print $1 }' list); do
	"$CDT" report --csv --view "$v" >"$v.csv" 2>err || fail "--csv --view $v failed: $(cat err)"
	want=$(header "$v")
	if [ -n "$want" ]; then
		[ "$(head -n 1 "$v.csv")" = "$want" ] ||
			fail "--csv --view $v: header expected '$want', found '$(head -n 1 "$v.csv")'"
	fi
	if [ "$v" = traps ] && [ $traps -eq 0 ]; then
		[ "$(wc -l <"$v.csv")" -eq 1 ] || fail "--csv --view traps: no trap was delivered, yet: $(cat "$v.csv")"
		grep -q '^debug_traps,not delivered (' summary.csv ||
			fail "the summary does not say that traps were not delivered: $(cat summary.csv)"
	else
		[ "$(wc -l <"$v.csv")" -ge 2 ] || fail "--csv --view $v: expected rows, found: $(cat "$v.csv")"
	fi
	if grep -q "$(printf '\r')" "$v.csv"; then
		fail "--csv --view $v: records must end in LF alone"
	fi
	fields "$v.csv" >nf || fail "--csv --view $v: bad quoting"
	[ "$(sort -u nf | wc -l)" -eq 1 ] ||
		fail "--csv --view $v: field counts differ between records: $(sort nf | uniq -c | tr '\n' ' ')"
done
for v in $views; do
	[ -f "$v.csv" ] || fail "view $v was not listed"
done

# The default CSV view is threads.
"$CDT" report --csv >default.csv 2>err || fail "--csv failed: $(cat err)"
cmp -s default.csv threads.csv || fail "--csv without --view: expected the threads view, found: $(head -n 2 default.csv)"

# Text: every section, within 80 columns (stdout is not a terminal), and
# within --width.
"$CDT" report >text 2>err || fail "text report failed: $(cat err)"
for title in Threads 'Memory samples by function' 'Memory samples by data object' 'Watchpoint traps'; do
	grep -q "^$title" text || fail "text report lacks the section '$title'"
done
for w in 80 100; do
	if [ $w -eq 80 ]; then
		"$CDT" report >text 2>err
	else
		"$CDT" report --width $w >text 2>err
	fi
	awk -v w=$w 'length($0) > w { print length($0) ": " $0; bad = 1 } END { exit bad }' text >long ||
		fail "text report: $(wc -l <long) lines are wider than $w columns, e.g. $(head -n 2 long)"
done

# Bad usage and missing input: 125, a message, nothing on stdout.
for args in "--view no_such_view" "--no-such-option" "--width 10" "--top x" "-i"; do
	# shellcheck disable=SC2086
	"$CDT" report $args >out 2>err
	rc=$?
	[ "$rc" -eq 125 ] || fail "cdt report $args: expected exit 125, got $rc"
	[ -s err ] || fail "cdt report $args: expected a message on stderr"
	[ ! -s out ] || fail "cdt report $args: expected nothing on stdout, found: $(head -n 3 out)"
done
rm cdt.data
"$CDT" report >out 2>err
rc=$?
[ "$rc" -eq 125 ] || fail "cdt report without cdt.data: expected exit 125, got $rc"
grep -q 'cdt.data' err || fail "cdt report without cdt.data: the message must name cdt.data: $(cat err)"
"$CDT" report --help >out 2>err || fail "cdt report --help: expected exit 0"
grep -q -e '--view' out || fail "cdt report --help must list --view"
exit 0
