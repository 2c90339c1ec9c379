#!/usr/bin/env bash
# Leftover policy (dac.leftover): where points no pass selected go.  The
# shipped models rarely leave any, so this trains an early MLF model (3,000
# steps of the shipped recipe's first stage, about 10 minutes), which leaves
# many, and clusters the same sets with each policy; then the shipped MLF.
# Usage: bash test/bench/leftover.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
make -s cli >/dev/null
early=$(mktemp --suffix=.safetensors)
build/dac-cli train --out "$early" --strategy mlf --steps 12000 --stop-after 3000 \
	--batch 16 --n-max 300 --k-max 4 --lr 5e-4 --seed 11 --log-every 1000 >/dev/null
echo "| model | sets (n_max, k_max) | policy | ARI | NMI | k-MAE | LL | leftover points |"
echo "|---|---|---|---|---|---|---|---|"
for model in "$early" weights/mlf_mog2d.safetensors; do
	name=$([ "$model" = "$early" ] && echo "MLF after 3,000 steps" || echo mlf_mog2d)
	for cfg in "1000 4 200 41" "3000 12 40 42"; do
		read -r nmax kmax sets seed <<<"$cfg"
		for lp in best first; do
			build/dac-cli eval --model "$model" --sets "$sets" --n-max "$nmax" --k-max "$kmax" --seed "$seed" --leftover "$lp" |
				awk -v n="$name" -v c="$sets ($nmax, $kmax)" -v p="$lp" \
					'/^ARI/ {printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", n, c, p, $2, $4, $6, $8, $17}'
		done
	done
done
rm -f "$early"
