#!/usr/bin/env bash
# Small groups at the speed of large ones (issue "Scale", docs/scaling.md):
# one query clusters every group of a table with the window function
# (dac_cluster(x) OVER (PARTITION BY grp), no model named).  Points per
# second for groups of up to 30 points (9-29, 19.5 on average) against groups
# of up to 1,000 points (300-999), both from the paper's 2-D generator (k_max
# 4), measured side by side, 5 rounds alternating; min and median.  The small
# groups are clustered at the defaults (dac.small_group_models maps mlf_mog2d
# to mlf_small2d for groups of at most dac.small_group_size points) and with
# the mapping off (mlf_mog2d: 0.5.0's default), then through
# dac_cluster_agg and dac_cluster_ids at the defaults; ARI of each against the
# generator's labels.  Needs the extension installed.
# Usage: bash test/bench/small_groups.sh [SMALL_GROUPS (20000)] [LARGE_GROUPS (200)]
set -euo pipefail
cd "$(dirname "$0")/../.."
# OpenBLAS picks its kernels for this CPU (the module and dac-cli set them); a
# shell's OPENBLAS_CORETYPE would override that for every server started here
unset OPENBLAS_CORETYPE
pg_virtualenv -t -v 15 bash -s "${1:-20000}" "${2:-200}" <<'SH'
set -euo pipefail
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
  -c "CREATE TABLE small AS SELECT set_id AS grp, ord AS id, label, x FROM dac_generate('mog', $1, 30, 4, 4001)" \
  -c "CREATE TABLE large AS SELECT set_id AS grp, ord AS id, label, x FROM dac_generate('mog', $2, 1000, 4, 4002)" \
  -c "CREATE TABLE small_sets AS SELECT grp, array_agg(x ORDER BY id) AS pts, array_agg(label ORDER BY id) AS labels FROM small GROUP BY grp" \
  -c "ANALYZE small; ANALYZE large; ANALYZE small_sets" \
  -c "CREATE TABLE timing (what text, s double precision)" \
  -c "CREATE TABLE ids (what text, grp int, id int, label int, c int)"
# what | setting | query (its ids go to the ids table in the first round)
cases=(
"small, window function|mlf_mog2d=mlf_small2d|SELECT 'small, window function', grp, id, label, dac_cluster(x) OVER (PARTITION BY grp) FROM small"
"small, window function, dac.small_group_models = ''||SELECT 'small, window function, dac.small_group_models = ''''', grp, id, label, dac_cluster(x) OVER (PARTITION BY grp) FROM small"
"large, window function|mlf_mog2d=mlf_small2d|SELECT 'large, window function', grp, id, label, dac_cluster(x) OVER (PARTITION BY grp) FROM large"
"small, dac_cluster_agg|mlf_mog2d=mlf_small2d|SELECT 'small, dac_cluster_agg', grp, u.id, u.label, u.c FROM (SELECT grp, array_agg(id ORDER BY id) AS i, array_agg(label ORDER BY id) AS l, dac_cluster_agg(x ORDER BY id) AS c FROM small GROUP BY grp) g, unnest(i, l, c) AS u(id, label, c)"
"small, dac_cluster_ids|mlf_mog2d=mlf_small2d|SELECT 'small, dac_cluster_ids', grp, u.ord::int, u.label, u.c FROM (SELECT grp, labels, dac_cluster_ids(pts) AS c FROM small_sets OFFSET 0) g, unnest(labels, c) WITH ORDINALITY AS u(label, c, ord)"
)
for r in 1 2 3 4 5; do
	for c in "${cases[@]}"; do
		IFS='|' read -r what setting sql <<<"$c"
		if [ "$r" = 1 ]; then
			body="INSERT INTO ids $sql"
		else
			body="SELECT count(s.c) FROM ($sql) s(what, grp, id, label, c)"
		fi
		q -c "SET dac.small_group_models = '$setting'" -c "
DO \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE \$q\$$body\$q\$;
    INSERT INTO timing VALUES (\$q\$$what\$q\$, extract(epoch FROM clock_timestamp() - t0));
END \$\$"
	done
