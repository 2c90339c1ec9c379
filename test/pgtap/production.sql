-- Properties of kept clusterings, id matching and noise (pgTAP; run by
-- test/sql_tests.sh with pg_prove).
BEGIN;
SELECT plan(13);

CREATE TEMP TABLE g AS
SELECT set_id AS grp, ord AS id, label, x FROM dac_generate('mog', 20, 600, 6, 77);
CREATE TEMP TABLE c AS
SELECT grp, id, x, dac_cluster(x) OVER (PARTITION BY grp) AS cl,
       dac_cluster(x, 'af_mog2d') OVER (PARTITION BY grp) AS af FROM g;

-- 1. matching ids to themselves changes nothing
SELECT is((SELECT count(*)::int FROM (SELECT grp FROM c GROUP BY grp
           HAVING dac_match_ids(array_agg(cl ORDER BY id), array_agg(cl ORDER BY id)) <> array_agg(cl ORDER BY id)) s),
          0, 'dac_match_ids(ids, ids) = ids in every group');

-- 2. renamed ids come back under their previous names (an injective renaming)
SELECT is((SELECT count(*)::int FROM (SELECT grp FROM c GROUP BY grp
           HAVING dac_match_ids(array_agg(cl ORDER BY id), array_agg(1000 - 7 * cl ORDER BY id))
                  <> array_agg(1000 - 7 * cl ORDER BY id)) s),
          0, 'a renamed partition takes the previous names in every group');

