#!/usr/bin/env bash
# Rows smoothed on their kNN graph before the network sees them, the graph
# stage left on the rows as they are (docs/embeddings.md, "Tried after
# 0.17.0").  Builds a copy of this checkout with test/bench/patches/
# smooth_start.patch, installs it, clusters graph_tune.py's tuning and test
# sets through the extension (no model named) at each smoothing, then installs
# this checkout's own build again.  Needs graph_tune.py's set files.
# Usage: bash test/bench/smooth_start.sh SETS_DIR OUT
# About 6 minutes on one core (seven settings).  DAC_BENCH_SMOOTH: the settings
# ("KN T A", comma-separated; "0 0 0" is dac as it is); DAC_BENCH_SET: an SQL
# command run before each clustering (e.g. "SET dac.graph_neighbors = 0").
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
sets=$1
out=$2
PG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
mkdir -p "$out"
src=$(mktemp -d)
trap 'rm -rf "$src"; rm -f /tmp/dac_bench_smooth /tmp/dac_bench_smooth_graph; make -C "$root" -s install PG_CONFIG="$PG" >/dev/null' EXIT
git archive HEAD | tar -x -C "$src"
patch -s -d "$src" -p1 < test/bench/patches/smooth_start.patch
make -C "$src" -s -j2 PG_CONFIG="$PG" >/dev/null
make -C "$src" -s install PG_CONFIG="$PG" >/dev/null
chmod -R a+rX "$out" "$sets"
chmod a+w "$out"
IFS=, read -r -a settings <<< "${DAC_BENCH_SMOOTH:-0 0 0,10 1 1,10 2 0.5,10 3 0.5,5 2 0.5,15 2 0.5,10 2 1}"
tags=()
for v in "${settings[@]}"; do
	echo "$v" > /tmp/dac_bench_smooth
	chmod a+r /tmp/dac_bench_smooth
	tag=s${v// /_}
	tags+=("$tag")
	pg_virtualenv -t -v 15 bash -s "$out" "$sets" "$tag" "${DAC_BENCH_SET:-SET client_min_messages = warning}" <<'SH'
set -euo pipefail
out=$1
sets=$2
tag=$3
setting=$4
psql -X -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac"
for f in "$sets"/tune_*.tsv "$sets"/test_*.tsv; do
	b=$(basename "$f" .tsv)
	psql -X -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS v" \
		-c "CREATE TABLE v (s int, c int, x real[])" -c "\copy v FROM '$f'"
	psql -X -q -A -t -F ' ' -c "$setting" -c "SELECT s, c, dac_cluster(x) OVER (PARTITION BY s) FROM v" > "$out/r_${tag}_$b.txt"
done
SH
done
/usr/bin/python3 test/bench/smooth_start.py "$out" "${tags[@]}"
