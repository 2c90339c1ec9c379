#!/usr/bin/env bash
# Leftover policy (dac.leftover): where points no pass selected go.  Clusters
# the quality benchmark's sets (1000 per configuration, seeds 1001 and 3001,
# the same sets as test/bench/quality.sh) with each policy, with the shipped
# MLF and AF and, when the git history is at hand, the first shipped MLF
# (commit 52f3aea), which stalls on some (3000, 12) sets.
# Usage: bash test/bench/leftover.sh [-n SETS (1000)] [-c "N_MAX K_MAX SEED" ...] [MODEL FILE ...]
#        (MODEL "old" is the first shipped MLF; default: the shipped MLF and AF, and old)
set -euo pipefail
cd "$(dirname "$0")/../.."
sets=1000
cfgs=()
while getopts "n:c:" o; do
	case $o in
		n) sets=$OPTARG ;;
		c) cfgs+=("$OPTARG") ;;
		*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ ${#cfgs[@]} -gt 0 ] || cfgs=("1000 4 1001" "3000 12 3001")
make -s cli >/dev/null
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(weights/mlf_mog2d.safetensors weights/af_mog2d.safetensors old)
old=$(mktemp --suffix=.safetensors)
trap 'rm -f "$old"' EXIT
for i in "${!models[@]}"; do
	if [ "${models[$i]}" = old ]; then
		git show 52f3aea:weights/mlf_mog2d.safetensors >"$old"
		models[$i]=$old
	fi
done
echo "| model | sets (n_max, k_max) | policy | ARI | NMI | k-MAE | LL | leftover points |"
echo "|---|---|---|---|---|---|---|---|"
for model in "${models[@]}"; do
	name=$([ "$model" = "$old" ] && echo "mlf_mog2d of 52f3aea" || basename "$model" .safetensors)
	for cfg in "${cfgs[@]}"; do
		read -r nmax kmax seed <<<"$cfg"
		for lp in own best first; do
			build/dac-cli eval --model "$model" --sets "$sets" --n-max "$nmax" --k-max "$kmax" --seed "$seed" --leftover "$lp" |
				awk -v n="$name" -v c="$sets ($nmax, $kmax)" -v p="$lp" \
					'/^ARI/ {printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", n, c, p, $2, $4, $6, $8, $17}'
		done
	done
done
