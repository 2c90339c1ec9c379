#!/usr/bin/env bash
# Clustering benchmark: time per set in the core (dac-cli eval) and through
# the window function over many groups in one query (same sets: dac_generate
# draws what dac-cli eval draws for a seed), the SQL path's overhead as a
# ratio, and ARI / NMI / k-MAE / LL of the shipped models.  Prints a
# markdown table.  Needs the extension built and installed (test/demo.sh
# does both).  Usage: bash test/bench/sql_bench.sh [sets_small] [sets_large]
set -euo pipefail
cd "$(dirname "$0")/../.."
small=${1:-100}
large=${2:-30}
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
make -s PG_CONFIG=$PG_CONFIG cli >/dev/null

core_row() { # model n_max k_max sets seed
	build/dac-cli eval --model "weights/$1.safetensors" --n-max "$2" --k-max "$3" --sets "$4" --seed "$5" \
		| awk '/^ARI/ {print $2, $4, $6, $8, $10}'
}

out=$(mktemp)
echo "| model | sets (n_max, k_max) | path | s/set | SQL / core | ARI | NMI | k-MAE | LL |" >"$out"
echo "|---|---|---|---|---|---|---|---|---|" >>"$out"
for cfg in "1000 4 $small 101" "3000 12 $large 102"; do
	set -- $cfg
	nmax=$1 kmax=$2 sets=$3 seed=$4
	for model in mlf_mog2d af_mog2d; do
		read -r ari nmi kmae ll spc <<<"$(core_row $model $nmax $kmax $sets $seed)"
		sql=$(pg_virtualenv -t -v 15 psql -X -q -At -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE t AS SELECT set_id, ord, label, x FROM dac_generate('mog', $sets, $nmax, $kmax, $seed);
SELECT dac_cluster_agg(x, '$model') FROM t WHERE set_id = 1;   -- load the model once
SELECT clock_timestamp() AS t0 \gset
CREATE TABLE r AS SELECT set_id, ord, label, dac_cluster(x, '$model') OVER (PARTITION BY set_id) AS c FROM t;
SELECT 'RESULT ' || round((extract(epoch FROM clock_timestamp() - :'t0') / $sets)::numeric, 4) || ' ' ||
       round(avg(ari)::numeric, 4) || ' ' || round(avg(nmi)::numeric, 4) || ' ' || round(avg(kerr)::numeric, 3)
FROM (SELECT dac_ari(array_agg(label ORDER BY ord), array_agg(c ORDER BY ord)) AS ari,
             dac_nmi(array_agg(label ORDER BY ord), array_agg(c ORDER BY ord)) AS nmi,
             abs(count(DISTINCT label) - count(DISTINCT c)) AS kerr
      FROM r GROUP BY set_id) s;
SQL
)
		read -r _ sspc sari snmi skmae <<<"$(echo "$sql" | grep '^RESULT ')"
		ratio=$(awk -v a="$sspc" -v b="$spc" 'BEGIN {printf "%.2f", a / b}')
		echo "| $model | $sets ($nmax, $kmax) | core (dac-cli) | $spc | | $ari | $nmi | $kmae | $ll |" >>"$out"
		echo "| $model | $sets ($nmax, $kmax) | SQL window function | $sspc | $ratio | $sari | $snmi | $skmae | |" >>"$out"
	done
done
cat "$out"
rm -f "$out"
