#!/usr/bin/env bash
# Small groups of one class (docs/kinds.md, "The one-cluster test"): groups
# of 12 to 99 rows drawn from a single class of each kinds benchmark source
# but the shapes (kinds.py small; development and held-out sources), where
# the right answer is one cluster.  Each REV (a git revision) and HEAD are
# built from `git archive`, installed in turn, and cluster every group with
# the window function (no model named); prints, per kind, split and size
# band, how many groups came back as more than one cluster.  Installs this
# checkout's own build again at the end.  DIR: where the groups are written
# (DIR/small.csv, made once; about a minute), a minute a build after that.
# Usage: bash test/bench/small_one_class.sh DIR [REV...]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
mkdir -p "$1"
dir=$(cd "$1" && pwd)
shift
PG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
[ -s "$dir/small.csv" ] || /usr/bin/python3 test/bench/kinds.py small "$dir" 2 5
rm -rf test/bench/__pycache__
work=$(mktemp -d)
trap 'rm -rf "$work"; make -C "$root" -s install PG_CONFIG="$PG" >/dev/null' EXIT
revs=("$@" HEAD)
for rev in "${revs[@]}"; do
	mkdir -p "$work/$rev"
	git archive "$rev" | tar -x -C "$work/$rev"
	make -C "$work/$rev" -s -j2 PG_CONFIG="$PG" >/dev/null 2>&1
done
cat > "$work/count.sql" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE small (kind text, source text, split text, s int, rows int, ord int, label int, x real[]);
\\copy small FROM '$dir/small.csv' CSV
SELECT kind, split, CASE WHEN rows < 40 THEN '12-39' ELSE '40-99' END,
       sum((k > 1)::int) || ' / ' || count(*)
FROM (SELECT kind, split, s, rows, max(c) AS k
      FROM (SELECT kind, split, s, rows, dac_cluster(x) OVER (PARTITION BY s) AS c FROM small) w
      GROUP BY 1, 2, 3, 4) g
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SQL
chmod -R a+rX "$work" "$dir"
for rev in "${revs[@]}"; do
	make -C "$work/$rev" -s install PG_CONFIG="$PG" >/dev/null
	if [ "$(id -u)" = 0 ]; then
		su postgres -c "pg_virtualenv -t -v 15 psql -X -q -At -v ON_ERROR_STOP=1 -f '$work/count.sql'"
	else
		pg_virtualenv -t -v 15 psql -X -q -At -v ON_ERROR_STOP=1 -f "$work/count.sql"
	fi | grep '|' | sed "s/^/$rev|/" >> "$work/counts"
done
printf '| kind | split | rows |'
printf ' %s |' "${revs[@]}"
printf '\n|---|---|---|'
printf -- '---|%.0s' "${revs[@]}"
printf '\n'
awk -F'|' -v revs="${revs[*]}" '
	{ key = $2 "|" $3 "|" $4; if (!(key in seen)) { seen[key] = 1; order[++n] = key } v[key, $1] = $5 }
	END {
		nr = split(revs, r, " ")
		for (i = 1; i <= n; i++) {
			split(order[i], f, "|")
			line = "| " f[1] " | " f[2] " | " f[3] " |"
			for (j = 1; j <= nr; j++) line = line " " v[order[i], r[j]] " |"
			print line
		}
	}' "$work/counts"