-- 3. matching keeps the partition: ARI 1 between ids and matched ids (MLF against AF's ids)
SELECT is((SELECT count(*)::int FROM (SELECT grp FROM c GROUP BY grp
           HAVING dac_ari(array_agg(cl ORDER BY id),
                          dac_match_ids(array_agg(cl ORDER BY id), array_agg(af ORDER BY id))) < 1) s),
          0, 'matched ids are the same partition (one to one)');

-- 4. the window function with previous ids = dac_match_ids of its plain ids
SELECT is((SELECT count(*)::int FROM (
             SELECT grp FROM (SELECT grp, id, cl, af, dac_cluster(x, NULL, af) OVER (PARTITION BY grp) AS named FROM c) s
             GROUP BY grp
             HAVING array_agg(named ORDER BY id) <> dac_match_ids(array_agg(cl ORDER BY id), array_agg(af ORDER BY id))) t),
          0, 'dac_cluster(x, model, previous) = dac_match_ids(dac_cluster(x), previous)');

-- 5. a group's points assigned to its own kept clustering get (almost all) their ids
SELECT cmp_ok((SELECT avg((dac_assign(c.x, k.clustering) = c.cl)::int)
               FROM c JOIN (SELECT grp, dac_clustering(array_agg(x ORDER BY id)) AS clustering FROM c GROUP BY grp) k
               USING (grp))::float8, '>=', 0.99::float8, 'points assigned to their own clustering keep their ids (>= 99%)');

-- 6. the probability of the assigned cluster is in (1/k, 1]
SELECT is((SELECT count(*)::int FROM c JOIN (SELECT grp, dac_clustering(array_agg(x ORDER BY id)) AS clustering FROM c GROUP BY grp) k
           USING (grp)
           WHERE NOT dac_assign_prob(c.x, k.clustering) > 1.0 / jsonb_array_length(k.clustering->'clusters')
              OR dac_assign_prob(c.x, k.clustering) > 1),
          0, 'assignment probabilities lie in (1/k, 1]');

-- 7. a higher noise level never labels fewer points noise (same sets)
CREATE TEMP TABLE nz (level float8, nulls int);
SET LOCAL dac.noise = 0.0001;
INSERT INTO nz SELECT 0.0001, count(*) FILTER (WHERE c IS NULL) FROM (SELECT dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g) s;
SET LOCAL dac.noise = 0.01;
INSERT INTO nz SELECT 0.01, count(*) FILTER (WHERE c IS NULL) FROM (SELECT dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g) s;
SET LOCAL dac.noise = 0.1;
INSERT INTO nz SELECT 0.1, count(*) FILTER (WHERE c IS NULL) FROM (SELECT dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g) s;
SELECT ok((SELECT bool_and(a.nulls <= b.nulls) FROM nz a JOIN nz b ON a.level < b.level),
          'noise grows with dac.noise: ' || (SELECT string_agg(level || ': ' || nulls, ', ' ORDER BY level) FROM nz));

-- 8. the noise share on clean sets stays near the level (within 3x at 0.01)
SELECT cmp_ok((SELECT nulls FROM nz WHERE level = 0.01)::float8 / (SELECT count(*) FROM g), '<', 0.03::float8,
              'at dac.noise = 0.01 under 3% of clean points are noise');

-- 9-11. dac_assign_prob is calibrated (0.11.0): on 384-d embed sets, a
-- kept clustering of 4 rows in 5 assigns the fifth; the mean probability is
-- within 0.04 of the share assigned to the cluster the row gets when the
-- whole set is clustered (ids matched); the temperature and the clusters'
-- stability only ever lower the probability of the 0.10.0 posterior.
SET LOCAL dac.noise = 0;
CREATE TEMP TABLE e AS SELECT set_id AS grp, ord AS id, x FROM dac_generate('embed', 30, 300, 4, 23, 384);
CREATE TEMP TABLE ek AS SELECT grp, dac_clustering(array_agg(x ORDER BY id)) AS c FROM e WHERE id % 5 <> 0 GROUP BY grp;
CREATE TEMP TABLE ew AS
SELECT w.grp, u.id, u.cl
FROM (SELECT e.grp, dac_match_ids(array_agg(w.cl ORDER BY e.id), array_agg(p.cl ORDER BY e.id)) AS ids,
             array_agg(e.id ORDER BY e.id) AS ids_in_order
      FROM e JOIN (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS cl FROM e) w USING (grp, id)
      LEFT JOIN (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS cl FROM e WHERE id % 5 <> 0) p USING (grp, id)
      GROUP BY e.grp) w, unnest(w.ids, w.ids_in_order) AS u(cl, id);
CREATE TEMP TABLE eh AS
SELECT dac_assign_prob(e.x, ek.c) AS p,
       dac_assign_prob(e.x, jsonb_set(ek.c, '{clusters}', (SELECT jsonb_agg(v - 'stability') FROM jsonb_array_elements(ek.c->'clusters') u(v)))
                            - 'temperature') AS p1,
       coalesce(dac_assign(e.x, ek.c) = ew.cl, false) AS right_as_clustered
FROM e JOIN ek USING (grp) JOIN ew USING (grp, id) WHERE e.id % 5 = 0;
SELECT cmp_ok((SELECT abs(avg(p) - avg(right_as_clustered::int)) FROM eh)::float8, '<=', 0.04::float8,
              format('held-out 384-d rows: mean probability %s, right as clustered %s',
                     (SELECT round(avg(p)::numeric, 3) FROM eh), (SELECT round(avg(right_as_clustered::int), 3) FROM eh)));
SELECT is((SELECT count(*)::int FROM eh WHERE p > p1 + 1e-12), 0,
          'the temperature and stability never raise a probability above the 0.10.0 posterior');
SELECT ok((SELECT bool_and((c->>'temperature')::float8 BETWEEN 1 AND 10000) FROM ek) AND
          (SELECT bool_and((cl->>'stability')::float8 > 0 AND (cl->>'stability')::float8 <= 1)
           FROM ek, jsonb_array_elements(c->'clusters') cl),
          'every kept clustering carries a temperature in [1, 10000] and each cluster a stability in (0, 1]');

-- 12-13. dac.noise on 384-d embed sets, whose clusters are lumpy and
-- correlated: at 0.001 at most 2% of their own rows are NULL; rows planted
-- uniformly in each set's bounding box (5% more) are NULL, 9 in 10 or more.
SET LOCAL dac.noise = 0.001;
CREATE TEMP TABLE en AS SELECT set_id AS grp, ord AS id, false AS planted, x FROM dac_generate('embed', 20, 300, 6, 42, 384);
SELECT cmp_ok((SELECT avg((c IS NULL)::int) FROM (SELECT dac_cluster(x) OVER (PARTITION BY grp) AS c FROM en) s)::float8,
              '<=', 0.02::float8, 'at dac.noise = 0.001 at most 2% of clean 384-d embed rows are noise');
SELECT setseed(0.42);
INSERT INTO en
SELECT b.grp, 100000 + p, true,
       (SELECT array_agg((b.lo[j] + (b.hi[j] - b.lo[j]) * random())::real ORDER BY j) FROM generate_subscripts(b.lo, 1) j)
FROM (SELECT grp, array_agg(lo ORDER BY j) AS lo, array_agg(hi ORDER BY j) AS hi
      FROM (SELECT grp, j, min(x[j]) AS lo, max(x[j]) AS hi FROM en, generate_subscripts(x, 1) j GROUP BY grp, j) t
      GROUP BY grp) b,
     generate_series(1, (SELECT greatest(1, round(0.05 * count(*))::int) FROM en e WHERE e.grp = b.grp)) p;
SELECT cmp_ok((SELECT avg((c IS NULL)::int) FROM (SELECT planted, dac_cluster(x) OVER (PARTITION BY grp) AS c FROM en) s
               WHERE planted)::float8,
              '>=', 0.9::float8, 'at dac.noise = 0.001 rows planted in 384-d embed sets are noise, 9 in 10 or more');

SELECT * FROM finish();
ROLLBACK;
