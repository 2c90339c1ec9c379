#!/usr/bin/env bash
# Units benchmark: every shipped 2-D model on the
# generator's sets as drawn, and the same sets in other units and origins
# (x * scale + shift, in double precision), with the model's input as
# shipped ("scaled": the units frame, src/core/frame.h) and as 0.8.0 took
# it ("raw", --units raw).  Prints a markdown table of ARI / NMI / k-MAE and
# seconds per set.  Usage: bash test/bench/units.sh [sets at (1000, 4) (300)] [sets at (3000, 12) (100)]
set -euo pipefail
cd "$(dirname "$0")/../.."
small=${1:-300}
large=${2:-100}
make -s cli >/dev/null
export OPENBLAS_NUM_THREADS=1
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
kernel=$(grep -q avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2)
echo "CPU: $cpu ($kernel kernels), one thread; sets: $small of (1000, 4) seed 1001, $large of (3000, 12) seed 3001 (warped: the same sizes of warped_mog)"
echo
echo "| model | input | units | (1000, 4) ARI / NMI / k-MAE / s per set | (3000, 12) ARI / NMI / k-MAE / s per set |"
echo "|---|---|---|---|---|"
row() {
	local model=$1 data=$2 units=$3 scale=$4 shift=$5 label=$6 cells="" cfg
	for cfg in "1000 4 $small 1001" "3000 12 $large 3001"; do
		read -r n k sets seed <<<"$cfg"
		local out
		out=$(build/dac-cli eval --model "weights/$model.safetensors" --data "$data" --sets "$sets" --n-max "$n" \
			--k-max "$k" --seed "$seed" --scale "$scale" --shift "$shift" ${units:+--units $units} | sed -n 2p)
		cells="$cells | $(awk '{printf "%.4f / %.4f / %.3f / %.4f", $2, $4, $6, $10}' <<<"$out")"
	done
	echo "| $model | ${units:-scaled} | $label$cells |"
}
for model in mlf_mog2d af_mog2d mlf64_mog2d mlf_small2d mlf_fast2d mlf_warped2d; do
	data=mog
	[ "$model" = mlf_warped2d ] && data=warped
	row $model $data raw 1 0 "as drawn"
	row $model $data raw 1e-3 1e6 "x 1e-3 + 1e6"
	row $model $data "" 1 0 "as drawn"
	row $model $data "" 1e-3 1e6 "x 1e-3 + 1e6"
	row $model $data "" 1e6 -1e6 "x 1e6 - 1e6"
done
