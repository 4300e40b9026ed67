#!/bin/sh
# cdt report --json, read by python3's json module (strict: no NaN or
# Infinity, no raw control characters, valid UTF-8):
# - a comm profile (comm_padding, 4 threads): every view of --json holds
#   exactly the CSV of the same view (columns in order, rows, cells), with
#   numeric columns as JSON numbers and empty cells null; "meta" agrees
#   with the summary; --view, --top and --sort act as on CSV;
# - a record profile whose command line holds a quote, a newline, an ESC
#   and a byte that is not UTF-8: escaped, and the byte read back as
#   U+00FF (cdt-report(1));
# - merged profiles: thread labels rank.thread stay strings ("1.0");
# - --json with --csv, --tui, an unknown view or sort column: exit 125,
#   one line on stderr, nothing on stdout.
# Also the default --csv view (no --view) of each tool: the one the help
# and cdt-report(1) name (comm: findings; record: threads, see report.sh).
set -u

. "$(dirname "$0")/lib/common.sh"

command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 77; }
need_workloads comm_padding exitwith
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$tmp" || exit 1

# report OUT ARGS...: cdt report ARGS > OUT; it must succeed, sanitizers quiet.
report() {
	out=$1
	shift
	"$CDT" report "$@" >"$out" 2>err || fail "cdt report $*: failed: $(cat err)"
	if grep -q -e 'AddressSanitizer' -e 'runtime error:' err; then
		fail "cdt report $*: sanitizer report: $(cat err)"
	fi
}

# same JSON VIEW CSV: view VIEW of JSON holds the cells of CSV.  Prints
# how many cells were numbers.
same() {
	python3 - "$@" <<'EOF'
import csv, io, json, re, sys

jf, view, cf = sys.argv[1:4]
def reject(c):
    raise ValueError("not JSON: " + c)
def text(path):
    # cdt's rule for bytes that are not UTF-8: the code point of the byte.
    s = open(path, 'rb').read().decode('utf-8', 'surrogateescape')
    return re.sub('[\udc80-\udcff]', lambda m: chr(ord(m.group()) - 0xdc00), s)
doc = json.loads(open(jf, encoding='utf-8').read(), parse_constant=reject)
v = doc['views'][view]
rows = list(csv.reader(io.StringIO(text(cf), newline='')))
def bad(msg):
    sys.exit(f"{view}: {msg}")
if v['columns'] != rows[0]:
    bad(f"columns {v['columns']}, CSV header {rows[0]}")
if len(v['rows']) != len(rows) - 1:
    bad(f"{len(v['rows'])} rows, CSV {len(rows) - 1}")
nums = 0
for i, (j, c) in enumerate(zip(v['rows'], rows[1:])):
    if list(j) != rows[0]:
        bad(f"row {i}: keys {list(j)}")
    for k, cell in zip(rows[0], c):
        x = j[k]
        if cell == '':
            ok = x is None
        elif isinstance(x, bool) or x is None:
            ok = False
        elif isinstance(x, (int, float)):
            nums += 1
            ok = re.fullmatch(r'-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?', cell) \
                and (int(cell) == x if isinstance(x, int) else float(cell) == x)
        else:
            ok = x == cell
        if not ok:
            bad(f"row {i} column {k}: JSON {x!r}, CSV {cell!r}")
print(nums)
EOF
}

# jq_ JSON EXPR: a python expression on the document d.
jq_() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(eval(sys.argv[2]))' "$@"
}

"$CDT" comm -q -o c.data "$W/comm_padding" -n 4 -t 1 >run.out 2>run.err ||
	fail "cdt comm comm_padding failed: $(tail -n 5 run.err)"

# Every view, as CSV has it; numbers typed where the view has them.
report all.json -i c.data --json
views=$(jq_ all.json '" ".join(d["views"])')
[ "$views" = "summary findings matrix threads lines objects code processes" ] ||
	fail "--json: expected every comm view, found: $views"
[ "$(jq_ all.json 'd["version"]')" = 1 ] || fail "--json: expected version 1"
for v in $views; do
	report "$v.csv" -i c.data --csv --view "$v"
	n=$(same all.json "$v" "$v.csv" 2>&1) || fail "--json view $v differs from its CSV: $n"
	case $v in
	matrix | threads | lines | objects | code)
		[ "$n" -gt 0 ] || fail "--json view $v: expected numbers, found only strings" ;;
	summary | findings)
		[ "$n" -eq 0 ] || fail "--json view $v: its columns are text, yet $n numbers" ;;
	esac
done
# Typed: a matrix count and a thread's tid are numbers; the summary's
# values are strings (a summary mixes text and numbers).
jq_ all.json 'all(type(r["count"]) in (int, float) for r in d["views"]["matrix"]["rows"])' |
	grep -qx True || fail "--json: matrix counts must be numbers"
jq_ all.json 'all(type(r["tid"]) is int for r in d["views"]["threads"]["rows"])' |
	grep -qx True || fail "--json: thread tids must be integers"
