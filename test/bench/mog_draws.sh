#!/usr/bin/env bash
# The paper's benchmark at the defaults' stages, on development and kept-aside
# draws: MoG sets from dac-cli's generator at four sizes, each clustered by the
# model the default picks at that size (mlf_small2d up to 100 rows, mlf_mog2d,
# mlf_fast2d from 1,000), with the defaults' absorb, modes, count-search and
# k-means settings.  Development draws (seeds 7 and 9: where the modes
# stage's pair criterion was chosen) and kept-aside ones (seeds 7001-7004).
# Prints ARI, NMI and k-MAE per draw.  Builds build/dac-cli (make cli).
#   bash test/bench/mog_draws.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
make -s cli
echo "| split | model | n max | k max | seed | sets | ARI | NMI | k-MAE |"
echo "|---|---|---|---|---|---|---|---|---|"
while read -r split model n k seed sets; do
	r=$(build/dac-cli eval --model "weights/$model.safetensors" --data mog --sets "$sets" --n-max "$n" --k-max "$k" \
		--seed "$seed" --absorb 4 --modes 0.1 --k-search 2 --kmeans 10 | grep -m1 '^ARI')
	echo "| $split | $model | $n | $k | $seed | $sets | $(echo "$r" | awk '{print $2 " | " $4 " | " $6}') |"
done <<'DRAWS'
dev mlf_small2d 100 4 7 200
dev mlf_mog2d 300 4 9 200
dev mlf_mog2d 1000 4 7 200
dev mlf_fast2d 3000 12 7 200
held mlf_small2d 100 4 7003 1000
held mlf_mog2d 300 4 7004 500
held mlf_mog2d 1000 4 7001 1000
held mlf_fast2d 3000 12 7002 200
DRAWS
