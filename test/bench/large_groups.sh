#!/usr/bin/env bash
# Large groups of real embeddings (docs/embeddings.md): whole Fashion-MNIST
# files (4,000 to 60,000 rows; PCA-32, the CNN's 64-d embeddings, 784-d
# pixels) each clustered as one group through the extension with no model
# named (`dac_cluster(x) OVER ()`, the default settings: a sample of 1,000
# rows clustered, every row assigned, k-means steps over all rows), beside
# k-means given the true k, k-means + silhouette and Leiden on the same
# rows.  Needs the benchmark directories made by test/bench/embeddings.sh
# (features.npz) and the extension installed.
# Usage: bash test/bench/large_groups.sh PCA_DIR CNN_DIR [OUT (/tmp/dac_large_groups)]
# About 30 minutes on one core (most of it the baselines).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${3:-/tmp/dac_large_groups}
py=/usr/bin/python3
mkdir -p "$out"
chmod 755 "$out"
[ -f "$out/pixels_train05.tsv" ] || OMP_NUM_THREADS=1 $py test/bench/large_groups.py groups "$1" "$2" "$out"
chmod 644 "$out"/*.tsv
pg_virtualenv -t -v 15 bash -s "$out" <<'SH'
set -euo pipefail
out=$1
psql -X -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac"
for f in "$out"/*_*.tsv; do
	b=$(basename "$f" .tsv)
	psql -X -q -c "DROP TABLE IF EXISTS v" -c "CREATE TABLE v (id serial, c int, x real[])" \
		-c "\copy v (c, x) FROM '$f'" -c "VACUUM ANALYZE v"
	t0=$(date +%s.%N)
	psql -X -q -A -t -c "SELECT k FROM (SELECT id, dac_cluster(x) OVER () AS k FROM v) s ORDER BY id" \
		> "$out/dac_$b.txt"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "{\"seconds\": %.3f}\n", b - a }' > "$out/dac_$b.json"
done
SH
[ -f "$out/baselines.jsonl" ] && [ "$(wc -l < "$out/baselines.jsonl")" = 48 ] ||
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $py test/bench/large_groups.py baselines "$out"
$py test/bench/large_groups.py table "$out"
