#!/usr/bin/env bash
# A training step of the MLF network (128 wide, B = 10 sets of n = 1,000
# points), dac's core against PyTorch on the same core, side by side in one
# run: 3 rounds, each dac-bench's best of 5 steps (initial weights) and
# torch_step.py's best of 5 (after a warm-up step), one thread each; min and
# median of the rounds' figures.  Needs python3-torch (benchmark only).
# Usage: bash test/bench/torch_bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
# OpenBLAS (dac's and PyTorch's) picks its kernels for this CPU
unset OPENBLAS_CORETYPE
make -s build/dac-bench >/dev/null
dac=(); torch=()
for r in 1 2 3; do
	dac+=("$(OPENBLAS_NUM_THREADS=1 build/dac-bench 5 | sed -n 's/.*training step, B = 10, n = 1000, initial weights | \([0-9.]*\) s.*/\1/p')")
	torch+=("$(OMP_NUM_THREADS=1 /usr/bin/python3 test/bench/torch_step.py 10 1000 5 | tail -5 | sort -n | head -1)")
done
/usr/bin/python3 - "${dac[*]}" "${torch[*]}" <<'PY'
import statistics, sys
import torch
dac = [float(v) for v in sys.argv[1].split()]
tor = [float(v) for v in sys.argv[2].split()]
print("| MLF training step, B = 10, n = 1000, one thread | min s | median s |")
print("|---|---|---|")
print("| dac (core, `build/dac-bench`) | %.3f | %.3f |" % (min(dac), statistics.median(dac)))
print("| PyTorch %s (`test/bench/torch_step.py`) | %.3f | %.3f |" % (torch.__version__, min(tor), statistics.median(tor)))
print("| dac's speed over PyTorch's (target >= 1.5x) | %.2fx | %.2fx |" % (min(tor) / min(dac), statistics.median(tor) / statistics.median(dac)))
PY
