#!/bin/sh
# The program fills the whole shared buffer, header and ring, with random
# bytes (fixed seed), 4 times, starting children while the header is
# garbage; then, with a sane header, writes 64 framed, committed records
# of the agent's types with random contents, half of them made to pass
# cdt's checks.  cdt must refuse what fails (>= 4 forged heads), carry
# what passes through to every view, text and CSV, and print nothing but
# printable ASCII on stderr: a forged agent error message must not send
# control bytes to the terminal.
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
	n=$(tr -d '\11\12\40-\176' <"$tmp/err" | wc -c)
	[ "$n" -eq 0 ] || fail "$tool: $n bytes on cdt's stderr are not printable ASCII: $(cat -v "$tmp/err")"
done
exit 0
