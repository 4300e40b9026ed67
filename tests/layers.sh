#!/bin/sh
# The layer rules of lib/README, checked in the #include lines:
#   - lib/wire includes only lib/wire; lib/agent only lib/agent and
#     lib/wire; lib/core only lib/core, lib/wire and output; output only
#     output: so core, agent, wire and output never include lib/tools;
#   - a tool's folder lib/tools/NAME includes no other tool's folder, and
#     cmd/ includes none;
#   - a model (lib/tools/NAME/model.[ch]) never includes a view, not even
#     through another header: nothing of lib/core/view*, output/, or the
#     tool's views, TUI or parts;
#   - no include cycle joins files of different folders.
#
#   sh tests/layers.sh [ROOT]    (default: the repository this script is in)
#
# Includes name their file from ROOT ("lib/core/profile.h"); one that does
# not resolve there is taken relative to the including file.  Prints each
# violation and exits 1, or exits 0 saying how many includes it checked.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# One line per include: "FILE INCLUDED", the included path resolved.
files=$(find lib output cmd -name '*.[ch]' 2>/dev/null | sort)
[ -n "$files" ] || { echo "layers: no sources under $root" >&2; exit 2; }
edges=$(for f in $files; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r inc; do
		if [ -f "$inc" ]; then
			echo "$f $inc"
		elif [ -f "$(dirname "$f")/$inc" ]; then
			echo "$f $(dirname "$f")/$inc"
		else
			echo "$f ?$inc"
		fi
	done
done)

printf '%s\n' "$edges" | awk '
# The folder a file belongs to, and its layer.
function folder(p,   n, a) {
	n = split(p, a, "/")
	if (a[1] == "lib" && a[2] == "tools" && n > 3) return "lib/tools/" a[3]
	sub(/\/[^\/]*$/, "", p)
	return p
}
function layer(d) {
	if (d ~ /^lib\/tools\/./) return "tool"
	if (d == "lib/tools") return "tools"
	if (d ~ /^lib\//) return substr(d, 5)
	return d
}
function allowed(from, to, fd, td) {
	if (fd == td) return 1
	if (from == "wire") return 0
	if (from == "agent") return to == "wire"
	if (from == "core") return to == "wire" || to == "output"
	if (from == "output") return 0
	if (from == "tools") return to == "wire" || to == "agent" || to == "core"
	if (from == "tool") return to != "tool" && to != "cmd"
	if (from == "cmd") return to != "tool"
	return 0
}
# A header that shows something (a view, a renderer, a screen).
function is_view(p) {
	return p ~ /^lib\/core\/view/ || p ~ /^output\// || p ~ /\/(views|tui|parts)\.[ch]$/
}
function bad(msg) { print "layers: " msg; nbad++ }
NF == 2 {
	from = $1; to = $2; n++
	if (substr(to, 1, 1) == "?") { bad(from " includes " substr(to, 2) ", which is not in the tree"); next }
	adj[from] = adj[from] " " to
	fd = folder(from); td = folder(to)
	if (!allowed(layer(fd), layer(td), fd, td))
		bad(from " (" layer(fd) ") includes " to " (" layer(td) ")")
}
# The headers a file includes, directly or through others.
function reach(f, seen,   k, m, a, i) {
	m = split(adj[f], a, " ")
	for (i = 1; i <= m; i++)
		if (!(a[i] in seen)) { seen[a[i]] = 1; reach(a[i], seen) }
}
# Depth-first search for cycles; a cycle through two folders is reported.
function dfs(f,   m, a, i, g, k, path, many) {
	state[f] = 1; stack[++sp] = f
	m = split(adj[f], a, " ")
	for (i = 1; i <= m; i++) {
		g = a[i]
		if (state[g] == 1) {
			path = ""; many = 0
			for (k = sp; k >= 1; k--) {
				path = stack[k] (path == "" ? "" : " -> " path)
				if (folder(stack[k]) != folder(g)) many = 1
				if (stack[k] == g) break
			}
			if (many) bad("include cycle across folders: " path " -> " g)
		} else if (!state[g]) {
			dfs(g)
		}
	}
	state[f] = 2; sp--
}
END {
	for (f in adj) {
		if (f !~ /^lib\/tools\/[^\/]+\/model\.[ch]$/) continue
		split("", seen)
		reach(f, seen)
		for (h in seen)
			if (is_view(h)) bad("the model " f " includes a view: " h)
	}
	for (f in adj)
		if (!state[f]) dfs(f)
	if (nbad) exit 1
	printf "layers: %d includes follow the rules\n", n
}'
