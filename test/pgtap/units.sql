-- Properties of 2-D clustering in any units (pgTAP; run by test/sql_tests.sh with pg_prove).
BEGIN;
SELECT plan(4);

SELECT setseed(0.29);
CREATE TEMP TABLE g AS
SELECT set_id AS grp, ord AS id, label, x::float8[] AS x FROM dac_generate('mog', 12, 600, 4, 4242);
-- twelve draws of a unit (10^-3 .. 10^6, log-uniform) and an origin (up to 10^6 away), one a set
CREATE TEMP TABLE draw AS
SELECT grp, power(10, -3 + 9 * random()) AS a, (random() * 2 - 1) * 1e6 AS b1, (random() * 2 - 1) * 1e6 AS b2
FROM generate_series(1, 12) grp;

-- 1. the default model gives every set the same ids in its drawn units
SELECT is(
  (SELECT count(*)::int FROM (
     SELECT dac_cluster(x) OVER (PARTITION BY grp) AS c0,
            dac_cluster(ARRAY[x[1] * d.a + d.b1, x[2] * d.a + d.b2]) OVER (PARTITION BY grp) AS c1
     FROM g JOIN draw d USING (grp)) s WHERE c0 IS DISTINCT FROM c1),
  0, 'the default model: the same ids in 12 random units and origins');

-- 2. so the mean ARI against the truth is the same figure (within 0.005)
SELECT cmp_ok(
  (SELECT abs(avg(dac_ari(t, a)) - avg(dac_ari(t, b))) FROM (
     SELECT grp, array_agg(label ORDER BY id) AS t, array_agg(c0 ORDER BY id) AS a, array_agg(c1 ORDER BY id) AS b
     FROM (SELECT grp, id, label, dac_cluster(x, 'mlf_fast2d') OVER (PARTITION BY grp) AS c0,
                  dac_cluster(ARRAY[x[1] * d.a + d.b1, x[2] * d.a + d.b2], 'mlf_fast2d') OVER (PARTITION BY grp) AS c1
           FROM g JOIN draw d USING (grp)) s GROUP BY grp) t),
  '<=', 0.005::float8, 'mlf_fast2d: the ARI in random units is within 0.005 of the generator''s');

-- 3. AF: anchors are rows of the units-free order, so the same ids too
SELECT is(
  (SELECT count(*)::int FROM (
     SELECT dac_cluster(x, 'af_mog2d') OVER (PARTITION BY grp) AS c0,
            dac_cluster(ARRAY[x[1] * d.a + d.b1, x[2] * d.a + d.b2], 'af_mog2d') OVER (PARTITION BY grp) AS c1
     FROM g JOIN draw d USING (grp) WHERE grp <= 6) s WHERE c0 IS DISTINCT FROM c1),
  0, 'af_mog2d: the same ids in random units and origins');

-- 4. a rotation by 90 degrees is not a change of units, but a reflection of
--    one axis and a swap are rows of the same set: clusters are the same
--    partition (ARI 1), whatever ids they get
SELECT is(
  (SELECT count(*)::int FROM (
     SELECT grp, dac_ari(array_agg(c0 ORDER BY id), array_agg(c1 ORDER BY id)) AS r
     FROM (SELECT grp, id, dac_cluster(x, 'mlf_mog2d') OVER (PARTITION BY grp) AS c0,
                  dac_cluster(ARRAY[x[2] * 1e3, -x[1] * 1e3], 'mlf_mog2d') OVER (PARTITION BY grp) AS c1
           FROM g WHERE grp <= 6) s GROUP BY grp) t WHERE r > 0.99),
  6, 'mlf_mog2d: a swap and reflection of the axes gives the same partition in all 6 sets');

SELECT * FROM finish();
ROLLBACK;
