#!/usr/bin/env bash
# Validation suites for dac.graph_merge (docs/embeddings.md, 0.14.0): sets of
# Fashion-MNIST *training* images (the embeddings benchmark's PCA-32 and CNN
# features; no test image), clustered through the extension by mlf_embed
# with dac.graph_merge = 0 (0.13.0's clusters) and at the defaults; prints
# ARI / k-MAE per suite.  Needs the two benchmark directories made by
# test/bench/embeddings.sh (features.npz).
# Usage: bash test/bench/graph_merge.sh [PCA_DIR (/tmp/dac_pca)] [CNN_DIR (/tmp/dac_cnn)] [OUT (/tmp/dac_graph_merge)]
set -euo pipefail
cd "$(dirname "$0")/../.."
pca=${1:-/tmp/dac_pca}
cnn=${2:-/tmp/dac_cnn}
out=${3:-/tmp/dac_graph_merge}
mkdir -p "$out"
chmod 755 "$out"
[ -f "$out/v_cnn_all_large.tsv" ] || /usr/bin/python3 test/bench/graph_merge.py sets "$pca" "$cnn" "$out"
chmod 644 "$out"/*.tsv
pg_virtualenv -t -v 15 bash -s "$out" <<'SH'
set -euo pipefail
out=$1
psql -X -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac"
for f in "$out"/v_*.tsv; do
	b=$(basename "$f" .tsv)
	psql -X -q -c "DROP TABLE IF EXISTS v" -c "CREATE TABLE v (s int, c int, x real[])" -c "\copy v FROM '$f'"
	for tag in 0.13.0 0.14.0; do
		set=""
		[ "$tag" = 0.13.0 ] && set="SET dac.graph_merge = 0;"
		psql -X -q -A -t -F ' ' -c "$set SELECT s, c, dac_cluster(x) OVER (PARTITION BY s) FROM v" > "$out/r_${tag}_$b.txt"
	done
done
SH
/usr/bin/python3 test/bench/graph_merge.py table "$out" 0.13.0 0.14.0
