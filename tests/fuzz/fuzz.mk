# libFuzzer build and run of the cdt.data reader (see tests/fuzz/README).
#
#   make -f tests/fuzz/fuzz.mk [FUZZ_SECONDS=60] [FUZZ_FLAGS=...]
#
# Run from the repository root.  The seeds in tests/fuzz/corpus are copied
# into build/fuzz/corpus, which keeps what the fuzzer found between runs;
# crashes land in build/fuzz/artifacts/.

CLANG        ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=
FB           := build/fuzz

FUZZ_SRC    := tests/fuzz/fuzz_datafile.c lib/core/datafile.c lib/core/records.c
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
               -fno-omit-frame-pointer -DCDT_FUZZ_MUTATOR -I. \
               $(shell pkg-config --cflags zlib)
FUZZ_LIBS   := $(shell pkg-config --libs zlib || echo -lz)

.PHONY: run build
run: $(FB)/fuzz_datafile
	@mkdir -p $(FB)/corpus $(FB)/artifacts
	cp tests/fuzz/corpus/* $(FB)/corpus/
	$(FB)/fuzz_datafile -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
	  -print_final_stats=1 -artifact_prefix=$(FB)/artifacts/ $(FUZZ_FLAGS) \
	  $(FB)/corpus

build: $(FB)/fuzz_datafile

$(FB)/fuzz_datafile: $(FUZZ_SRC) lib/core/datafile.h lib/core/records.h lib/wire/record.h tests/fuzz/fuzz.mk
	@mkdir -p $(FB)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $(FUZZ_SRC) $(FUZZ_LIBS)
