#!/usr/bin/env bash
# The graph stage tuned as the benchmark tunes Leiden (docs/embeddings.md,
# "Tried after 0.16.0"): dac.graph_neighbors x dac.graph_resolution x
# dac.graph_merge, each setting's clustering of the tuned Leiden's 40
# tuning sets (training images) and of the benchmark's 100 test sets per
# suite, through the extension with mlf_embed; then the setting of best
# tuning ARI per suite against the tuned Leiden, and the consensus of
# several settings.  Needs a benchmark directory made by
# test/bench/embeddings.sh (features.npz) and the extension installed.
# Usage: bash test/bench/graph_tune.sh FEATURES_DIR [OUT (/tmp/dac_graph_tune)]
# About 10 minutes per source on one core.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$1
out=${2:-/tmp/dac_graph_tune}
py=/usr/bin/python3
mkdir -p "$out"
chmod 755 "$out"
[ -f "$out/leiden.json" ] || OMP_NUM_THREADS=1 $py test/bench/graph_tune.py sets "$src" "$out"
chmod 644 "$out"/*.tsv
rm -f "$out/grid.jsonl"
pg_virtualenv -t -v 15 bash -s "$out" "$PWD" <<'SH'
set -euo pipefail
out=$1
repo=$2
psql -X -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac"
for g in 5 10 15; do
	for r in 0.02 0.05 0.1 0.2; do
		for m in 0 0.04; do
			tag=g${g}_r${r}_m${m}
			bash "$repo/test/bench/cluster_sets.sh" "$out" "$out" "$tag" "SET dac.graph_neighbors = $g" \
				"SET dac.graph_resolution = $r" "SET dac.graph_merge = $m"
			/usr/bin/python3 "$repo/test/bench/graph_tune.py" score "$out" "$tag" >> "$out/grid.jsonl"
		done
	done
done
SH
$py test/bench/graph_tune.py table "$out" "$out/grid.jsonl"
for tags in g5_r0.05_m0.04,g5_r0.1_m0.04 \
	g5_r0.05_m0.04,g5_r0.1_m0.04,g5_r0.05_m0,g5_r0.1_m0,g5_r0.2_m0.04,g5_r0.02_m0.04 \
	g5_r0.05_m0.04,g5_r0.1_m0.04,g10_r0.1_m0.04,g10_r0.2_m0.04,g15_r0.1_m0.04,g15_r0.2_m0.04; do
	OMP_NUM_THREADS=1 $py test/bench/graph_tune.py consensus "$out" "$tags" 0.5
done
