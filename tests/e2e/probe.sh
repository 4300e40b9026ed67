#!/bin/sh
# cdt probe: every documented key, in text and CSV; the debug-register
# check passes, and the trap check too, or fails only as a machine that
# never fires breakpoints does, and then fvar and comm say so when they run;
# the sample source matches the PMU the host reports; a source line for
# each tool `cdt --help` lists, and for no other; what a sample costs
# (the sample clock's calibration, cdt.1): a tick of 1 to 10 ms, and a
# POSIX-timer sample that costs more than nothing and less than a tick.
set -u

. "$(dirname "$0")/lib/common.sh"

# The tools: every command of `cdt --help` but report and probe.
tools=$("$CDT" --help | awk '/^commands:/ { on = 1; next } on && NF == 0 { exit }
	on && $1 != "report" && $1 != "probe" { print $1 }')
[ -n "$tools" ] || fail "cdt --help lists no tool"
keys="version kernel perf_event_paranoid max_sample_rate cpu hypervisor libpfm4
libpfm4_pmu hw_pmu mem_events mem_events_open debug_registers watchpoint_trap
int1_trap sigtrap tick_ms perf_sample_us posix_sample_us perf_switch_us cpus cores sockets numa_nodes"
for t in $tools; do
	keys="$keys source.$t"
done

"$CDT" probe >"$tmp/text" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "cdt probe: expected exit 0, got $rc; stderr: $(cat "$tmp/err")"

"$CDT" probe --csv >"$tmp/csv" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "cdt probe --csv: expected exit 0, got $rc; stderr: $(cat "$tmp/err")"

# Text: "key:" then spaces then the value; detail follows in parentheses.
text_value() {
	awk -v k="$1" 'index($0, k ":") == 1 { sub(/^[^:]*:[ ]+/, ""); sub(/  \(.*$/, ""); print; exit }' "$tmp/text"
}

# CSV (RFC 4180): count fields of every record, honouring quotes; print
# "key<TAB>value" for each record after the header.
awk '
BEGIN { bad = 0 }
{
	sub(/\r$/, "")
	n = 0; f = ""; q = 0; key = ""; val = ""
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (q) {
			if (c == "\"") {
				if (substr($0, i + 1, 1) == "\"") { f = f c; i++ } else q = 0
			} else f = f c
		} else if (c == "\"") q = 1
		else if (c == ",") { n++; if (n == 1) key = f; if (n == 2) val = f; f = "" }
		else f = f c
	}
	n++
	if (q) { print "unterminated quote on line " NR > "/dev/stderr"; bad = 1 }
	if (n != 3) { print "line " NR " has " n " fields: " $0 > "/dev/stderr"; bad = 1 }
	if (NR > 1) print key "\t" val
}
END { exit bad }' "$tmp/csv" >"$tmp/kv" || fail "CSV rows must have exactly 3 fields (key,value,detail)"

head -n 1 "$tmp/csv" | tr -d '\r' | grep -qx 'key,value,detail' ||
	fail "CSV header: expected 'key,value,detail', found '$(head -n 1 "$tmp/csv")'"
# Records end in LF (not CRLF) so awk and cut see clean last fields.
[ "$(head -n 1 "$tmp/csv" | od -An -c | tr -d ' \n' | tail -c 3)" = 'l\n' ] ||
	fail "CSV records must end in a bare LF"

csv_value() {
	awk -F '\t' -v k="$1" '$1 == k { print $2; exit }' "$tmp/kv"
}

for k in $keys; do
	grep -q "^$k:" "$tmp/text" || fail "text output lacks key '$k'"
	awk -F '\t' -v k="$k" '$1 == k { f = 1 } END { exit !f }' "$tmp/kv" ||
		fail "CSV output lacks key '$k'"
	[ "$(text_value "$k")" = "$(csv_value "$k")" ] ||
		fail "key '$k': text says '$(text_value "$k")', CSV says '$(csv_value "$k")'"
done
nkeys=$(echo $keys | wc -w)
[ "$(wc -l <"$tmp/kv")" -eq "$nkeys" ] ||
	fail "CSV: expected $nkeys records, found $(wc -l <"$tmp/kv")"

tick=$(csv_value tick_ms)
sig=$(csv_value posix_sample_us)
awk -v t="$tick" -v s="$sig" 'BEGIN { exit !(t >= 1 && t <= 10 && s > 0 && s < t * 1000) }' ||
	fail "sample clock: tick_ms $tick, posix_sample_us $sig"

# Debug registers: x86 has four; other architectures report what they have.
dr=$(csv_value debug_registers)
case $(uname -m) in
x86_64 | i?86) [ "$dr" = 4 ] || fail "debug_registers: expected 4 on x86, found '$dr'" ;;
*) [ "$dr" -ge 1 ] 2>/dev/null || fail "debug_registers: expected >= 1, found '$dr'" ;;
esac

# int1_trap: after (Intel KVM, bare metal) or at (AMD KVM), as this probe
# found by executing one; the agent tells a program's int1 from its own
# lost traps by it.
case $(csv_value int1_trap) in
after | at) echo "$me: int1_trap $(csv_value int1_trap)" ;;
*) fail "int1_trap: expected after or at, found '$(csv_value int1_trap)'" ;;
esac

