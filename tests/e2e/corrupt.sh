#!/bin/sh
# cdt report on damaged input: a truncated profile (cut at many points),
# random bytes, an empty file, a directory and a missing file must each
# give exit 125 and a message naming the file, never a crash or a
# sanitizer report (CDT is the ASan/UBSan build under make check).
# Profiles with bytes flipped may happen to stay readable, but must never
# crash the reader.
set -u

. "$(dirname "$0")/lib/common.sh"

# report FILE: run every form of report on FILE; rc in $rc (the worst).
report() {
	rc=0
	for args in "" "--csv --view summary" "--csv --top 0 --view samples" "--view traps"; do
		# shellcheck disable=SC2086
		"$CDT" report -i "$1" $args >"$tmp/out" 2>"$tmp/err"
		r=$?
		if grep -q -e 'AddressSanitizer' -e 'runtime error:' -e 'LeakSanitizer' "$tmp/err"; then
			fail "cdt report $args on $2: sanitizer report: $(head -c 3000 "$tmp/err")"
		fi
		[ $r -lt 128 ] || fail "cdt report $args on $2: crashed (exit $r): $(head -c 2000 "$tmp/err")"
		[ $r -gt $rc ] && rc=$r
	done
}

# refused FILE WHAT: the file must be refused with 125 and a message.
refused() {
	report "$1" "$2"
	[ "$rc" -eq 125 ] || fail "$2: expected exit 125, got $rc; stderr: $(cat "$tmp/err")"
	grep -qF "$1" "$tmp/err" || fail "$2: the message must name the file; found: $(cat "$tmp/err")"
}

need_workloads watchme
"$CDT" record -q -o "$tmp/good.data" --watch watched_counter:w "$W/watchme" 2 200 \
	>/dev/null 2>"$tmp/err" || fail "cannot record a profile to damage: $(cat "$tmp/err")"
report "$tmp/good.data" "the intact profile"
[ "$rc" -eq 0 ] || fail "the intact profile: expected exit 0, got $rc: $(cat "$tmp/err")"
size=$(wc -c <"$tmp/good.data")
[ "$size" -ge 64 ] || fail "the intact profile is implausibly small ($size bytes)"

: >"$tmp/empty"
refused "$tmp/empty" "an empty file"
refused "$tmp/missing.data" "a missing file"
mkdir "$tmp/dir.data"
refused "$tmp/dir.data" "a directory"
head -c 8192 /dev/urandom >"$tmp/random"
refused "$tmp/random" "8 KiB of random bytes"
printf 'CDTDATA\n' >"$tmp/magic"
refused "$tmp/magic" "the magic alone"
{ printf 'CDTDATA\n'; head -c 4096 /dev/urandom; } >"$tmp/magic-random"
refused "$tmp/magic-random" "the magic followed by random bytes"

# Truncated: 1 byte short, and at 24 points spread over the file.
for cut in $((size - 1)) $(awk -v s="$size" 'BEGIN { for (i = 0; i < 24; i++) print int(s * i / 24) }'); do
	head -c "$cut" "$tmp/good.data" >"$tmp/cut"
	refused "$tmp/cut" "the profile cut to $cut of $size bytes"
done

# Flipped bytes: readable or refused, but never a crash.
i=0
for off in $(awk -v s="$size" 'BEGIN { srand(7); for (i = 0; i < 24; i++) print int(rand() * s) }'); do
	i=$((i + 1))
	cp "$tmp/good.data" "$tmp/flip"
	printf '\377' | dd of="$tmp/flip" bs=1 seek="$off" conv=notrunc 2>/dev/null ||
		fail "cannot damage the copy"
	report "$tmp/flip" "the profile with byte $off set to 0xff"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 125 ] ||
		fail "the profile with byte $off set to 0xff: expected exit 0 or 125, got $rc"
done
exit 0
