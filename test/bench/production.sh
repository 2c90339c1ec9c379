#!/usr/bin/env bash
# Kept clusterings, assignment of new rows and noise, measured through the
# extension (docs/production.md).  On the quality benchmark's sets (seeds
# 1001 and 3001, as test/bench/quality.sh):
#  1. assignment: each set's rows with ord % 5 <> 0 (80%) are clustered and
#     kept (dac_clustering, ids named after the full set's clustering through
#     `previous`); the other 20% are assigned (dac_assign) and compared with
#     the ids clustering the whole set gives them: exact agreement and ARI on
#     the held-out rows; beside it, the ARI of the 80% clustering against the
#     full one on the 80% rows (how much removing rows changes the clusters)
#     and each path's ARI against the truth;
#  2. noise: dac.noise at 0 (off), 0.01, 0.001, 1e-4 on the clean sets and on
#     the same sets with 2% of extra points uniform on [-15, 15]^2: the share
#     of set points labelled noise, the share of the extra points labelled
#     noise, and ARI / NMI against the truth on the set points that got an id.
# Prints markdown tables.  Needs the extension installed (make install).
# Usage: bash test/bench/production.sh [SETS_SMALL (300)] [SETS_LARGE (100)]
set -euo pipefail
cd "$(dirname "$0")/../.."
small=${1:-300}
large=${2:-100}

pg_virtualenv -t -v 15 psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
\pset footer off
CREATE TABLE sets AS
SELECT 'small' AS cfg, set_id, ord, label, x FROM dac_generate('mog', $small, 1000, 4, 1001)
UNION ALL
SELECT 'large', set_id, ord, label, x FROM dac_generate('mog', $large, 3000, 12, 3001);

\echo '### 1. New rows assigned to a kept clustering ($small sets of (1000, 4), $large of (3000, 12); 20% of each set held out)'
\echo
CREATE TABLE assigned AS
WITH m(model) AS (VALUES ('mlf_mog2d'), ('af_mog2d')),
full_ids AS (
    SELECT m.model, s.cfg, s.set_id, s.ord, s.label, s.x,
           dac_cluster(s.x, m.model) OVER (PARTITION BY m.model, s.cfg, s.set_id) AS full_id
    FROM sets s, m),
part_ids AS (
    SELECT model, cfg, set_id, ord, dac_cluster(x, model) OVER (PARTITION BY model, cfg, set_id) AS part_id
    FROM full_ids WHERE ord % 5 <> 0),
kept AS (
    SELECT model, cfg, set_id,
           dac_clustering(array_agg(x ORDER BY ord), model, array_agg(full_id ORDER BY ord)) AS c
    FROM full_ids WHERE ord % 5 <> 0 GROUP BY model, cfg, set_id)
SELECT f.model, f.cfg, f.set_id, f.ord, f.label, f.full_id, p.part_id,
       CASE WHEN f.ord % 5 = 0 THEN dac_assign(f.x, k.c) END AS assigned
FROM full_ids f JOIN kept k USING (model, cfg, set_id) LEFT JOIN part_ids p USING (model, cfg, set_id, ord);
SELECT model, CASE cfg WHEN 'small' THEN '(1000, 4)' ELSE '(3000, 12)' END AS "sets",
       round(avg(agree), 4) AS "held-out rows: same id as the full clustering",
       round(avg(ari_held)::numeric, 4) AS "held-out ARI vs full",
       round(avg(ari_part)::numeric, 4) AS "80% clustering ARI vs full (on its rows)",
       round(avg(ari_full_truth)::numeric, 4) AS "full: ARI vs truth",
       round(avg(ari_assigned_truth)::numeric, 4) AS "held-out assigned: ARI vs truth"
FROM (SELECT model, cfg, set_id,
             avg((assigned = full_id)::int) FILTER (WHERE ord % 5 = 0) AS agree,
             dac_ari(array_agg(full_id) FILTER (WHERE ord % 5 = 0), array_agg(assigned) FILTER (WHERE ord % 5 = 0)) AS ari_held,
             dac_ari(array_agg(full_id) FILTER (WHERE ord % 5 <> 0), array_agg(part_id) FILTER (WHERE ord % 5 <> 0)) AS ari_part,
             dac_ari(array_agg(label), array_agg(full_id)) AS ari_full_truth,
             dac_ari(array_agg(label) FILTER (WHERE ord % 5 = 0), array_agg(assigned) FILTER (WHERE ord % 5 = 0)) AS ari_assigned_truth
      FROM assigned GROUP BY model, cfg, set_id) s
GROUP BY model, cfg ORDER BY cfg DESC, model;

\echo
\echo '### 2. Noise (dac.noise), $small sets of (1000, 4), shipped MLF'
\echo
\o /dev/null
SELECT setseed(0.42);
CREATE TABLE noisy AS
SELECT set_id, ord, label, x FROM sets WHERE cfg = 'small'
UNION ALL
SELECT s.set_id, 100000 + i, -1, ARRAY[30 * random() - 15, 30 * random() - 15]::real[]
FROM (SELECT set_id, count(*) AS n FROM sets WHERE cfg = 'small' GROUP BY set_id) s,
     LATERAL generate_series(1, ceil(0.02 * s.n)::int) i;
CREATE TABLE noise_runs (level float8, data text, set_id int, ord int, label int, c int);
CREATE FUNCTION pg_temp.run(level float8) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
    PERFORM set_config('dac.noise', level::text, true);
    INSERT INTO noise_runs
    SELECT level, 'clean', set_id, ord, label, dac_cluster(x) OVER (PARTITION BY set_id) FROM sets WHERE cfg = 'small';
    INSERT INTO noise_runs
    SELECT level, 'with 2% uniform extra points', set_id, ord, label, dac_cluster(x) OVER (PARTITION BY set_id) FROM noisy;
END \$\$;
SELECT pg_temp.run(l) FROM unnest(ARRAY[0, 0.01, 0.001, 0.0001]) l;
\o
SELECT data AS "sets", CASE WHEN level = 0 THEN 'off' ELSE level::text END AS "dac.noise",
       round(100 * avg(noise_share), 2) AS "set points noise (%)",
       CASE WHEN data = 'clean' THEN '–' ELSE round(100 * avg(extra_caught), 1)::text END AS "extra points noise (%)",
       round(avg(ari)::numeric, 4) AS "ARI (set points with an id)",
       round(avg(nmi)::numeric, 4) AS "NMI",
       round(avg(kerr), 3) AS "k-MAE"
FROM (SELECT level, data, set_id,
             avg((c IS NULL)::int) FILTER (WHERE label >= 0) AS noise_share,
             avg((c IS NULL)::int) FILTER (WHERE label < 0) AS extra_caught,
             dac_ari(array_agg(label) FILTER (WHERE label >= 0 AND c IS NOT NULL),
                     array_agg(c) FILTER (WHERE label >= 0 AND c IS NOT NULL)) AS ari,
             dac_nmi(array_agg(label) FILTER (WHERE label >= 0 AND c IS NOT NULL),
                     array_agg(c) FILTER (WHERE label >= 0 AND c IS NOT NULL)) AS nmi,
             abs(count(DISTINCT label) FILTER (WHERE label >= 0) - count(DISTINCT c)) AS kerr
      FROM noise_runs GROUP BY level, data, set_id) s
GROUP BY data, level ORDER BY data, level = 0 DESC, level DESC;
SQL
