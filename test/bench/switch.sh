#!/usr/bin/env bash
# The answer across dac's model switches, beside dropping one row: groups of
# the mog generator (2-D, k <= 4) at the sizes where the default model
# changes (dac.small_group_size, 100: mlf_small2d up to 100 rows, mlf_mog2d
# above; dac.large_group_size, 1000: mlf_fast2d from 1,000 rows; the
# sizes are read from the settings, so PGOPTIONS='-c dac.small_group_size=150'
# measures a switch at 150 rows).  For each
# group of n + 1 rows: the default's answer on its first n rows against its
# answer on all n + 1 (compared on the n; the model switches between them),
# and, for each model alone, the same comparison (the answer's change when a
# row is dropped, no switch).  Prints the median and 10th percentile ARI.
# Run it inside pg_virtualenv, where dac is installed:
#   pg_virtualenv -t -v 15 bash test/bench/switch.sh [SETS (100)]
set -euo pipefail
sets=${1:-100}
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
SELECT current_setting('dac.small_group_size')::int AS small, current_setting('dac.large_group_size')::int - 1 AS large \\gset
-- each set's rows in an order of their own (a hash), its first n + 1 kept
CREATE TEMP TABLE sw AS
SELECT n, set_id, r AS ord, x
FROM (SELECT :small AS n, set_id, x, row_number() OVER (PARTITION BY set_id ORDER BY hashint4(ord)) AS r
      FROM dac_generate('mog', $sets, 4 * :small, 4, 11)
      UNION ALL
      SELECT :large, set_id, x, row_number() OVER (PARTITION BY set_id ORDER BY hashint4(ord))
      FROM dac_generate('mog', $sets, 4 * (:large + 1), 4, 12)) g
WHERE r <= n + 1;
CREATE TEMP TABLE cmp (n int, what text, set_id int, ari float8);
-- answers on all n + 1 rows and on the first n, by the default and by each model named
CREATE TEMP TABLE ans AS
SELECT n, set_id, ord, 'all' AS part,
       dac_cluster(x) OVER w AS def,
       dac_cluster(x, CASE n WHEN :small THEN 'mlf_small2d' ELSE 'mlf_mog2d' END) OVER w AS below,
       dac_cluster(x, CASE n WHEN :small THEN 'mlf_mog2d' ELSE 'mlf_fast2d' END) OVER w AS above
FROM sw WINDOW w AS (PARTITION BY n, set_id)
UNION ALL
SELECT n, set_id, ord, 'first',
       dac_cluster(x) OVER w,
       dac_cluster(x, CASE n WHEN :small THEN 'mlf_small2d' ELSE 'mlf_mog2d' END) OVER w,
       dac_cluster(x, CASE n WHEN :small THEN 'mlf_mog2d' ELSE 'mlf_fast2d' END) OVER w
FROM sw WHERE ord <= n WINDOW w AS (PARTITION BY n, set_id);
\pset format unaligned
\pset tuples_only on
\echo '| rows | compared | groups | median ARI | 10th pct |'
\echo '|---|---|---|---|---|'
WITH pairs AS (
    SELECT a.n, a.set_id,
           dac_ari(array_agg(a.def ORDER BY a.ord), array_agg(b.def ORDER BY a.ord)) AS def,
           dac_ari(array_agg(a.below ORDER BY a.ord), array_agg(b.below ORDER BY a.ord)) AS below,
           dac_ari(array_agg(a.above ORDER BY a.ord), array_agg(b.above ORDER BY a.ord)) AS above
    FROM ans a JOIN ans b ON (a.n, a.set_id, a.ord) = (b.n, b.set_id, b.ord) AND a.part = 'first' AND b.part = 'all'
    GROUP BY 1, 2)
SELECT format('| %s and %s | %s | %s | %s | %s |', n, n + 1, w, count(*),
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY v)::numeric, 3),
              round(percentile_cont(0.1) WITHIN GROUP (ORDER BY v)::numeric, 3))
FROM pairs, LATERAL (VALUES
    ('the default (the model switches)', def),
    (CASE n WHEN :small THEN 'mlf_small2d' ELSE 'mlf_mog2d' END || ' at both sizes (a row dropped)', below),
    (CASE n WHEN :small THEN 'mlf_mog2d' ELSE 'mlf_fast2d' END || ' at both sizes (a row dropped)', above)) v(w, v)
GROUP BY n, w ORDER BY n, w;
SQL
