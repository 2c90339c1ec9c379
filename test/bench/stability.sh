#!/usr/bin/env bash
# Stability of dac's default on the kinds benchmark's groups (test/bench/kinds.sh
# DIR made DIR/groups.csv): each group clustered as it is, with every
# coordinate moved by 1e-4 times the group's spread (the root mean variance of
# its coordinates; a uniform draw of unit variance from a hash of the row),
# and without its first row (compared on the rest).  Prints, per kind and
# split, the median and 10th percentile ARI between the answers, then the
# groups a dropped row, and those the noise, moves below ARI 0.9.
# SETTINGS (e.g. "SET dac.graph_neighbors = 0") run before the clusterings;
# DAC_STABILITY_GIVEN_K=1 gives every clustering the group's true k.
# Run it inside pg_virtualenv, where dac is installed:
#   pg_virtualenv -t -v 15 bash test/bench/stability.sh DIR [SETTINGS]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
settings=${2:-}
call="dac_cluster(x)"
[ "${DAC_STABILITY_GIVEN_K:-0}" = 1 ] && call="dac_cluster(x, k => (SELECT count(DISTINCT label)::int FROM st_g t WHERE (t.kind, t.source, t.split, t.s) = (g.kind, g.source, g.split, g.s)))"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
DROP TABLE IF EXISTS st_g, st_spread, st_out;
CREATE TABLE st_g (kind text, source text, split text, s int, ord int, label int, x real[]);
\copy st_g FROM '$dir/groups.csv' CSV
CREATE TABLE st_spread AS
SELECT kind, source, split, s, sqrt(avg(v)) AS spread
FROM (SELECT kind, source, split, s, j, var_pop(e) AS v
      FROM st_g, unnest(x) WITH ORDINALITY u(e, j) GROUP BY 1, 2, 3, 4, 5) t GROUP BY 1, 2, 3, 4;
$settings;
CREATE TABLE st_out AS
SELECT kind, source, split, s, ord,
       ${call} OVER w AS a,
       ${call/dac_cluster(x/dac_cluster(ARRAY(SELECT (e + 1e-4 * sp.spread * sqrt(12) * (hashint4(ord * 7919 + j::int * 104729 + g.s) / 4294967296.0))::real
                         FROM unnest(x) WITH ORDINALITY u(e, j) ORDER BY j)} OVER w AS b
FROM st_g g JOIN st_spread sp USING (kind, source, split, s)
WINDOW w AS (PARTITION BY kind, source, split, s);
ALTER TABLE st_out ADD c int;
UPDATE st_out o SET c = d.c
FROM (SELECT kind, source, split, s, ord, ${call} OVER (PARTITION BY kind, source, split, s) AS c
      FROM st_g g WHERE ord > 1) d
WHERE (o.kind, o.source, o.split, o.s, o.ord) = (d.kind, d.source, d.split, d.s, d.ord);
\pset format unaligned
\pset fieldsep ' | '
\pset tuples_only on
\echo | kind | split | groups | noise 1e-4: median ARI | 10th pct | one row dropped: median ARI | 10th pct |
\echo |---|---|---|---|---|---|---|
SELECT '| ' || kind, split, count(*),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY noise)::numeric, 3), round(percentile_cont(0.1) WITHIN GROUP (ORDER BY noise)::numeric, 3),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY dropped)::numeric, 3), round(percentile_cont(0.1) WITHIN GROUP (ORDER BY dropped)::numeric, 3) || ' |'
FROM (SELECT kind, split, source, s,
             dac_ari(array_agg(a ORDER BY ord), array_agg(b ORDER BY ord)) AS noise,
             dac_ari(array_agg(a ORDER BY ord) FILTER (WHERE ord > 1), array_agg(c ORDER BY ord) FILTER (WHERE ord > 1)) AS dropped
      FROM st_out GROUP BY 1, 2, 3, 4) t
GROUP BY kind, split ORDER BY kind, split DESC;
\echo
\echo Groups where one row dropped moves the answer below ARI 0.9 (clusters with all rows, and with one dropped):
\echo
SELECT '- ' || kind || ' ' || source || ' ' || split || ' group ' || s || ': ' || k_all || ' and ' || k_dropped ||
       ' clusters, ARI ' || round(dropped::numeric, 3)
FROM (SELECT kind, split, source, s, count(DISTINCT a) AS k_all, count(DISTINCT c) AS k_dropped,
             dac_ari(array_agg(a ORDER BY ord) FILTER (WHERE ord > 1), array_agg(c ORDER BY ord) FILTER (WHERE ord > 1)) AS dropped
      FROM st_out GROUP BY 1, 2, 3, 4) t
WHERE dropped < 0.9 ORDER BY kind, split, source, s;
\echo
\echo Groups where the noise moves the answer below ARI 0.9 (clusters without and with it):
\echo
SELECT '- ' || kind || ' ' || source || ' ' || split || ' group ' || s || ': ' || k_a || ' and ' || k_b ||
       ' clusters, ARI ' || round(noise::numeric, 3)
FROM (SELECT kind, split, source, s, count(DISTINCT a) AS k_a, count(DISTINCT b) AS k_b,
             dac_ari(array_agg(a ORDER BY ord), array_agg(b ORDER BY ord)) AS noise
      FROM st_out GROUP BY 1, 2, 3, 4) t
WHERE noise < 0.9 ORDER BY kind, split, source, s;
SQL
