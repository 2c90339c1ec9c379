#!/usr/bin/env bash
# Two builds of dac-cli on the same sets, interleaved: the figures each prints (which a
# refactor must leave the same) and seconds per set, min / median of ROUNDS runs each.
# Usage: bash test/bench/compare_cli.sh OLD_DAC_CLI NEW_DAC_CLI [ROUNDS (5)] [LABELLED_FILE]
#   e.g. git worktree add /tmp/old REV && make -C /tmp/old cli &&
#        bash test/bench/compare_cli.sh /tmp/old/build/dac-cli build/dac-cli
# LABELLED_FILE (label v1 ... vd per line; default: Fashion-MNIST test images of classes 6-9,
# written by test/data/fashion_text.py) adds an embeddings row with the database's stages;
# generated embeddings of 384 and 1,536 dimensions follow (the set normalisation's share grows
# with the width).
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$1
new=$2
rounds=${3:-5}
lab=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$lab" ]; then
	lab=$tmp/labelled.txt
	/usr/bin/python3 test/data/fashion_text.py 400 6,7,8,9 > "$lab"
fi
echo "| command (\`dac-cli eval …\`) | figures (the same from both) | old s/set, min / median | new s/set, min / median |"
echo "|---|---|---|---|"
for cfg in "--model weights/mlf_mog2d.safetensors --sets 100 --n-max 1000 --k-max 4 --seed 1001" \
	"--model weights/mlf_fast2d.safetensors --sets 40 --n-max 3000 --k-max 12 --seed 3001 --em 100" \
	"--model weights/mlf_warped2d.safetensors --data warped --sets 30 --n-max 1000 --k-max 4 --seed 5" \
	"--model weights/mlf_embed.safetensors --labelled $lab --sets 60 --n-max 300 --k-max 4 --seed 99 --kmeans 10 --k-search 2 --graph 5" \
	"--model weights/mlf_embed.safetensors --data embed --data-dim 384 --sets 40 --n-max 300 --k-max 4 --seed 7 --kmeans 10 --k-search 2 --graph 5" \
	"--model weights/mlf_embed.safetensors --data embed --data-dim 1536 --sets 40 --n-max 300 --k-max 4 --seed 7 --kmeans 10 --k-search 2 --graph 5" \
	"--model weights/mlf_embed.safetensors --data embed --data-dim 1536 --sets 20 --n-max 1000 --k-max 12 --seed 7 --kmeans 10 --k-search 2 --graph 5"; do
	: > $tmp/old
	: > $tmp/new
	for _ in $(seq "$rounds"); do
		"$old" eval $cfg > $tmp/o.txt
		"$new" eval $cfg > $tmp/n.txt
		grep -o "s/set [0-9.]*" $tmp/o.txt | awk '{print $2}' >> $tmp/old
		grep -o "s/set [0-9.]*" $tmp/n.txt | awk '{print $2}' >> $tmp/new
	done
	fo=$(grep -o "ARI [0-9.]*  NMI [0-9.]*  k-MAE [0-9.]*  LL [-0-9.nan]*" $tmp/o.txt)
	fn=$(grep -o "ARI [0-9.]*  NMI [0-9.]*  k-MAE [0-9.]*  LL [-0-9.nan]*" $tmp/n.txt)
	[ "$fo" = "$fn" ] || fn="$fn (old: $fo)"
	stat() { sort -g "$1" | awk '{a[NR] = $1} END {printf "%.5f / %.5f", a[1], a[int((NR + 1) / 2)]}'; }
	echo "| \`${cfg/$lab/FILE}\` | $fn | $(stat $tmp/old) | $(stat $tmp/new) |"
done
