#!/bin/sh
# Separate debug files with compressed sections (lib/core/debugcache.c):
# a program built here with -gz=zlib, its debug information moved to a
# file of its own found by .gnu_debuglink (as distributions ship them),
# the program stripped.  The first cdt record finds the lines through the
# compressed file and keeps a plain copy in the cache, named by the build
# ID, with no compressed section left; the second reads the copy and
# finds the same lines.  A copy that is not an ELF file (garbage under
# the build ID's name) is made again.  Then the other places it is
# looked for, and what is not loaded when no debuginfod server is named.
set -u
. "$(dirname "$0")/lib/common.sh"
CC=${CC:-cc}
command -v "$CC" >/dev/null && command -v objcopy >/dev/null && command -v readelf >/dev/null ||
	{ echo "skip: needs $CC, objcopy and readelf"; exit 77; }
export XDG_CACHE_HOME="$tmp/cache"

cat >"$tmp/hot.c" <<'EOF'
#include <stdio.h>
static volatile unsigned long a[4096];
int main(void)
{
	unsigned long s = 0;
	for (long r = 0; r < 60000; r++)
		for (int i = 0; i < 4096; i++)
			s += a[i]++; /* HOT */
	printf("%lu\n", s);
	return 0;
}
EOF
"$CC" -O1 -g -gz=zlib -o "$tmp/hot" "$tmp/hot.c" 2>"$tmp/err" ||
	{ echo "skip: $CC cannot compress debug sections (-gz=zlib): $(head -n 2 "$tmp/err")"; exit 77; }
objcopy --only-keep-debug "$tmp/hot" "$tmp/hot.debug" &&
	objcopy --strip-debug --add-gnu-debuglink="$tmp/hot.debug" "$tmp/hot" ||
	fail "objcopy failed"
readelf -SW "$tmp/hot.debug" 2>/dev/null | grep -q '\.debug_info .* C ' ||
	fail "the test's debug file is not compressed: $(readelf -SW "$tmp/hot.debug" | grep debug_info)"
line=$(grep -n 'HOT' "$tmp/hot.c" | cut -d: -f1)
bid=$(readelf -n "$tmp/hot" 2>/dev/null | sed -n 's/.*Build ID: *//p')
[ -n "$bid" ] || fail "the program has no build ID"
copy=$XDG_CACHE_HOME/cdt/debug/$bid.debug

# lines RUN [PROG]: the functions view's lines of hot.c, PROG (in $tmp,
# hot by default) run.
lines() {
	# Symbols kept between runs (symcache.c) would spare the debug file.
	rm -rf "$XDG_CACHE_HOME/cdt/sym"
	"$CDT" record -q -o "$tmp/$1.data" "$tmp/${2:-hot}" >/dev/null 2>"$tmp/err" ||
		fail "$1: cdt record: $(cat "$tmp/err")"
	"$CDT" report -i "$tmp/$1.data" --csv --view functions >"$tmp/$1.csv" ||
		fail "$1: report failed"
	grep -c "hot.c:$line" "$tmp/$1.csv"
}

n=$(lines first)
[ "$n" -ge 1 ] || fail "first run: no sample at hot.c:$line: $(head -n 5 "$tmp/first.csv")"
[ -s "$copy" ] || fail "no plain copy at $copy: $(ls -R "$XDG_CACHE_HOME")"
readelf -SW "$copy" 2>/dev/null | grep -q '\.debug_info' || fail "the copy has no .debug_info"
! readelf -SW "$copy" 2>/dev/null | grep -q '\.debug_[a-z_]* .* C ' ||
	fail "the copy still has compressed sections: $(readelf -SW "$copy" | grep debug)"
n=$(lines second)
[ "$n" -ge 1 ] || fail "second run (from the copy): no sample at hot.c:$line: $(head -n 5 "$tmp/second.csv")"

# A broken copy is made again.
echo garbage >"$copy"
n=$(lines third)
[ "$n" -ge 1 ] || fail "third run (a broken copy): no sample at hot.c:$line"
readelf -SW "$copy" 2>/dev/null | grep -q '\.debug_info' || fail "the broken copy was not made again"

# Found in .debug beside the program too (lib/core/debugfind.c looks
# before libdw's search does), with nothing in the cache.
mkdir -p "$tmp/sub/.debug" && cp "$tmp/hot" "$tmp/sub/hot" && cp "$tmp/hot.debug" "$tmp/sub/.debug/" ||
	fail "cannot lay out $tmp/sub"
rm -rf "$XDG_CACHE_HOME"
n=$(lines sub sub/hot)
[ "$n" -ge 1 ] || fail "debug file in .debug: no sample at hot.c:$line: $(head -n 5 "$tmp/sub.csv")"

# Where DEBUGINFOD_URLS names no server, a module without debug
# information does not make libdw load its debuginfod client (curl,
# GnuTLS, Kerberos: 22 ms of each run); where it names one, it does
# (else this libdw has no client, and there is nothing to test).  The
# build ID is hot's, so no cache: it holds hot's debug file.
cp "$tmp/hot" "$tmp/bare" && objcopy --strip-all --remove-section=.gnu_debuglink "$tmp/bare" ||
	fail "cannot strip $tmp/bare"
loads() {
	rm -rf "$tmp/none" # nothing kept: symbols from the cache need no search
	env "$@" LD_DEBUG=libs XDG_CACHE_HOME="$tmp/none" DEBUGINFOD_CACHE_PATH="$tmp/dcache" \
		DEBUGINFOD_TIMEOUT=2 \
		"$CDT" record -q -o "$tmp/bare.data" "$tmp/bare" >/dev/null 2>"$tmp/ld" ||
		fail "cdt record bare: $(grep -v '^ *[0-9]*:' "$tmp/ld" | head -n 5)"
	grep -q 'libdebuginfod' "$tmp/ld"
}
if loads DEBUGINFOD_URLS=http://127.0.0.1:9/; then
	! loads -u DEBUGINFOD_URLS || fail "libdebuginfod loaded with no server named"
	! loads DEBUGINFOD_URLS= || fail "libdebuginfod loaded with DEBUGINFOD_URLS empty"
else
	echo "libdw here loads no debuginfod client: that check is moot"
fi
echo "lines found through the compressed file, the plain copy ($copy) and .debug"
exit 0
