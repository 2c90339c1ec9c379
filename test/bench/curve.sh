#!/usr/bin/env bash
# Quality against training time: scores checkpoints (weights files written by
# `dac-cli train --save-every`, copied aside as they appear) on fixed sets, and
# prints a markdown row per file: its step and CPU seconds (from the file's
# training record, this stage only) and ARI / NMI / k-MAE / LL at (1000, 4) and
# (3000, 12), with the true-parameter oracle LL of the same sets.
# Usage: bash test/bench/curve.sh [-s SETS_SMALL] [-l SETS_LARGE] FILE...
set -euo pipefail
cd "$(dirname "$0")/../.."
small=300
large=200
while getopts "s:l:" o; do
	case $o in
		s) small=$OPTARG ;;
		l) large=$OPTARG ;;
		*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
make -s cli >/dev/null
echo "| file | step | CPU s | ($small sets of (1000, 4)) ARI / NMI / k-MAE / LL | ($large sets of (3000, 12)) ARI / NMI / k-MAE / LL |"
echo "|---|---|---|---|---|"
oracles=()
for f in "$@"; do
	rec=$(head -c 4000 "$f" | grep -ao 'dac.training":"[^}]*' | head -1 | tr -d '\\')
	step=$(grep -o '"steps": [0-9]*' <<<"$rec" | grep -o '[0-9]*$' || echo "?")
	cpu=$(grep -o '"cpu_s": [0-9.]*' <<<"$rec" | grep -o '[0-9.]*$' || echo "?")
	row="| $(basename "$f") | $step | $cpu"
	oracles=()
	for cfg in "1000 4 $small 1001" "3000 12 $large 3001"; do
		read -r nmax kmax sets seed <<<"$cfg"
		out=$(build/dac-cli eval --model "$f" --sets "$sets" --n-max "$nmax" --k-max "$kmax" --seed "$seed")
		row+=" | $(awk '/^ARI/ {printf "%.4f / %.4f / %.3f / %.4f", $2, $4, $6, $8}' <<<"$out")"
		oracles+=("$(awk '/^oracle/ {print $NF}' <<<"$out")")
	done
	echo "$row |"
done
echo
echo "Oracle LL (true parameters) of these sets: ${oracles[0]:-?} at (1000, 4), ${oracles[1]:-?} at (3000, 12)."
