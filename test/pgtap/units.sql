-- Properties of 2-D clustering in any units (pgTAP; run by test/sql_tests.sh with pg_prove).
BEGIN;
SELECT plan(10);

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

-- 5-7. Real coordinates: Panama's 254 cities (R's maps, world.cities, given
--    to 0.01°), one partition.  Moved by at most 100 m (a point of a disc
--    drawn by a hash of the id) and with one city dropped, the answer holds;
--    under 0.32.0, which read the width at the 50th-closest pair (the
--    rounding's), the moved cities gave ARI 0.05.
CREATE TEMP TABLE pa (id int, lon float8, lat float8);
\copy pa FROM 'test/data/panama_cities.csv' CSV
CREATE TEMP TABLE pa_moved AS
SELECT id, lat + r * sin(a) / 111195 AS lat, lon + r * cos(a) / (111195 * cosd(lat)) AS lon
FROM (SELECT id, lon, lat, 2 * pi() * (hashint4(id * 7 + 6) / 4294967296.0 + 0.5) AS a,
             100 * sqrt(hashint4(id * 11 + 6) / 4294967296.0 + 0.5) AS r FROM pa) s;
CREATE TEMP TABLE pa_ids AS
SELECT p.id, p.c, m.c AS c_moved, d.c AS c_dropped
FROM (SELECT id, dac_cluster_lonlat(lon, lat) OVER () AS c FROM pa) p
JOIN (SELECT id, dac_cluster_lonlat(lon, lat) OVER () AS c FROM pa_moved) m USING (id)
LEFT JOIN (SELECT id, dac_cluster_lonlat(lon, lat) OVER () AS c FROM pa WHERE id > 1) d USING (id);
SELECT cmp_ok((SELECT count(DISTINCT c)::int FROM pa_ids), '>=', 5, 'Panama''s cities: 5 clusters or more');
SELECT cmp_ok((SELECT dac_ari(array_agg(c ORDER BY id), array_agg(c_moved ORDER BY id)) FROM pa_ids),
  '>=', 0.9::float8, 'Panama''s cities moved by up to 100 m: ARI 0.9 or more against the answer before');
SELECT cmp_ok((SELECT dac_ari(array_agg(c ORDER BY id), array_agg(c_dropped ORDER BY id)) FROM pa_ids WHERE id > 1),
  '>=', 0.95::float8, 'Panama''s cities, one dropped: ARI 0.95 or more on the rest');

-- 8-10. A cluster width given in metres (dac.cluster_width), on Panama's
--    cities: fewer clusters at each wider width from 2 to 50 km; the same
--    ids for the cities in metres at 10,000 and in kilometres at 10; at
--    20 km the answer holds under 100 m of jitter and one city dropped.
CREATE FUNCTION pg_temp.clusters_at(w float8) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE k bigint;
BEGIN
  PERFORM set_config('dac.cluster_width', w::text, true);
  SELECT count(DISTINCT c) INTO k FROM (SELECT dac_cluster_lonlat(lon, lat) OVER () AS c FROM pa) s;
  RETURN k;
END $$;
CREATE TEMP TABLE pa_w AS SELECT w, pg_temp.clusters_at(w) AS k FROM unnest(ARRAY[2000, 5000, 10000, 20000, 50000]::float8[]) w;
SELECT ok((SELECT bool_and(a.k > b.k) FROM pa_w a JOIN pa_w b ON b.w = (SELECT min(w) FROM pa_w c WHERE c.w > a.w)),
  'Panama''s cities: fewer clusters at each wider cluster width (' ||
  (SELECT string_agg(w / 1000 || ' km: ' || k, ', ' ORDER BY w) FROM pa_w) || ')');
CREATE TEMP TABLE pa_m AS SELECT id, lon * 111195 * cosd(8.5) AS x, lat * 111195 AS y FROM pa;
SET LOCAL dac.cluster_width = 10000;
CREATE TEMP TABLE pa_in_m AS SELECT id, dac_cluster(ARRAY[x, y]) OVER () AS c FROM pa_m;
SET LOCAL dac.cluster_width = 10;
CREATE TEMP TABLE pa_in_km AS SELECT id, dac_cluster(ARRAY[x / 1000, y / 1000]) OVER () AS c FROM pa_m;
SELECT is((SELECT count(*)::int FROM pa_in_m m JOIN pa_in_km k USING (id) WHERE m.c <> k.c), 0,
  'Panama''s cities in metres at a width of 10,000 and in kilometres at 10: the same ids');
SET LOCAL dac.cluster_width = 20000;
CREATE TEMP TABLE pa_ids20 AS
SELECT p.id, p.c, m.c AS c_moved, d.c AS c_dropped
FROM (SELECT id, dac_cluster_lonlat(lon, lat) OVER () AS c FROM pa) p
JOIN (SELECT id, dac_cluster_lonlat(lon, lat) OVER () AS c FROM pa_moved) m USING (id)
LEFT JOIN (SELECT id, dac_cluster_lonlat(lon, lat) OVER () AS c FROM pa WHERE id > 1) d USING (id);
SELECT ok((SELECT dac_ari(array_agg(c ORDER BY id), array_agg(c_moved ORDER BY id)) FROM pa_ids20) >= 0.9 AND
          (SELECT dac_ari(array_agg(c ORDER BY id), array_agg(c_dropped ORDER BY id)) FROM pa_ids20 WHERE id > 1) >= 0.95,
  'Panama''s cities at a cluster width of 20 km: ARI 0.9 or more moved by up to 100 m, 0.95 or more with one dropped');
RESET dac.cluster_width;

SELECT * FROM finish();
ROLLBACK;
