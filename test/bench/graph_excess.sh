#!/usr/bin/env bash
# The one-cluster test's graph margin (docs/kinds.md, "The neighbour graph's
# test"): builds a copy of this checkout's HEAD with
# test/bench/patches/graph_excess.patch (each group that reaches the graph's
# test appends its sample size, its graph's modularity and the Gaussians' to
# /tmp/dac_graph_excess.txt), installs it, runs the kinds benchmark's default
# once, then installs this checkout's own build again.  Prints, per kind and
# split, the largest excess of a group of one class and the excesses of the
# groups of 2+ classes: the margin is chosen on development sources (midway
# between the largest one-class excess and the least excess of a group of 2+
# classes above it) and read on the held-out ones.  DIR holds the kinds
# benchmark's groups (kinds.sh makes them); about 2 minutes.  Each MARGIN
# given runs the default again with that margin (from the switch file the
# patch reads) and prints its mean ARI over every group of tables, pixels and
# embeddings, development and held out (a group of one class scores 1 where
# it stays one cluster): the margin's second criterion.  Then the same on
# test/cli.sh's 40 Fashion-MNIST sets of classes 6-9 (784-d pixels, a source
# no margin was chosen on), through a patched dac-cli: the excesses of their
# one-class and 2+ class sets, and the mean ARI at each MARGIN.
# Usage: bash test/bench/graph_excess.sh DIR [MARGIN...]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
shift
record=/tmp/dac_graph_excess.txt
. test/bench/patched_build.sh test/bench/patches/graph_excess.patch
kinds_copy "$dir"
rm -f "$record" "$switch"
touch "$record"
chmod a+rw "$record"
as_pg "DAC_KINDS_GIVEN_K=0 pg_virtualenv -t -v 15 bash test/bench/kinds.sh '$out' 24 2 excess" >/dev/null
/usr/bin/python3 test/bench/graph_excess.py "$out" "$record"
for margin in "$@"; do
	echo "$margin" > "$switch"
	chmod a+r "$switch"
	as_pg "DAC_KINDS_GIVEN_K=0 pg_virtualenv -t -v 15 bash test/bench/kinds.sh '$out' 24 2 'm$margin'" >/dev/null
	/usr/bin/python3 test/bench/graph_excess.py --score "$out" "m$margin"
done
cli=$(mktemp -d)
scratch="$scratch $cli"
git archive HEAD | tar -x -C "$cli"
patch -s -d "$cli" -p1 < test/bench/patches/graph_excess.patch
make -C "$cli" -s cli PG_CONFIG="$PG" >/dev/null
/usr/bin/python3 test/data/fashion_text.py 400 6,7,8,9 > "$cli/fm.txt"
fm_eval() {
	"$cli/build/dac-cli" eval --model weights/mlf_embed.safetensors --labelled "$cli/fm.txt" --sets 40 --seed 5 \
		--n-max 300 --k-max 4 --kmeans 10 --k-search 2 --graph 5 --resolution 0.05 "$@"
}
rm -f "$switch"
: > "$record"
fm_eval --per-set > "$cli/sets.txt"
/usr/bin/python3 test/bench/graph_excess.py --cli "$cli/sets.txt" "$record"
for margin in "$@"; do
	echo "$margin" > "$switch"
	echo "margin $margin: test/cli.sh's Fashion-MNIST sets, mean ARI $(fm_eval | awk '/^ARI/ {print $2}')"
done
