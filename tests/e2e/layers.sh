#!/bin/sh
# The layer rules hold in this tree (tests/layers.sh), and the checker
# catches each kind of violation in small made-up trees: core including a
# tool, output including lib/, the agent including core, one tool
# including another, a model including a view through a header, a cycle
# across folders, and an include that does not exist.  Needs no cdt.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
me=${0##*/}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "$me: $*" >&2
	exit 1
}

sh "$top/tests/layers.sh" "$top" >"$tmp/out" 2>&1 || fail "this tree breaks the rules: $(cat "$tmp/out")"

# mk NAME FILE:INCLUDE...: a tree where each FILE includes INCLUDE
# (FILE:- creates FILE with no include), on top of a lawful base.
mk() {
	d=$tmp/$1
	shift
	mkdir -p "$d/lib/wire" "$d/lib/agent" "$d/lib/core" "$d/lib/tools/a" "$d/lib/tools/b" \
		"$d/output" "$d/cmd"
	for f in lib/wire/record.h lib/agent/agent.h lib/core/profile.h lib/core/view.h \
		lib/tools/tool.h lib/tools/a/a.h lib/tools/a/model.h lib/tools/a/views.c \
		lib/tools/b/b.h output/table.h cmd/cdt.c; do
		: >"$d/$f"
	done
	echo '#include "lib/wire/record.h"' >>"$d/lib/agent/agent.h"
	echo '#include "lib/wire/record.h"' >>"$d/lib/core/profile.h"
	echo '#include "output/table.h"' >>"$d/lib/core/view.h"
	echo '#include "lib/core/profile.h"' >>"$d/lib/tools/a/model.h"
	echo '#include "lib/core/view.h"' >>"$d/lib/tools/a/views.c"
	echo '#include "lib/tools/tool.h"' >>"$d/cmd/cdt.c"
	for e in "$@"; do
		file=${e%%:*} inc=${e#*:}
		mkdir -p "$d/$(dirname "$file")"
		[ -f "$d/$file" ] || : >"$d/$file"
		[ "$inc" = - ] || echo "#include \"$inc\"" >>"$d/$file"
	done
}

# must_fail NAME PATTERN: the checker rejects tree NAME, naming PATTERN.
must_fail() {
	if sh "$top/tests/layers.sh" "$tmp/$1" >"$tmp/out" 2>&1; then
		fail "$1: a tree that breaks the rules passed: $(cat "$tmp/out")"
	fi
	grep -q "$2" "$tmp/out" || fail "$1: expected a message with '$2', got: $(cat "$tmp/out")"
}

mk lawful
sh "$top/tests/layers.sh" "$tmp/lawful" >"$tmp/out" 2>&1 || fail "the lawful base fails: $(cat "$tmp/out")"

mk core_tool lib/core/run.c:lib/tools/tool.h
must_fail core_tool "lib/core/run.c (core) includes lib/tools/tool.h"
mk core_tool2 lib/core/run.c:lib/tools/a/a.h
must_fail core_tool2 "includes lib/tools/a/a.h (tool)"
mk output_lib output/tui.c:lib/core/profile.h
must_fail output_lib "output/tui.c (output) includes lib/core/profile.h"
mk agent_core lib/agent/thread.c:lib/core/profile.h
must_fail agent_core "lib/agent/thread.c (agent) includes"
mk wire_agent lib/wire/arena.h:lib/agent/agent.h
must_fail wire_agent "lib/wire/arena.h (wire) includes"
mk tool_tool lib/tools/a/views.c:lib/tools/b/b.h
must_fail tool_tool "lib/tools/a/views.c (tool) includes lib/tools/b/b.h (tool)"
mk cmd_tool cmd/cdt.c:lib/tools/a/a.h
must_fail cmd_tool "cmd/cdt.c (cmd) includes lib/tools/a/a.h"
# The model reaches a view through its own folder's header.
mk model_view lib/tools/a/model.c:lib/tools/a/model.h lib/tools/a/model.h:lib/tools/a/a.h \
	lib/tools/a/a.h:lib/core/view.h
must_fail model_view "the model lib/tools/a/model.c includes a view: lib/core/view.h"
mk cycle lib/core/profile.h:lib/core/x.h lib/core/x.h:lib/wire/y.h lib/wire/y.h:lib/core/profile.h
must_fail cycle "include cycle across folders"
mk missing lib/core/run.c:lib/core/nothere.h
must_fail missing "lib/core/nothere.h, which is not in the tree"
exit 0
