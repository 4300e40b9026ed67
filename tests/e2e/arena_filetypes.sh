#!/bin/sh
# The program writes into cdt's shared buffer records of types the agent
# never writes, framed and committed as the agent would: the front end's
# own file types (a symbol, metadata renaming the tool, a task, a CPU, run
# totals with exit status 77, the end record), an unknown core type (150)
# and a tool type no tool has (1000).  Under record and comm, cdt must
# refuse exactly those 8, as of a type the agent does not write, keep
# everything else, and let none of them into the profile: no view may
# show a "forged" name, and the tool and exit status stay the run's.
set -u

. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arena.sh"

for tool in record comm; do
	scribble "$tool" filetypes
	[ "$rejected" -eq "$(truth rej_type)" ] ||
		fail "$tool: expected the $(truth rej_type) records of foreign types refused, and no other: $(grep -a '^cdt: refused' "$tmp/err")"
	for v in $("$CDT" report -i "$tmp/$tool.data" --view list | awk '{ print $1 }'); do
		"$CDT" report -i "$tmp/$tool.data" --csv --show-all --view "$v" >"$tmp/view.csv" 2>"$tmp/rerr" ||
			fail "$tool: the $v view failed: $(cat "$tmp/rerr")"
		! grep -qi forged "$tmp/view.csv" ||
			fail "$tool: a forged record reached the $v view: $(grep -i forged "$tmp/view.csv")"
	done
done
exit 0
