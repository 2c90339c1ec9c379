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
# it stays one cluster): the margin's second criterion.
# Usage: bash test/bench/graph_excess.sh DIR [MARGIN...]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
shift
record=/tmp/dac_graph_excess.txt
. test/bench/patched_build.sh test/bench/patches/graph_excess.patch
kinds_copy "$dir"
rm -f "$record"
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
