#!/bin/sh
# The program fills the whole shared buffer, header and ring, with random
# bytes (fixed seed), 4 times, starting children while the header is
# garbage; then, with a sane header, writes 64 framed, committed records
# of the agent's types with random contents, half of them made to pass
# cdt's checks.  cdt must refuse what fails (>= 4 forged heads), carry
# what passes through to every view, text and CSV, and print only valid
# UTF-8 without control characters on stderr (comm's report goes there
# too): a forged agent error message must not drive the terminal.
set -u

. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arena.sh"

for tool in record comm; do
	scribble "$tool" random
	for v in $("$CDT" report -i "$tmp/$tool.data" --view list | awk '{ print $1 }'); do
		for csv in "" --csv; do
			"$CDT" report -i "$tmp/$tool.data" $csv --show-all --view "$v" >/dev/null 2>"$tmp/rerr" ||
				fail "$tool: the $v view ${csv:+(CSV) }failed: $(cat "$tmp/rerr")"
			! grep -aq -e Sanitizer -e 'runtime error:' "$tmp/rerr" ||
				fail "$tool: the $v view ${csv:+(CSV) }: $(cat "$tmp/rerr")"
		done
	done
	python3 -c '
import re, sys
b = open(sys.argv[1], "rb").read()
try:
    t = b.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8 at byte %d" % e.start)
bad = re.findall("[\x00-\x08\x0b-\x1f\x7f-\x9f]", t)
sys.exit("%d control characters" % len(bad) if bad else 0)' "$tmp/err" 2>"$tmp/why" ||
		fail "$tool: cdt's stderr would drive the terminal ($(cat "$tmp/why")): $(cat -v "$tmp/err")"
done
exit 0
