#!/bin/sh
# The program tries to shrink, grow and seal the shared buffer's memfd
# (shrunk, it would kill cdt with SIGBUS: cdt seals it first), then forges
# the buffer's header: ring_size 0, 1<<40 and 4097 (children forked and
# exec'd meanwhile), a head below the tail, one far past it, one not a
# multiple of 8, and a garbage tail, each until cdt has replaced it.
# Neither cdt nor the agent may take the ring's geometry from the header
# again: cdt refuses each forged head (>= 3 unframed) and collection goes
# on; the agent in the program goes on appending, never from a misaligned
# head; an exec'd child's agent, finding a ring size that is not the
# buffer's, declines to attach instead of mapping it; every child exits 0
# (the program exits 4 otherwise, and 2 if the memfd could be resized or
# the head stayed misaligned).
set -u

. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/arena.sh"

for tool in record comm; do
	scribble "$tool" header
	grep -aq '^cdt agent: cannot attach to the arena' "$tmp/err" ||
		fail "$tool: the exec'd children must decline the forged ring size: $(cat "$tmp/err")"
done
exit 0
