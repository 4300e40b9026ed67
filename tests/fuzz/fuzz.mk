# libFuzzer builds and runs of the cdt.data fuzz targets (see tests/fuzz/README).
#
#   make fuzz [FUZZ_TARGET=both|datafile|profile] [FUZZ_SECONDS=60] [FUZZ_FLAGS=...]
#
# The Makefile's `fuzz` rule runs this file from the repository root and
# passes the front end's sources (FUZZ_LIB_SRC), its libraries
# (FUZZ_LIB_LIBS, FUZZ_LIB_CFLAGS) and the embedded agent (FUZZ_BLOB),
# which fuzz_profile links.  FUZZ_TARGET=both (the default) gives each
# target half of FUZZ_SECONDS.  The seeds of tests/fuzz/corpus (datafile)
# and tests/fuzz/corpus-profile (profile) are copied into
# build/fuzz/corpus-TARGET, which keeps what the fuzzer found between
# runs; crashes land in build/fuzz/artifacts/TARGET-*.

CLANG        ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGET  ?= both
FUZZ_FLAGS   ?=
FB           := build/fuzz

ifeq ($(strip $(FUZZ_LIB_SRC)),)
$(error run it as `make fuzz` from the repository root: the Makefile names the sources)
endif

FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror $(FUZZ_SAN) -I. \
               -DCDT_VERSION='"fuzz"' $(FUZZ_LIB_CFLAGS)
FUZZ_ZLIB   := $(shell pkg-config --libs zlib || echo -lz)

# fuzz_datafile needs the reader only; fuzz_profile the whole front end,
# instrumented for coverage (fuzzer-no-link) like the target itself.
FUZZ_OBJ := $(FUZZ_LIB_SRC:%.c=$(FB)/obj/%.o)

ifeq ($(FUZZ_TARGET),both)
FUZZ_RUN  := datafile profile
FUZZ_TIME := $(shell expr $(FUZZ_SECONDS) / 2)
else
FUZZ_RUN  := $(FUZZ_TARGET)
FUZZ_TIME := $(FUZZ_SECONDS)
endif
FUZZ_MAX_LEN_datafile := 16384
FUZZ_MAX_LEN_profile  := 32768
FUZZ_SEEDS_datafile   := tests/fuzz/corpus
FUZZ_SEEDS_profile    := tests/fuzz/corpus-profile

.PHONY: run build
run: $(FUZZ_RUN:%=$(FB)/fuzz_%)
	$(foreach t,$(FUZZ_RUN),$(call fuzz_one,$(t)))

build: $(FUZZ_RUN:%=$(FB)/fuzz_%)

# One target for FUZZ_TIME seconds; -timeout catches hangs.
define fuzz_one
@mkdir -p $(FB)/corpus-$(1) $(FB)/artifacts
cp $(FUZZ_SEEDS_$(1))/* $(FB)/corpus-$(1)/
$(FB)/fuzz_$(1) -max_total_time=$(FUZZ_TIME) -max_len=$(FUZZ_MAX_LEN_$(1)) -timeout=10 \
  -print_final_stats=1 -artifact_prefix=$(FB)/artifacts/$(1)- $(FUZZ_FLAGS) $(FB)/corpus-$(1)

endef

$(FB)/fuzz_datafile: tests/fuzz/fuzz_datafile.c tests/fuzz/mutator.c lib/core/datafile.c \
		     lib/core/records.c lib/core/datafile.h lib/core/records.h lib/wire/record.h \
		     tests/fuzz/fuzz.mk
	@mkdir -p $(FB)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c,$^) $(FUZZ_ZLIB)

$(FB)/fuzz_profile: tests/fuzz/fuzz_profile.c tests/fuzz/mutator.c $(FUZZ_OBJ) $(FUZZ_BLOB) \
		    tests/fuzz/fuzz.mk
	@mkdir -p $(FB)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c %.o,$^) $(FUZZ_LIB_LIBS)

$(FB)/obj/%.o: %.c tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

-include $(FUZZ_OBJ:.o=.d)
