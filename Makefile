# cdt — build, test, demo, install.
#
#   make            build ./cdt (front end with the agent embedded)
#   make check      unit tests, end-to-end tests (ASan/UBSan front end), fuzz corpus replay
#   make demo       profile a bundled workload and print its report
#   make install    PREFIX=/usr/local DESTDIR=
#   make fuzz       run the libFuzzer targets: the data-file reader, the front end (clang)
#   make bench      overhead benchmarks and the sample clocks' costs (tests/bench/)
#   make bench-real overhead on real programs and benchmark shapes (tests/bench/real/)
#
# Missing Debian packages are installed with apt-get when run as root;
# otherwise the exact command is printed and the build stops.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
VERSION := 0.1.0

# tmux drives the TUI in the tests, Open MPI runs a real MPI job
# (tests/e2e/mpi.sh), stress-ng loads the machine in stress runs, python3
# parses JSON and checks that stderr is clean UTF-8 in the tests, uftrace
# is fvar's peer (every call timed) and g++ builds its C++ workload;
# likwid (likwid-bench) is membound's peer (its calibration's bandwidths);
# qemu-system-x86 and busybox-static make the two-node NUMA guest.
DEB_PKGS := pkg-config libpfm4-dev libelf-dev libdw-dev zlib1g-dev libncurses-dev \
            libzydis-dev libhwloc-dev libcmocka-dev tmux openmpi-bin libopenmpi-dev \
            stress-ng python3 uftrace g++ libnuma-dev \
            qemu-system-x86 busybox-static likwid
# Libraries without a .pc file in Debian 12 fall back to plain -l flags.
PKG_LIBS := libelf libdw zlib ncursesw hwloc

B := build
WARN := -Wall -Wextra -Werror
CSTD := -std=c11 -D_GNU_SOURCE
OPT  ?= -O2 -g
DEPFLAGS = -MMD -MP
PC_CFLAGS = $(shell pkg-config --cflags $(PKG_LIBS) 2>/dev/null)
PC_LIBS   = $(shell pkg-config --libs $(PKG_LIBS) 2>/dev/null)
# Includes name their folder from the top: "lib/core/profile.h", "output/table.h".
CFLAGS_ALL = $(CSTD) $(OPT) $(WARN) $(DEPFLAGS) -I. -DCDT_VERSION='"$(VERSION)"' $(PC_CFLAGS) $(CFLAGS)
LIBS = $(PC_LIBS) -lpfm -lZydis -lnuma -lm $(LDLIBS)

# The layers of lib/ (lib/README).  A tool is a folder lib/tools/NAME/:
# its descriptor tool.c and the table tools.c go into both images, its
# agent.c and agent_*.c into the agent only, everything else into the
# front end only.  So a new tool needs no line here.
TOOL_COMMON := lib/tools/tools.c $(wildcard lib/tools/*/tool.c)
TOOL_AGENT  := $(wildcard lib/tools/*/agent.c lib/tools/*/agent_*.c)
TOOL_FRONT  := $(filter-out $(TOOL_COMMON) $(TOOL_AGENT),$(wildcard lib/tools/*/*.c))

