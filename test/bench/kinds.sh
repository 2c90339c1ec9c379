#!/usr/bin/env bash
# The kinds benchmark (test/bench/kinds.py): groups of tabular rows, pixels,
# embeddings and 2-D shapes from offline sources, each kind's sources split
# into development and held-out ones; the untuned methods and the ceilings
# given k; dac's default with no k and given the true k, every group one
# partition of the window function.  Prints one table per kind.
# Needs python3-sklearn, python3-leidenalg, dataset-fashion-mnist and R's
# palmerpenguins, mclust, MASS and mlbench (r-cran-*).  Run it inside
# pg_virtualenv, where dac is installed:
#   pg_virtualenv -t -v 15 bash test/bench/kinds.sh DIR [SETS (20)] [SEED (1)] [LABEL (dac)] [SETTINGS]
# LABEL names the build's rows (DIR/LABEL.csv, .jsonl): run it again with another build
# installed and another label, and the tables show both.  SETTINGS: dac settings the
# clusterings run under, as PGOPTIONS takes them ("-c dac.k_search=0"); DAC_KINDS_GIVEN_K=0
# leaves out the rows given the true k, DAC_KINDS_DEFAULT=0 the default's; DAC_KINDS_SHARES=dirichlet, where DIR has no groups
# yet, draws each group's class shares from Dir(1) instead of equal ones.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$1
sets=${2:-20}
seed=${3:-1}
label=${4:-dac}
export PGOPTIONS=${5:-}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ -s "$dir/groups.csv" ] || /usr/bin/python3 test/bench/kinds.py prepare "$dir" "$sets" "$seed"
[ -s "$dir/baselines.jsonl" ] || /usr/bin/python3 test/bench/kinds.py baselines "$dir"
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS dac" \
	-c "DROP TABLE IF EXISTS kg" \
	-c "CREATE TABLE kg (kind text, source text, split text, s int, ord int, label int, x real[])" \
	-c "\copy kg FROM '$dir/groups.csv' CSV" \
	-c "CREATE TABLE IF NOT EXISTS kk AS SELECT kind, source, split, s, count(DISTINCT label)::int AS k FROM kg GROUP BY 1, 2, 3, 4"
rm -f "$dir/$label.csv" "$dir/$label.jsonl"
run() {
	local method=$1 call=$2
	q -c "SELECT DISTINCT kind || ' ' || source || ' ' || split FROM kg ORDER BY 1" | while read -r kind source split; do
		local t0 t1 n
		t0=$(date +%s.%N)
		q -F ',' -c "SELECT '$method', kind, source, split, s, ord, $call OVER (PARTITION BY s), 0
		             FROM kg JOIN kk USING (kind, source, split, s)
		             WHERE kind = '$kind' AND source = '$source' AND split = '$split'" > "$dir/part.csv"
		t1=$(date +%s.%N)
		n=$(q -c "SELECT count(DISTINCT s) FROM kg WHERE kind = '$kind' AND source = '$source' AND split = '$split'")
		awk -F, -v OFS=, -v s="$(echo "($t1 - $t0) / $n" | bc -l)" '{$8 = s; print}' "$dir/part.csv" >> "$dir/$label.csv"
	done
}
[ "${DAC_KINDS_DEFAULT:-1}" = 0 ] || run "$label default" "dac_cluster(x)"
[ "${DAC_KINDS_GIVEN_K:-1}" = 0 ] || run "$label given true k" "dac_cluster(x, k => kk.k)"
/usr/bin/python3 test/bench/kinds.py score "$dir" "$dir/$label.csv"
/usr/bin/python3 test/bench/kinds.py report "$dir"
