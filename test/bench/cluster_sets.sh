#!/usr/bin/env bash
# Clusters every set file of a directory made by graph_tune.py (tune_*.tsv and
# test_*.tsv: set, label, vector) through the extension with no model named,
# each set one group, after the SQL commands given; writes
# OUT/r_<TAG>_<file>.txt (set, label, cluster), as graph_tune.py score and
# table read them.  Runs against the server of the caller's environment (call
# it inside pg_virtualenv), in a database where dac is installed.
# Usage: bash test/bench/cluster_sets.sh SETS_DIR OUT TAG [SQL...]
set -euo pipefail
sets=$1
out=$2
tag=$3
shift 3
cmds=(-c "SET client_min_messages = warning")
for sql in "$@"; do
	cmds+=(-c "$sql")
done
for f in "$sets"/tune_*.tsv "$sets"/test_*.tsv; do
	b=$(basename "$f" .tsv)
	psql -X -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS v" \
		-c "CREATE TABLE v (s int, c int, x real[])" -c "\copy v FROM '$f'"
	psql -X -q -A -t -F ' ' "${cmds[@]}" -c "SELECT s, c, dac_cluster(x) OVER (PARTITION BY s) FROM v" > "$out/r_${tag}_$b.txt"
done