# The agent: a small shared object loaded into the target.  Only these
# sources go into it; they must stay async-signal-safe in handlers.
AGENT_SRC := $(wildcard lib/agent/*.c lib/wire/*.c) $(TOOL_COMMON) $(TOOL_AGENT)
AGENT_OBJ := $(AGENT_SRC:%.c=$(B)/pic/%.o)
AGENT_SO  := $(B)/cdt-agent.so

# The front end: wire, core, the tools' front-end halves, output and cmd.
LIB_SRC := $(wildcard lib/wire/*.c lib/core/*.c) $(TOOL_COMMON) $(TOOL_FRONT) $(wildcard output/*.c)
CMD_SRC := $(wildcard cmd/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o) $(B)/agent_blob.o
CMD_OBJ := $(CMD_SRC:%.c=$(B)/%.o)

# ASan/UBSan build of the front end (the agent cannot run under ASan).
SAN := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_LIB_OBJ := $(LIB_SRC:%.c=$(B)/asan/%.o) $(B)/agent_blob.o
ASAN_CMD_OBJ := $(CMD_SRC:%.c=$(B)/asan/%.o)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/asan/tests/%)
# Agent unit tests link the agent's own objects, without sanitizers (ASan
# would fight the agent over sigaction and pthread_create).
AGENT_TEST_SRC := $(wildcard tests/unit/agent_*.c)
AGENT_TEST_BIN := $(AGENT_TEST_SRC:tests/unit/%.c=$(B)/tests/%)
WORK_SRC := $(wildcard tests/workloads/*.c)
WORK_BIN := $(WORK_SRC:tests/workloads/%.c=$(B)/workloads/%)

.PHONY: all check check-numa soak demo install clean deps fuzz bench unit e2e workloads
all: cdt

# Checked again when the Makefile changes, so a package added to the list
# is installed in an existing build too.
$(B)/.deps: Makefile
	@missing=""; \
	for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "cdt: installing:$$missing" >&2; \
	    (apt-get install -y -q $$missing || (apt-get update -q && apt-get install -y -q $$missing)) </dev/null >&2 || exit 1; \
	  else \
	    echo "cdt: missing packages. Run:" >&2; \
	    echo "  sudo apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi
	@mkdir -p $(B) && touch $@
deps: $(B)/.deps

cdt: $(LIB_OBJ) $(CMD_OBJ)
	$(CC) $(OPT) -o $@ $^ $(LIBS) -ldl

$(B)/asan/cdt: $(ASAN_LIB_OBJ) $(ASAN_CMD_OBJ)
	$(CC) $(SAN) $(OPT) -o $@ $^ $(LIBS) -ldl

$(B)/%.o: %.c | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(B)/asan/%.o: %.c | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -c -o $@ $<

$(B)/pic/%.o: %.c | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DCDT_AGENT -fPIC -fvisibility=hidden -fno-omit-frame-pointer -c -o $@ $<

# libgcc's unwinder, linked into the agent and hidden in it: a libgcc_s
# the agent loaded would be one the program's first pthread_exit does not
# load into the program's heap, which then differs.  The agent defines
# _Unwind_RaiseException itself (jumps.c, for the program's throws): the
# copy's own is renamed.
AGENT_UNWIND := $(B)/agent_unwind.a
$(AGENT_UNWIND): | $(B)/.deps
	objcopy --redefine-sym _Unwind_RaiseException=cdt_unwind_raise_unused \
		$$($(CC) -print-file-name=libgcc_eh.a) $@

# -z nodelete: a program that dlcloses everything must not unmap the handler.
# -z now: no lazy binding, whose resolver saves the whole vector state on
# the stack (3 KiB with AVX-512), in a handler on a program's small stack.
$(AGENT_SO): $(AGENT_OBJ) $(AGENT_UNWIND)
	$(CC) -shared -fPIC -static-libgcc -Wl,--exclude-libs,ALL -Wl,-z,nodelete -Wl,-z,now \
		-Wl,--no-undefined -o $@ $^ -lZydis

$(B)/agent_blob.o: lib/core/agent_blob.S $(AGENT_SO)
	$(CC) -c -DAGENT_SO='"$(AGENT_SO)"' -o $@ lib/core/agent_blob.S

# ---- tests ----
$(B)/asan/tests/test_%: tests/unit/test_%.c $(filter-out $(B)/agent_blob.o,$(ASAN_LIB_OBJ)) $(B)/agent_blob.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $(filter %.c %.o,$^) $(LIBS) $$(pkg-config --libs cmocka 2>/dev/null || echo -lcmocka) -ldl

# The decoder runs in the agent only; its unit test checks it under ASan.
$(B)/asan/tests/test_decode: $(B)/asan/lib/agent/decode.o

# They drain the arena through the front end's ingest, as cdt does, and
# unwind with the agent's unwinder.
AGENT_TEST_LINK := $(AGENT_OBJ) $(addprefix $(B)/lib/core/,ingest.o records.o array.o) \
	$(AGENT_UNWIND)
$(B)/tests/agent_%: tests/unit/agent_%.c $(AGENT_TEST_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -pthread -o $@ $(filter %.c %.o %.a,$^) -lZydis -ldl $$(pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# Workloads are programs of their own; -I. lets one that plays a hostile
# program (arena_scribbler) take the arena's layout from lib/wire/;
# comm_globals lays its variables out in the order it defines them.
$(B)/workloads/%: tests/workloads/%.c | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O2 -g $(WARN) $(DEPFLAGS) -I. -pthread $(if $(findstring static,$*),-static,) \
		$(if $(filter comm_globals,$*),-fno-toplevel-reorder,) -o $@ $< -lm

# fvar's: a function in a shared library of the workload's own, the same
# program built with -pg for uftrace (its peer), and a C++ one that throws.
$(B)/workloads/libfvarlib.so: tests/workloads/lib/fvar_lib.c | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O2 -g $(WARN) $(DEPFLAGS) -shared -fPIC -o $@ $<

$(B)/workloads/fvar_shapes: tests/workloads/fvar_shapes.c $(B)/workloads/libfvarlib.so
	$(CC) $(CSTD) -O2 -g $(WARN) $(DEPFLAGS) -pthread -o $@ $< -L$(B)/workloads -lfvarlib \
		-Wl,-rpath,'$$ORIGIN' -lm

$(B)/workloads/fvar_shapes_pg: tests/workloads/fvar_shapes.c $(B)/workloads/libfvarlib.so
	$(CC) $(CSTD) -O2 -g -pg $(WARN) -pthread -o $@ $< -L$(B)/workloads -lfvarlib \
		-Wl,-rpath,'$$ORIGIN' -lm

# dlloop loads and unloads a library of its own, beside it, again and again.
$(B)/workloads/libdlloop.so: tests/workloads/lib/dlloop_lib.c | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O2 -g $(WARN) $(DEPFLAGS) -shared -fPIC -o $@ $<

$(B)/workloads/dlloop: $(B)/workloads/libdlloop.so

$(B)/workloads/fvar_throw $(B)/workloads/comm_vector: $(B)/workloads/%: tests/workloads/%.cc | $(B)/.deps
	$(CXX) -std=c++17 -O2 -g $(WARN) $(DEPFLAGS) -pthread -o $@ $<

WORK_BIN += $(B)/workloads/fvar_shapes_pg $(B)/workloads/fvar_throw $(B)/workloads/comm_vector

# comm_arc is Rust, built by rustc alone (no crates, no network) where
# rustc is found; tests/e2e/names_rust.sh skips without it.
RUSTC ?= $(shell command -v rustc 2>/dev/null)
ifneq ($(RUSTC),)
$(B)/workloads/comm_arc: tests/workloads/comm_arc.rs | $(B)/.deps
	@mkdir -p $(dir $@)
	$(RUSTC) --edition 2021 -O -g -o $@ $<

WORK_BIN += $(B)/workloads/comm_arc
endif

workloads: $(WORK_BIN)

# Synthetic profiles of any size, for report and TUI benchmarks: genprofile
# writes comm ones, genrecord `cdt record` ones (samples with symbols).
GEN_BIN := $(B)/bench/genprofile $(B)/bench/genrecord
$(GEN_BIN): $(B)/bench/%: tests/bench/%.c tests/bench/gen_common.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $(filter %.c %.o,$^) $(LIBS) -ldl

unit: $(UNIT_BIN) $(AGENT_TEST_BIN)

# The fuzz targets without libFuzzer, replaying their corpora (tests/run.sh):
# fuzz_replay the reader's, fuzz_replay_profile the whole front end's.
FUZZ_REPLAY := $(B)/asan/tests/fuzz_replay $(B)/asan/tests/fuzz_replay_profile
$(B)/asan/tests/fuzz_replay: tests/fuzz/fuzz_datafile.c
$(B)/asan/tests/fuzz_replay_profile: tests/fuzz/fuzz_profile.c
$(FUZZ_REPLAY): tests/fuzz/replay.c $(filter-out $(B)/agent_blob.o,$(ASAN_LIB_OBJ)) $(B)/agent_blob.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $(filter %.c %.o,$^) $(LIBS) -ldl

# The two-node NUMA guest (tests/numa/guest.sh): Debian's kernel, fetched
# once with apt-get download, and an initramfs of busybox, cdt and the
# workload; tests/e2e/numa_guest.sh boots it under qemu (TCG, 15 to 40
# seconds here), in `make check` too.
NUMA_GUEST := $(B)/numa/vmlinuz $(B)/numa/initrd.gz
$(B)/numa/vmlinuz: tests/numa/guest.sh | $(B)/.deps
	sh tests/numa/guest.sh kernel $(B)/numa
$(B)/numa/initrd.gz: tests/numa/guest.sh tests/numa/init cdt $(AGENT_SO) $(B)/workloads/numa_jacobi
	sh tests/numa/guest.sh initrd $(B)/numa cdt $(AGENT_SO) $(B)/workloads/numa_jacobi

CHECK_BIN := cdt $(B)/asan/cdt $(UNIT_BIN) $(AGENT_TEST_BIN) $(WORK_BIN) $(FUZZ_REPLAY) $(GEN_BIN) \
	     $(NUMA_GUEST)
check: $(CHECK_BIN)
	@CDT=$(CURDIR)/$(B)/asan/cdt CDT_PLAIN=$(CURDIR)/cdt BUILD=$(CURDIR)/$(B) sh tests/run.sh

# The two-node guest's test alone.
check-numa: $(B)/asan/cdt $(WORK_BIN) $(NUMA_GUEST)
	@CDT=$(CURDIR)/$(B)/asan/cdt CDT_PLAIN=$(CURDIR)/cdt BUILD=$(CURDIR)/$(B) sh tests/e2e/numa_guest.sh

# The suite 20 times in a row with the other core busy (tests/soak.sh).
soak: $(CHECK_BIN)
	@CDT=$(CURDIR)/$(B)/asan/cdt CDT_PLAIN=$(CURDIR)/cdt BUILD=$(CURDIR)/$(B) sh tests/soak.sh $(RUNS) $(LOAD)

# libFuzzer (clang): tests/fuzz/fuzz.mk, given the front end to link.
fuzz: $(B)/agent_blob.o | $(B)/.deps
	$(MAKE) -f tests/fuzz/fuzz.mk FUZZ_LIB_SRC="$(LIB_SRC)" FUZZ_BLOB=$(B)/agent_blob.o \
	  FUZZ_LIB_CFLAGS="$(PC_CFLAGS)" FUZZ_LIB_LIBS="$(LIBS) -ldl"

bench: cdt $(WORK_BIN) $(GEN_BIN)
	@sh tests/bench/run.sh record && echo && sh tests/bench/run.sh comm && echo && sh tests/bench/run.sh fvar
	@echo && sh tests/bench/run.sh numa
	@echo && sh tests/bench/run.sh membound
	@echo && sh tests/bench/clocks.sh
	@echo && sh tests/bench/jitter.sh
	@echo && sh tests/bench/tui_open.sh
	@echo && sh tests/bench/report.sh

# The overhead of every tool, and of perf record, on programs cdt's authors
# did not write (pigz, xz, zstd, sort) and on ones written here in the
# shapes of well-known benchmarks (tests/bench/real/run.sh; about 7 min).
# Their packages are checked by the deps rule above, run on this list.
BENCH_PKGS := pigz xz-utils zstd coreutils linux-perf
REAL_SRC := $(wildcard tests/bench/real/*.c)
REAL_BIN := $(REAL_SRC:tests/bench/real/%.c=$(B)/bench/real/%)
$(B)/bench/real/.deps: Makefile
	@$(MAKE) --no-print-directory B=$(B)/bench/real DEB_PKGS="$(BENCH_PKGS)" deps
$(REAL_BIN): $(B)/bench/real/%: tests/bench/real/%.c tests/bench/real/real.h | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g $(WARN) -pthread $(if $(filter jacobi,$*),-fopenmp) \
		$(if $(filter globals,$*),-fno-toplevel-reorder) -o $@ $<

.PHONY: bench-real
bench-real: cdt $(REAL_BIN) $(B)/bench/real/.deps
	@CDT_PLAIN=$(CURDIR)/cdt BUILD=$(CURDIR)/$(B) sh tests/bench/real/run.sh

# The main job: cdt comm on per-thread counters packed into one cache line
# (false sharing), then the same counters padded (none).
demo: cdt $(WORK_BIN)
	./cdt comm -o $(B)/demo.data $(B)/workloads/comm_padding -n 4 -t 1
	./cdt comm -o $(B)/demo-padded.data $(B)/workloads/comm_padding -n 4 -t 1 --padded

install: cdt
	install -D -m 0755 cdt $(DESTDIR)$(PREFIX)/bin/cdt
	for m in man/*.1; do install -D -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/$$(basename $$m); done

clean:
	rm -rf $(B) cdt

-include $(shell find $(B) -name '*.d' 2>/dev/null)
