#!/usr/bin/env bash
# Groups of few rows (docs/kinds.md, "The one-cluster test"): groups of 12 to
# 99 rows drawn from one class of a kinds benchmark source, where the right
# answer is one cluster, and as many of two classes, half the rows each (every
# source but the shapes; kinds.py small; development and held-out sources).
# Each REV (a git revision) and HEAD are built from `git archive`, installed
# in turn, and cluster every group with the window function (no model named);
# prints, per kind, split and size band: groups of one class answered as more
# than one cluster; groups of two answered as one cluster, and their mean
# ARI; the mean ARI over every group (one of one class: 1 where it stays
# one cluster, as the kinds benchmark scores it).  Installs this checkout's
# own build again at the end.  Beside them, the untuned methods not given k
# (kinds.py small_baselines: k-means + silhouette, a Gaussian mixture by BIC,
# Leiden at its defaults): the ARI of the groups of two classes; over every
# group, as dac's last figure.  DIR:
# where the groups and the methods' figures are written (DIR/small.csv,
# DIR/small_baselines.csv, made once; about five minutes), a minute a build
# after that.
# DAC_FEW_SETTINGS: dac settings every build's clusterings run under, as
# PGOPTIONS takes them ("-c dac.graph_neighbors=0 -c dac.k_search=0": the
# default without its graph stage and count searches).
# Usage: bash test/bench/few_rows.sh DIR [REV...]
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p "$1"
dir=$(cd "$1" && pwd)
shift
[ -s "$dir/small.csv" ] || /usr/bin/python3 test/bench/kinds.py small "$dir" 2 5
[ -s "$dir/small_baselines.csv" ] || /usr/bin/python3 test/bench/kinds.py small_baselines "$dir"
rm -rf test/bench/__pycache__
. test/bench/build_revs.sh "$@"
cat > "$work/count.sql" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE small (kind text, source text, split text, s int, rows int, ord int, label int, x real[]);
\\copy small FROM '$dir/small.csv' CSV
SELECT kind, split, CASE WHEN rows < 40 THEN '12-39' ELSE '40-99' END,
       sum((classes = 1 AND k > 1)::int) || ' / ' || sum((classes = 1)::int) || '; ' ||
       sum((classes = 2 AND k = 1)::int) || ' / ' || sum((classes = 2)::int) || ', ' ||
       round(avg(ari) FILTER (WHERE classes = 2)::numeric, 3) || '; ' ||
       round(avg(CASE WHEN classes = 1 THEN (k = 1)::int ELSE ari END)::numeric, 3)
FROM (SELECT kind, split, s, rows, max(c) AS k, count(DISTINCT label) AS classes,
             dac_ari(array_agg(label ORDER BY ord), array_agg(c ORDER BY ord)) AS ari
      FROM (SELECT kind, split, s, rows, ord, label, dac_cluster(x) OVER (PARTITION BY s) AS c FROM small) w
      GROUP BY 1, 2, 3, 4) g
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SQL
chmod -R a+rX "$work" "$dir"
export PGOPTIONS=${DAC_FEW_SETTINGS:-}
for rev in "${revs[@]}"; do
	make -C "$work/$rev" -s install PG_CONFIG="$PG" >/dev/null
	if [ "$(id -u)" = 0 ]; then
		su -w PGOPTIONS postgres -c "pg_virtualenv -t -v 15 psql -X -q -At -v ON_ERROR_STOP=1 -f '$work/count.sql'"
	else
		pg_virtualenv -t -v 15 psql -X -q -At -v ON_ERROR_STOP=1 -f "$work/count.sql"
	fi | grep '|' | sed "s/^/$rev|/" >> "$work/counts"
done
printf '| kind | split | rows (one class split; two classes as one, their ARI; every group, ARI) |'
printf ' %s |' "${revs[@]}"
methods=("k-means + silhouette" "Gaussian mixture + BIC" "Leiden at its defaults")
printf ' %s (two classes, ARI; every group, ARI) |' "${methods[@]}"
printf '\n|---|---|---|'
printf -- '---|%.0s' "${revs[@]}" "${methods[@]}"
printf '\n'
awk -F'|' -v revs="${revs[*]}" -v methods="$(IFS='|'; echo "${methods[*]}")" '
	FNR == NR { split($0, b, ","); base[b[1] "|" b[2] "|" b[3], b[4]] = b[5]; next }
	{ key = $2 "|" $3 "|" $4; if (!(key in seen)) { seen[key] = 1; order[++n] = key } v[key, $1] = $5 }
	END {
		nm = split(methods, m, "|")
		nr = split(revs, r, " ")
		for (i = 1; i <= n; i++) {
			split(order[i], f, "|")
			line = "| " f[1] " | " f[2] " | " f[3] " |"
			for (j = 1; j <= nr; j++) line = line " " v[order[i], r[j]] " |"
			for (j = 1; j <= nm; j++) line = line " " base[order[i], m[j]] " |"
			print line
		}
	}' "$dir/small_baselines.csv" "$work/counts"
