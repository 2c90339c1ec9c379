#!/usr/bin/env bash
# How the default hands a 2-D group from one model to the next as it grows
# (docs/kinds.md, "Across the model switches"): test/bench/handover.c runs
# both models of each pair on mog sets at sizes across the band where both
# may answer, and test/bench/handover.py prints, per size, each model's ARI,
# the plain switch's (at 100 rows and 1,000, as the default switches) and the band's (the answer of larger evidence under the
# size's prior), and the ARI between the answers on n and n + 1 rows.  The
# core only (no server); about 4 minutes on one core.
#   bash test/bench/handover.sh [SETS (400)] [OUT (/tmp/dac_handover)]
set -euo pipefail
cd "$(dirname "$0")/../.."
sets=${1:-400}
out=${2:-/tmp/dac_handover}
mkdir -p "$out"
make -s core >/dev/null
gcc -O2 -Wall -Isrc/core -Isrc/cli -o "$out/handover" test/bench/handover.c \
	$(ls build/f32/*.o | grep -v /unit_) -lopenblas -lm
export OPENBLAS_NUM_THREADS=1
"$out/handover" weights/mlf_small2d.safetensors weights/mlf_mog2d.safetensors "$sets" 99 \
	50 100 110 125 150 175 199 200 300 > "$out/small.txt"
"$out/handover" weights/mlf_mog2d.safetensors weights/mlf_fast2d.safetensors $((sets / 2)) 98 \
	400 500 600 750 900 999 1000 > "$out/large.txt"
echo "mlf_small2d (A) and mlf_mog2d (B): a band from 100 to 200 rows"
/usr/bin/python3 test/bench/handover.py "$out/small.txt" 100 100 200
echo
echo "mlf_mog2d (A) and mlf_fast2d (B): a band from 500 to 1,000 rows"
/usr/bin/python3 test/bench/handover.py "$out/large.txt" 999 500 1000
