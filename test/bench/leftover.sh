#!/usr/bin/env bash
# Leftover policy (dac.leftover): where points no pass selected go.  Clusters
# the quality benchmark's sets (1000 per configuration, seeds 1001 and 3001,
# the same sets as test/bench/quality.sh) with each policy, with the shipped
# MLF and AF and, when the git history is at hand, the first shipped MLF
# (commit 52f3aea), which stalls on some (3000, 12) sets.
# Usage: bash test/bench/leftover.sh [sets (1000)]
set -euo pipefail
cd "$(dirname "$0")/../.."
sets=${1:-1000}
make -s cli >/dev/null
models=(weights/mlf_mog2d.safetensors weights/af_mog2d.safetensors)
old=$(mktemp --suffix=.safetensors)
trap 'rm -f "$old"' EXIT
if git cat-file -e 52f3aea:weights/mlf_mog2d.safetensors 2>/dev/null; then
	git show 52f3aea:weights/mlf_mog2d.safetensors >"$old"
	models+=("$old")
fi
echo "| model | sets (n_max, k_max) | policy | ARI | NMI | k-MAE | LL | leftover points |"
echo "|---|---|---|---|---|---|---|---|"
for model in "${models[@]}"; do
	name=$([ "$model" = "$old" ] && echo "mlf_mog2d of 52f3aea" || basename "$model" .safetensors)
	for cfg in "1000 4 1001" "3000 12 3001"; do
		read -r nmax kmax seed <<<"$cfg"
		for lp in own best first; do
			build/dac-cli eval --model "$model" --sets "$sets" --n-max "$nmax" --k-max "$kmax" --seed "$seed" --leftover "$lp" |
				awk -v n="$name" -v c="$sets ($nmax, $kmax)" -v p="$lp" \
					'/^ARI/ {printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", n, c, p, $2, $4, $6, $8, $17}'
		done
	done
done