# meta: the profile's settings, as the summary shows them.
[ "$(jq_ all.json 'd["meta"]["tool"]')" = comm ] || fail "--json: meta tool must be comm"
jq_ all.json 'all(r["value"] == d["meta"][r["key"]] for r in d["views"]["summary"]["rows"] if r["key"] in d["meta"])' |
	grep -qx True || fail "--json: meta disagrees with the summary"
for k in tool command host time source period wp; do
	jq_ all.json "'$k' in d['meta']" | grep -qx True || fail "--json: meta lacks $k"
done

# --view, --top, --sort: as on CSV.
report one.json -i c.data --json --view matrix --sort count --top 3
[ "$(jq_ one.json '" ".join(d["views"])')" = matrix ] || fail "--json --view matrix: expected that view only"
report one.csv -i c.data --csv --view matrix --sort count --top 3
same one.json matrix one.csv >/dev/null || fail "--json --sort count --top 3 differs from CSV"
[ "$(jq_ one.json 'len(d["views"]["matrix"]["rows"])')" -eq 3 ] || fail "--top 3: expected 3 rows"
[ "$(jq_ one.json 'd["views"]["matrix"]["hidden"]')" -eq $(($(wc -l <matrix.csv) - 4)) ] ||
	fail "--top 3: hidden must count the other rows"
report sorted.json -i c.data --json --sort fs
report sorted.csv -i c.data --csv --view objects --sort fs
same sorted.json objects sorted.csv >/dev/null || fail "--json --sort fs: objects differ from CSV"

# Escaping: a quote, a newline, ESC and the byte 0xff in the command line.
weird=$(printf 'q"uote\nline\033[1m\377end')
"$CDT" record -q -o r.data "$W/exitwith" "$weird" >/dev/null 2>rec.err
[ $? -eq 2 ] || fail "cdt record exitwith WEIRD: expected the program's status 2: $(cat rec.err)"
report r.json -i r.data --json
python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' r.json ||
	fail "--json: not strict JSON in valid UTF-8"
jq_ r.json 'd["meta"]["command"].endswith("q\"uote\nline\x1b[1m\xffend")' | grep -qx True ||
	fail "--json: command escaped wrong: $(jq_ r.json 'repr(d["meta"]["command"])')"
grep -q 'q\\"uote\\nline\\u001b\[1m\\u00ffend' r.json || fail "--json: expected \\\", \\n, \\u001b, \\u00ff"
report r.csv -i r.data --csv --view summary
same r.json summary r.csv >/dev/null || fail "record summary: JSON differs from CSV"

# Merged: rank.thread labels are text, not the number 1.0.
mkdir m && cp r.data m/cdt.data.1 && cp r.data m/cdt.data.0
report m.json -i 'm/cdt.data.*' --json --view threads
[ "$(jq_ m.json '[r["thread"] for r in d["views"]["threads"]["rows"]]')" = "['0.0', '1.0']" ] ||
	fail "merged --json: threads expected '0.0' and '1.0' as strings, found: $(jq_ m.json '[r["thread"] for r in d["views"]["threads"]["rows"]]')"
report m.csv -i 'm/cdt.data.*' --csv --view threads
same m.json threads m.csv >/dev/null || fail "merged threads: JSON differs from CSV"

# Usage errors: one line, 125, nothing on stdout.
for args in "--json --csv" "--json --tui" "--json --view nosuch" "--json --sort nosuch" \
	"--json --view lines --sort nosuch"; do
	# shellcheck disable=SC2086
	"$CDT" report -i c.data $args >out 2>err
	rc=$?
	[ "$rc" -eq 125 ] || fail "cdt report $args: expected exit 125, got $rc"
	[ "$(wc -l <err)" -eq 1 ] || fail "cdt report $args: expected one line on stderr, found: $(cat err)"
	[ ! -s out ] || fail "cdt report $args: expected nothing on stdout, found: $(head -c 300 out)"
done
"$CDT" report -i c.data --json --csv 2>&1 >/dev/null | grep -q -e '--json' ||
	fail "--json --csv: the message must name --json"

# The default CSV view: what the help and the man page say.
report dflt.csv -i c.data --csv
cmp -s dflt.csv findings.csv || fail "--csv without --view: expected findings, found: $(head -n 2 dflt.csv)"
"$CDT" report --help >help
tr -s ' \n' '  ' <help >help1
grep -q 'comm: findings' help1 && grep -q 'record: threads' help1 ||
	fail "cdt report --help must name the default --csv views: $(grep -A 3 -e '--csv' help)"
awk '/^\.SH OPTIONS/ { o = 1 } o && /^\.B \\-\\-csv$/ { p = 1; next } p && /^\.TP/ { exit } p' \
	"$top/man/cdt-report.1" | tr -s ' \n' '  ' >man.csv
grep -q 'findings' man.csv && grep -q 'threads' man.csv ||
	fail "cdt-report(1) --csv must name the default views: $(cat man.csv)"
exit 0
