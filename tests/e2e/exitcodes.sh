#!/bin/sh
# Exit statuses, as env(1) and timeout(1) give them: the program's own
# code; 128+N when signal N killed it (and the profile is still written
# and says so); 126 when it cannot be executed; 127 when it is not found;
# 125 when cdt itself fails or is misused.
set -u

. "$(dirname "$0")/lib/common.sh"

# expect STATUS DESCRIPTION CMD...: run CMD, check its exit status.
expect() {
	want=$1 what=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ "$rc" -eq "$want" ] ||
		fail "$what: expected exit $want, got $rc; stderr: $(head -c 2000 "$tmp/err")"
	if grep -q -e 'AddressSanitizer' -e 'runtime error:' "$tmp/err"; then
		fail "$what: sanitizer report: $(cat "$tmp/err")"
	fi
}

# expect_profile STATUS ENDED: the profile of the last run is readable and
# records the exit status and how the program ended.
expect_profile() {
	"$CDT" report -i "$tmp/p.data" --csv --view summary >"$tmp/summary" 2>"$tmp/rerr" ||
		fail "profile of '$what' not readable: $(cat "$tmp/rerr")"
	[ "$(kv exit_status)" = "$1" ] ||
		fail "profile of '$what': exit_status expected $1, found '$(kv exit_status)'"
	[ "$(kv ended)" = "$2" ] ||
		fail "profile of '$what': ended expected '$2', found '$(kv ended)'"
	[ "$(kv memory_samples)" -ge 1 ] 2>/dev/null ||
		fail "profile of '$what': expected memory samples, found '$(kv memory_samples)'"
}

need_workloads exitwith

for code in 0 1 42 255; do
	rm -f "$tmp/p.data"
	expect $code "exitwith $code" "$CDT" record -o "$tmp/p.data" "$W/exitwith" $code
	expect_profile $code normally
done

# Killed by a signal: 128+N, a message, and the profile of what ran.
for sig in 15 9 6; do
	rm -f "$tmp/p.data"
	expect $((128 + sig)) "exitwith --signal $sig" \
		"$CDT" record -o "$tmp/p.data" "$W/exitwith" --signal $sig
	grep -q "killed by signal $sig" "$tmp/err" ||
		fail "exitwith --signal $sig: stderr must say 'killed by signal $sig'; found: $(cat "$tmp/err")"
	expect_profile $((128 + sig)) "killed by a signal"
done
rm -f "$tmp/p.data"
expect 139 "exitwith --segv" "$CDT" record -o "$tmp/p.data" "$W/exitwith" --segv
grep -q "killed by signal 11" "$tmp/err" ||
	fail "exitwith --segv: stderr must say 'killed by signal 11'; found: $(cat "$tmp/err")"
expect_profile 139 "killed by a signal"

# Cannot execute: 126, and nothing ran so no profile.
printf '#!/bin/sh\nexit 0\n' >"$tmp/noexec"
chmod 644 "$tmp/noexec"
expect 126 "a file without execute permission" "$CDT" record -o "$tmp/x.data" "$tmp/noexec"
expect 126 "a directory" "$CDT" record -o "$tmp/x.data" "$tmp"
printf 'not a program\n' >"$tmp/garbage"
chmod 755 "$tmp/garbage"
expect 126 "an executable file of no known format" "$CDT" record -o "$tmp/x.data" "$tmp/garbage"
[ ! -e "$tmp/x.data" ] || fail "a program that could not be executed must leave no profile"

# Not found: 127, by path and through PATH.
expect 127 "a missing path" "$CDT" record -o "$tmp/x.data" "$tmp/no-such-program"
expect 127 "a name not in PATH" "$CDT" record -o "$tmp/x.data" cdt-e2e-no-such-program
grep -q "no-such-program" "$tmp/err" || fail "127: the message must name the program: $(cat "$tmp/err")"
[ ! -e "$tmp/x.data" ] || fail "a missing program must leave no profile"

# A script runs through its interpreter, with its own status.
printf '#!/bin/sh\nexit 7\n' >"$tmp/script"
chmod 755 "$tmp/script"
expect 7 "a shell script exiting 7" "$CDT" record -o "$tmp/x.data" "$tmp/script"

# cdt's own failures and usage: 125 with a message; --version and --help 0.
expect 125 "cdt record without a program" "$CDT" record
[ -s "$tmp/err" ] || fail "cdt record without a program: expected a message on stderr"
expect 125 "cdt record --no-such-option" "$CDT" record --no-such-option "$W/exitwith" 0
grep -q -e '--no-such-option' "$tmp/err" || fail "unknown option: the message must name it: $(cat "$tmp/err")"
expect 125 "cdt record -o without a file" "$CDT" record -o
expect 125 "cdt record --freq 0" "$CDT" record --freq 0 "$W/exitwith" 0
expect 125 "cdt nosuchcmd" "$CDT" nosuchcmd
grep -q nosuchcmd "$tmp/err" || fail "cdt nosuchcmd: the message must name the command"
expect 125 "cdt without arguments" "$CDT"
expect 0 "cdt --version" "$CDT" --version
grep -q '^cdt [0-9]' "$tmp/out" || fail "cdt --version: expected 'cdt VERSION' on stdout, found '$(cat "$tmp/out")'"
expect 0 "cdt --help" "$CDT" --help
expect 0 "cdt record --help" "$CDT" record --help
grep -q -e '--output' "$tmp/out" || fail "cdt record --help must list --output"
expect 125 "cdt report of a missing file" "$CDT" report -i "$tmp/none.data"
exit 0
