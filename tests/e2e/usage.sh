#!/bin/sh
# Usage errors: each bad option or argument gives exactly one line on
# stderr that names it (and the value given), nothing on stdout, exit 125
# (cdt(1), cdt-report(1)), and a run command starts no program.  Among
# them: --width abc and --wp -1 (once two messages each), cdt report
# extra_arg (once "unknown option"), --watch '' and --watch SYM:w:0 (once
# accepted), -F 0 and -c 0 (once no message at all).
set -u

. "$(dirname "$0")/lib/common.sh"

need_workloads watchme
cd "$tmp" || exit 1

# bad WANT ARGS...: cdt ARGS must fail as a usage error whose one line
# holds WANT (a fixed string).
bad() {
	want=$1
	shift
	rm -f ran
	"$CDT" "$@" >out 2>err
	rc=$?
	[ "$rc" -eq 125 ] || fail "cdt $*: expected exit 125, got $rc; stderr: $(cat err)"
	[ "$(wc -l <err)" -eq 1 ] || fail "cdt $*: expected exactly one line on stderr, found $(wc -l <err): $(cat err)"
	grep -qF -- "$want" err || fail "cdt $*: the message must say '$want': $(cat err)"
	[ ! -s out ] || fail "cdt $*: expected nothing on stdout, found: $(head -c 300 out)"
	[ ! -e ran ] || fail "cdt $*: the program ran"
}

# report: the profile is never read, so none is needed.
bad "--width takes 40 to 10000, or full; not 'abc'" report --width abc
bad "--width takes 40 to 10000, or full; not '10'" report --width 10
bad "--width takes 40 to 10000, or full; not ''" report --width=
bad "--width needs a value" report --width
bad "--top takes a number of rows (0: all), not 'x'" report --top x
bad "--top takes a number of rows (0: all), not '-1'" report --top -1
bad "unexpected argument 'extra_arg'" report extra_arg
bad "unexpected argument '-'" report -
bad "unknown option '--no-such-option'" report --no-such-option
bad "-i needs a value" report -i

# Run commands: touch ran is the program; it must never start.
bad "--wp takes 0 to 4 (x86 has 4 debug registers), not '-1'" comm --wp -1 touch ran
bad "--wp takes 0 to 4 (x86 has 4 debug registers), not '5'" comm --wp 5 touch ran
bad "--wp takes 0 to 4 (x86 has 4 debug registers), not 'x'" comm --wp x touch ran
bad "--bb-size takes 1 to" comm --bb-size 0 touch ran
bad "--bb-size takes 1 to" comm --bb-size abc touch ran
bad "--freq takes a number from 1, not '0'" comm -F 0 touch ran
bad "--freq takes a number from 1, not '0'" record --freq=0 touch ran
bad "--freq takes a number from 1, not '-5'" record -F -5 touch ran
bad "--freq takes a number from 1, not '1x'" record -F 1x touch ran
bad "--period takes a number from 1, not '0'" comm -c 0 touch ran
bad "--period takes a number from 1, not '0'" record --period 0 touch ran
bad "--buffer-size takes a number from 1, not '0'" record --buffer-size 0 touch ran
bad "--buffer-size must be a power of two" record --buffer-size 3M touch ran
bad "--source takes auto, pmu or soft, not 'x'" record --source x touch ran
bad "--max-overhead takes a percentage from 0 (none) to 100, not '101'" comm --max-overhead 101 touch ran
bad "--max-overhead takes a percentage from 0 (none) to 100, not '5%'" record --max-overhead 5% touch ran
bad "--clock takes auto, perf or posix, not 'tick'" numa --clock tick touch ran
bad "option -o needs a value" record -o
bad "unknown option '--nope' (cdt comm --help lists them)" comm --nope touch ran
bad "no program to run" record

# --watch: only what a debug register takes (lengths 1, 2, 4 and 8).
w=$W/watchme
bad "--watch '': no symbol or address" record --watch '' "$w" 1 1
bad "--watch ':w': no symbol or address" record --watch :w "$w" 1 1
bad "the length must be 1, 2, 4 or 8 (debug registers), not '0'" \
	record --watch watched_counter:w:0 "$w" 1 1
bad "the length must be 1, 2, 4 or 8 (debug registers), not '3'" \
	record --watch watched_counter:w:3 "$w" 1 1
bad "the length must be 1, 2, 4 or 8 (debug registers), not ''" \
	record --watch watched_counter:w: "$w" 1 1
bad "the length must be 1, 2, 4 or 8 (debug registers), not '16'" \
	record --watch 0x1000:w:16 "$w" 1 1
bad "the type must be w, rw or x, not 'q'" record --watch watched_counter:q "$w" 1 1
bad "bad address '0x'" record --watch 0x:w "$w" 1 1
bad "bad address '0xzz'" record --watch 0xzz "$w" 1 1
bad "no symbol 'no_such_symbol_xyz'" record --watch no_such_symbol_xyz "$w" 1 1
bad "0x1001 is not 8-byte aligned" record --watch 0x1001:w:8 "$w" 1 1
bad "--watch needs a value" record --watch

# What is right still runs: 0 where it means something, a k suffix.
"$CDT" comm -q --wp 0 -F 1k -o c.data "$w" 1 1 >out 2>err ||
	fail "cdt comm --wp 0 -F 1k: expected to run: $(cat err)"
"$CDT" record -q --watch watched_counter:w:8 -o r.data "$w" 1 1 >out 2>err ||
	fail "cdt record --watch watched_counter:w:8: expected to run: $(cat err)"
"$CDT" report -i r.data --top 0 --width 40 >out 2>err ||
	fail "cdt report --top 0 --width 40: expected to work: $(cat err)"
exit 0
