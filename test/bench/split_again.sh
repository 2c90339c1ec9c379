#!/usr/bin/env bash
# Each found cluster clustered again alone (docs/embeddings.md, "Tried after
# 0.24.0"): for every set file of graph_tune.py's set directories (tune_*.tsv,
# test_*.tsv), dac's clusters with no model named (c0) and, for each cluster
# of 20 rows or more, that cluster's rows clustered again as a group of their
# own (c1); then split_again.py scores the variants (split every cluster the
# second pass cuts; only when its second part holds a share of the cluster;
# only in groups of that many clusters or more).
# Usage: bash test/bench/split_again.sh OUT SETS_DIR...   (inside no
# pg_virtualenv: it makes its own; the extension installed)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1
shift
mkdir -p "$out"
chmod a+rwx "$out"
for d in "$@"; do chmod -R a+rX "$d"; done
pg_virtualenv -t -v 15 bash -s "$out" "$@" <<'SH'
set -euo pipefail
out=$1
shift
psql -X -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac"
for d in "$@"; do
	src=$(basename "$d")
	for f in "$d"/tune_*.tsv "$d"/test_*.tsv; do
		b=$(basename "$f" .tsv)
		psql -X -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS v" \
			-c "CREATE TABLE v (s int, c int, x real[])" -c "\copy v FROM '$f'"
		psql -X -q -A -t -F ' ' -c "SET client_min_messages = warning" -c "
			WITH a AS (SELECT s, c, x, dac_cluster(x) OVER (PARTITION BY s) AS c0 FROM v)
			SELECT s, c, c0, CASE WHEN count(*) OVER (PARTITION BY s, c0) >= 20
			                      THEN dac_cluster(x) OVER (PARTITION BY s, c0) ELSE 1 END
			FROM a" > "$out/r_${src}_$b.txt"
	done
done
SH
for d in "$@"; do
	/usr/bin/python3 test/bench/split_again.py "$out" "$(basename "$d")"
done
