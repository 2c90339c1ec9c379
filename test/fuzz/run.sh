#!/bin/bash
# Run the weights fuzzer for a bounded time (default 60 s), seeded with the
# shipped models, the small models of test/data (tiny_whitened, made by
# dac-cli whiten, carries an input map; tiny_gated, made by dac-cli project
# in 0.23.0, a gated square one; tiny_projected, by 0.24.0's, a gated map of
# two rows for 8-wide rows) and the reference fixtures.  Exits
# non-zero on any crash, sanitizer report or leak; the input that caused it
# is left in build/fuzz/ (crash-*) to become a case in
# test/unit/test_hostile.c.
# Usage: bash test/fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
fixtures=${DAC_FIXTURES:-test/data/reference}
make -s build/fuzz_weights
rm -rf build/fuzz && mkdir -p build/fuzz/corpus
cp weights/*.safetensors test/data/*.safetensors test/data/*.json build/fuzz/corpus/
cp "$fixtures"/*.weights.safetensors build/fuzz/corpus/ 2>/dev/null || true
cd build/fuzz
# -rss_limit_mb: a parse that would need more memory than this is a finding too
ASAN_OPTIONS=detect_leaks=1 OPENBLAS_NUM_THREADS=1 ../fuzz_weights -max_total_time="$secs" \
	-max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 corpus 2>&1 | tail -25
status=${PIPESTATUS[0]}
if [ "$status" != 0 ]; then echo "not ok - the fuzzer found a failing input: $(ls crash-* leak-* timeout-* oom-* 2>/dev/null)"; exit 1; fi
echo "ok - fuzzer ran ${secs} s over the weights, optimiser-state and kept-clustering readers with no finding"
