#!/bin/sh
# Code in a stripped library (no symbols, no lines) is shown as
# module+offset, the offset into the library's file, which objdump and
# addr2line take and which ASLR does not move: every offset given for
# libstripped.so falls inside its executable segment.
set -u
. "$(dirname "$0")/lib/common.sh"
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "skip: no C compiler ($cc)"; exit 77; }
command -v readelf >/dev/null || { echo "skip: no readelf (binutils)"; exit 77; }

# The work is in a static function: no symbol of any table names it.
cat >"$tmp/lib.c" <<'C'
#include <stdint.h>
#include <time.h>
static volatile uint64_t buf[4096];
static __attribute__((noinline)) void spin(double secs)
{
	struct timespec ts;
	double t0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	t0 = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	do {
		for (unsigned i = 0; i < 100000; i++)
			buf[(i * 7) & 4095] += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 - t0 < secs);
}
void lib_work(double secs)
{
	spin(secs);
}
C
printf 'void lib_work(double);\nint main(void) { lib_work(0.3); return 0; }\n' >"$tmp/main.c"
"$cc" -O2 -shared -fPIC -o "$tmp/libstripped.so" "$tmp/lib.c" &&
	strip --strip-all "$tmp/libstripped.so" &&
	"$cc" -O2 -o "$tmp/main" "$tmp/main.c" -L"$tmp" -lstripped -Wl,-rpath,"$tmp" ||
	fail "cannot build the stripped library and its program"

"$CDT" record -q -o "$tmp/s.data" "$tmp/main" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
"$CDT" report -i "$tmp/s.data" --csv --top 0 --view functions >"$tmp/f.csv" || fail "functions view failed"
! grep -q 'libstripped\.so@0x' "$tmp/f.csv" || fail "runtime addresses shown: $(grep libstripped "$tmp/f.csv")"
grep -o 'libstripped\.so+0x[0-9a-f]*' "$tmp/f.csv" | sed 's/.*+//' | sort -u >"$tmp/offs"
[ -s "$tmp/offs" ] || fail "no code of libstripped.so as module+offset: $(head -n 5 "$tmp/f.csv")"
# The executable segment: .text, and the PLT stubs it calls through.
set -- $(readelf -l -W "$tmp/libstripped.so" | awk '$1 == "LOAD" && / R E / { print $2, $5 }')
[ $# -eq 2 ] || fail "no executable segment in libstripped.so"
lo=$(($1)) hi=$(($1 + $2))
while read -r off; do
	[ $((off)) -ge $lo ] && [ $((off)) -lt $hi ] || fail "offset $off is outside the code ($1 +$2)"
done <"$tmp/offs"
echo "$(wc -l <"$tmp/offs") offsets of libstripped.so, all in its code"
