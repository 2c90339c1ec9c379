# dac: PostgreSQL extension (PGXS) plus a pure C core tested without a server.
#
#   make / make install           the extension
#   make installcheck             pg_regress tests (needs a running server)
#   make check-core               C unit tests of the core (float32 and float64 builds)
#   make cli                      build/dac-cli, the command-line trainer/evaluator
#   make bench                    build/dac-bench and run it (single thread)
#   make check-core-san           the unit tests under AddressSanitizer and UBSan
#   make fuzz                     build/fuzz_weights, the libFuzzer target (clang)

EXTENSION = dac
# The version is defined once, in dac.control.
EXTVERSION := $(shell sed -n "s/^default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" $(dir $(firstword $(MAKEFILE_LIST)))dac.control)

MODULE_big = dac
CORE_SRCS := $(sort $(wildcard src/core/*.c))
GLUE_SRCS := $(sort $(wildcard src/pg/*.c))
OBJS = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)
# Install scripts: the 0.1.0 base and every update from it (CREATE
# EXTENSION runs the base, then the updates to default_version).
DATA = $(wildcard sql/dac--*.sql)
# pg_regress's layout: inputs sql/dac_*.sql (beside the install and update
# scripts sql/dac--*.sql, told apart by the name), outputs expected/*.out.
REGRESS = dac_basic dac_cluster dac_train dac_security dac_production dac_pipeline dac_messages dac_embed dac_warped dac_small dac_large dac_units dac_images
# The module opens OpenBLAS itself, after choosing its CPU kernels (linalg.c).
# Every symbol is hidden but what PostgreSQL calls: the SQL entry points
# (DAC_SQL_FUNCTION in dac_pg.h), _PG_init and the magic block.
PG_CPPFLAGS = -Isrc/core -Isrc/pg -DDAC_VERSION=\"$(EXTVERSION)\" -DDAC_BLAS_RUNTIME \
	'-DPGDLLEXPORT=__attribute__((visibility("default")))'
PG_CFLAGS = -fvisibility=hidden
SHLIB_LINK = -ldl -lm
EXTRA_CLEAN = build

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Every object depends on every header: a changed struct must never leave a
# stale object behind (PGXS tracks no header dependencies by itself).
$(OBJS): $(wildcard src/core/*.h src/pg/*.h)

# The shipped models go to $(datadir)/extension/dac/, read at CREATE EXTENSION.
WEIGHTS := $(wildcard weights/*.safetensors)
install: install-weights
.PHONY: install-weights
install-weights:
	$(MKDIR_P) '$(DESTDIR)$(datadir)/extension/dac'
	$(INSTALL_DATA) $(WEIGHTS) '$(DESTDIR)$(datadir)/extension/dac/'

# The core's loops are written to vectorize: build it at -O3 (never fast-math).
$(CORE_SRCS:.c=.o): CFLAGS += -O3

# ---------------------------------------------------------------- the core
# Built on its own, with no PostgreSQL header, in float32 and float64.
CORE_CC ?= gcc
CORE_CFLAGS = -O3 -g -std=gnu99 -fno-fast-math -fno-strict-aliasing -fwrapv \
	-Wall -Wextra -Wmissing-prototypes -Wdeclaration-after-statement -Werror=vla \
	-Wno-format-truncation -Isrc/core
CORE_LIBS = -lopenblas -lm
UNIT_SRCS := $(sort $(wildcard test/unit/*.c))
CORE32 = $(patsubst src/core/%.c,build/f32/%.o,$(CORE_SRCS))
CORE64 = $(patsubst src/core/%.c,build/f64/%.o,$(CORE_SRCS))
UNIT32 = $(patsubst test/unit/%.c,build/f32/unit_%.o,$(UNIT_SRCS))
UNIT64 = $(patsubst test/unit/%.c,build/f64/unit_%.o,$(UNIT_SRCS))
CORE_HDRS := $(wildcard src/core/*.h) test/unit/unit.h src/cli/read_file.h

build/f32/%.o: src/core/%.c $(CORE_HDRS)
	@mkdir -p build/f32
	$(CORE_CC) $(CORE_CFLAGS) -c $< -o $@
build/f64/%.o: src/core/%.c $(CORE_HDRS)
	@mkdir -p build/f64
	$(CORE_CC) $(CORE_CFLAGS) -DDAC_DOUBLE -c $< -o $@
build/f32/unit_%.o: test/unit/%.c $(CORE_HDRS)
	@mkdir -p build/f32
	$(CORE_CC) $(CORE_CFLAGS) -Itest/unit -c $< -o $@
build/f64/unit_%.o: test/unit/%.c $(CORE_HDRS)
	@mkdir -p build/f64
	$(CORE_CC) $(CORE_CFLAGS) -DDAC_DOUBLE -Itest/unit -c $< -o $@

build/test_core: $(CORE32) $(UNIT32)
	$(CORE_CC) -o $@ $^ $(CORE_LIBS)
build/test_core64: $(CORE64) $(UNIT64)
	$(CORE_CC) -o $@ $^ $(CORE_LIBS)
build/dac-cli: $(CORE32) src/cli/dac_cli.c src/cli/blas_env.h src/cli/read_file.h
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $(filter %.o %.c,$^) $(CORE_LIBS)
build/dac-bench: $(CORE32) test/bench/bench.c src/cli/blas_env.h src/cli/read_file.h
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $(filter %.o %.c,$^) $(CORE_LIBS)

# The same tests under AddressSanitizer and UndefinedBehaviorSanitizer
# (float32 build; any report stops the run).
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CORESAN = $(patsubst src/core/%.c,build/san/%.o,$(CORE_SRCS))
UNITSAN = $(patsubst test/unit/%.c,build/san/unit_%.o,$(UNIT_SRCS))
build/san/%.o: src/core/%.c $(CORE_HDRS)
	@mkdir -p build/san
	$(CORE_CC) $(CORE_CFLAGS) -O1 $(SAN_FLAGS) -c $< -o $@
build/san/unit_%.o: test/unit/%.c $(CORE_HDRS)
	@mkdir -p build/san
	$(CORE_CC) $(CORE_CFLAGS) -O1 $(SAN_FLAGS) -Itest/unit -c $< -o $@
build/test_core_san: $(CORESAN) $(UNITSAN)
	$(CORE_CC) $(SAN_FLAGS) -o $@ $^ $(CORE_LIBS)

# libFuzzer over the weights and optimiser-state readers (clang from Debian).
FUZZ_CC ?= clang
build/fuzz_weights: $(CORE_SRCS) test/fuzz/fuzz_weights.c $(CORE_HDRS)
	@mkdir -p build
	$(FUZZ_CC) -g -O1 -std=gnu99 -fno-strict-aliasing -fwrapv -Isrc/core \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(CORE_SRCS) test/fuzz/fuzz_weights.c $(CORE_LIBS)

DAC_FIXTURES ?= $(CURDIR)/test/data/reference

.PHONY: core check-core check-core-san fuzz cli bench
core: build/test_core build/test_core64 build/dac-cli build/dac-bench
check-core: build/test_core build/test_core64
	OPENBLAS_NUM_THREADS=1 DAC_FIXTURES=$(DAC_FIXTURES) build/test_core
	OPENBLAS_NUM_THREADS=1 DAC_FIXTURES=$(DAC_FIXTURES) build/test_core64
check-core-san: build/test_core_san
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	OPENBLAS_NUM_THREADS=1 DAC_FIXTURES=$(DAC_FIXTURES) build/test_core_san
fuzz: build/fuzz_weights
cli: build/dac-cli
bench: build/dac-bench
	OPENBLAS_NUM_THREADS=1 build/dac-bench
src/pg/dac.o: dac.control