# watchpoint_trap: ok, or fail only as a machine that opens breakpoints
# but never fires them does (a bhyve guest): the registers counted above,
# no SIGTRAP at all.  Then the tools that need traps must say so when
# they run, and their profiles too.
wt=$(csv_value watchpoint_trap)
case $wt in
ok) ;;
fail)
	grep -q '^watchpoint_trap: *fail  (expected 1 SIGTRAP after the write, got 0)$' "$tmp/text" ||
		fail "watchpoint_trap: fail, but not as debug registers that open and never fire: $(grep '^watchpoint_trap' "$tmp/text")"
	[ "$dr" -ge 1 ] 2>/dev/null || fail "watchpoint_trap: fail with no debug register counted"
	need_workloads exitwith comm_none
	lost='debug-register traps are not delivered on this machine (.*breakpoints open but never fire)'
	"$CDT" fvar -o "$tmp/f.data" "$W/exitwith" 3 >/dev/null 2>"$tmp/ferr"
	rc=$?
	[ "$rc" -eq 3 ] || fail "cdt fvar without traps: expected the program's status 3, got $rc: $(cat "$tmp/ferr")"
	grep -q "^cdt fvar: $lost: fvar cannot time instances" "$tmp/ferr" ||
		fail "cdt fvar without traps does not say so: $(cat "$tmp/ferr")"
	"$CDT" report -i "$tmp/f.data" --csv --view findings >"$tmp/ffind" 2>&1 ||
		fail "cdt report of fvar: $(cat "$tmp/ffind")"
	grep -q 'no function instance was measured (.*): debug-register traps were not delivered' "$tmp/ffind" ||
		fail "fvar's findings do not give the reason: $(cat "$tmp/ffind")"
	"$CDT" report -i "$tmp/f.data" --csv --view summary >"$tmp/summary" || fail "cdt report of fvar: summary"
	kv debug_traps | grep -q '^not delivered (' ||
		fail "fvar's profile does not record debug_traps: $(kv debug_traps)"
	"$CDT" comm -o "$tmp/c.data" "$W/comm_none" >/dev/null 2>"$tmp/cerr" ||
		fail "cdt comm without traps: exit $?: $(cat "$tmp/cerr")"
	grep -q "^cdt comm: $lost: comm detects on samples only, as with --wp 0" "$tmp/cerr" ||
		fail "cdt comm without traps does not say so: $(cat "$tmp/cerr")"
	"$CDT" report -i "$tmp/c.data" --csv --view summary >"$tmp/summary" || fail "cdt report of comm: summary"
	[ "$(kv wp)" = 0 ] || fail "comm without traps: the profile says wp $(kv wp), not 0"
	kv debug_traps | grep -q '^not delivered (' ||
		fail "comm's profile does not record debug_traps: $(kv debug_traps)"
	# What needs no trap says nothing of them.
	"$CDT" comm --wp 0 -o "$tmp/c0.data" "$W/comm_none" >/dev/null 2>"$tmp/cerr" ||
		fail "cdt comm --wp 0: exit $?: $(cat "$tmp/cerr")"
	! grep -q 'debug-register' "$tmp/cerr" || fail "cdt comm --wp 0 speaks of traps: $(cat "$tmp/cerr")"
	echo "$me: watchpoint_trap fail (no trap delivered): fvar and comm say so, in the run and the profile"
	;;
*) fail "watchpoint_trap: expected ok or fail, found '$wt'" ;;
esac
[ "$(csv_value sigtrap)" = yes ] || fail "sigtrap: expected yes, found '$(csv_value sigtrap)'"

[ "$(csv_value cpus)" -eq "$(getconf _NPROCESSORS_ONLN)" ] ||
	fail "cpus: expected $(getconf _NPROCESSORS_ONLN), found '$(csv_value cpus)'"

# Without a hardware PMU every tool must fall back to soft and say why.
hw=$(csv_value hw_pmu)
case $hw in
no)
	for t in $tools; do
		[ "$(csv_value "source.$t")" = soft ] ||
			fail "source.$t: expected soft without a PMU, found '$(csv_value "source.$t")'"
	done
	grep -q '^source.record: *soft  (no hardware PMU' "$tmp/text" ||
		fail "source.record must give the no-PMU reason: $(grep '^source.record' "$tmp/text")"
	[ "$(csv_value mem_events_open)" = no ] || fail "mem_events_open: expected no without a PMU"
	;;
yes)
	src=$(csv_value source.record)
	[ "$src" = pmu ] || [ "$src" = soft ] || fail "source.record: expected pmu or soft, found '$src'"
	;;
*) fail "hw_pmu: expected yes or no, found '$hw'" ;;
esac

# No source line for a tool that does not exist.
extra=$(grep '^source\.' "$tmp/text" | cut -d: -f1 | sed 's/^source\.//' |
	while read -r t; do echo "$tools" | grep -qx "$t" || echo "$t"; done)
[ -z "$extra" ] || fail "probe lists tools that cdt does not have: $extra"

# Bad usage: exit 125, a message on stderr, nothing on stdout.
"$CDT" probe --no-such-option >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 125 ] || fail "cdt probe --no-such-option: expected exit 125, got $rc"
[ -s "$tmp/err" ] || fail "cdt probe --no-such-option: expected a message on stderr"
[ ! -s "$tmp/out" ] || fail "cdt probe --no-such-option: expected no stdout"

"$CDT" probe --help >"$tmp/out" 2>&1 || fail "cdt probe --help: expected exit 0"
grep -q -- '--csv' "$tmp/out" || fail "cdt probe --help must list --csv"
exit 0