done
q -c "CREATE TABLE pts AS SELECT 'small' AS cfg, count(*) AS n, count(DISTINCT grp) AS g FROM small UNION ALL SELECT 'large', count(*), count(DISTINCT grp) FROM large"
q -F' | ' -c "
WITH t AS (
    SELECT what, min(s) AS mn, percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS md,
           (SELECT n FROM pts WHERE cfg = split_part(what, ',', 1)) AS n,
           (SELECT g FROM pts WHERE cfg = split_part(what, ',', 1)) AS g
    FROM timing GROUP BY what),
a AS (
    SELECT what, avg(ari) AS ari FROM (
        SELECT what, grp, dac_ari(array_agg(label ORDER BY id), array_agg(c ORDER BY id)) AS ari
        FROM ids GROUP BY what, grp) s GROUP BY what),
big AS (SELECT n / mn AS pmin, n / md AS pmed FROM t WHERE what = 'large, window function')
SELECT '| ' || t.what || ' (' || t.g || ' groups, ' || t.n || ' points)',
       round(t.mn::numeric, 2), round(t.md::numeric, 2),
       round((t.n / t.mn)::numeric), round((t.n / t.md)::numeric),
       round((t.n / t.mn / big.pmin)::numeric, 2) || ' / ' || round((t.n / t.md / big.pmed)::numeric, 2),
       round(a.ari::numeric, 4) || ' |'
FROM t JOIN a USING (what), big
ORDER BY t.what" > /tmp/small_groups.$$
echo "| groups | min s | median s | points/s (min s) | points/s (median s) | points/s over large groups' (min / median) | ARI |"
echo "|---|---|---|---|---|---|---|"
cat /tmp/small_groups.$$
q -At -c "
WITH t AS (SELECT what, min(s) AS mn, percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS md FROM timing GROUP BY what),
a AS (SELECT what, avg(ari) AS ari FROM (SELECT what, grp, dac_ari(array_agg(label ORDER BY id), array_agg(c ORDER BY id)) AS ari FROM ids GROUP BY what, grp) s GROUP BY what),
n AS (SELECT (SELECT count(*) FROM small)::float8 AS ns, (SELECT count(*) FROM large)::float8 AS nl)
SELECT 'small groups: points/s over large groups'' ' ||
       round(((n.ns / s.md) / (n.nl / l.md))::numeric, 2) || ' (median; target >= 0.8); ARI ' ||
       round(sa.ari::numeric, 4) || ' against 0.5.0''s default ' || round(oa.ari::numeric, 4) ||
       ' (target: at least ' || round((oa.ari - 0.01)::numeric, 4) || ')'
FROM n, t s, t l, a sa, a oa
WHERE s.what = 'small, window function' AND l.what = 'large, window function'
  AND sa.what = 'small, window function' AND oa.what = 'small, window function, dac.small_group_models = '''''"
rm -f /tmp/small_groups.$$
# the per-group cost of the SQL path: the same groups (same generator and
# seed) clustered by the core inside the backend (dac_evaluate times each
# dac_cluster_set call alone), 3 runs
q -c "CREATE TABLE core (s double precision)" -c "
DO \$\$
BEGIN
    FOR r IN 1 .. 3 LOOP
        INSERT INTO core SELECT seconds_per_set FROM dac_evaluate('mlf_small2d', 'mog', '{\"sets\": $1, \"n_max\": 30, \"k_max\": 4, \"seed\": 4001}');
    END LOOP;
END \$\$"
q -At -c "
SELECT 'per small group: ' || round((1e6 * (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FROM timing WHERE what = 'small, window function') / $1)::numeric, 1) ||
       ' us through the window function (median), ' || round((1e6 * percentile_cont(0.5) WITHIN GROUP (ORDER BY s))::numeric, 1) ||
       ' us in dac_cluster_set alone (median of 3 dac_evaluate runs): the SQL path adds ' ||
       round((100 * ((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FROM timing WHERE what = 'small, window function') / $1 /
                     percentile_cont(0.5) WITHIN GROUP (ORDER BY s) - 1))::numeric) || '%'
FROM core"
SH
