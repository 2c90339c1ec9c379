-- dac_production: stable ids, representatives, kept clusterings and new
-- rows assigned to them, noise.
CREATE EXTENSION IF NOT EXISTS dac;
\i sql/err.psql

CREATE TEMP TABLE pts AS
SELECT set_id AS grp, ord AS id, label, x FROM dac_generate('mog', 6, 400, 4, 11);

-- ---------------------------------------------------------------- stable ids
-- The same rows in three orders give every row the same id, for MLF and AF
-- (the rows are clustered in an order of their own, whatever the input's).
SELECT model,
       count(*) FILTER (WHERE a IS DISTINCT FROM b OR a IS DISTINCT FROM c) AS rows_differing,
       count(*) AS rows
FROM (SELECT m.model, p.grp, p.id,
             dac_cluster(x, m.model) OVER (PARTITION BY m.model, grp ORDER BY id) AS a,
             dac_cluster(x, m.model) OVER (PARTITION BY m.model, grp ORDER BY id DESC) AS b,
             dac_cluster(x, m.model) OVER (PARTITION BY m.model, grp ORDER BY md5(id::text)) AS c
      FROM pts p, (VALUES ('mlf_mog2d'), ('af_mog2d'), ('mlf64_mog2d')) m(model)) s
GROUP BY model ORDER BY model;

-- the aggregate too
SELECT count(*) AS groups_differing
FROM (SELECT grp,
             dac_cluster_agg(x, 'af_mog2d' ORDER BY id) AS a,
             array_agg(id ORDER BY id) AS ia
      FROM pts GROUP BY grp) f
JOIN (SELECT grp,
             dac_cluster_agg(x, 'af_mog2d' ORDER BY md5(id::text)) AS b,
             array_agg(id ORDER BY md5(id::text)) AS ib
      FROM pts GROUP BY grp) r USING (grp)
WHERE (SELECT array_agg(a[i] ORDER BY ia[i]) FROM generate_subscripts(a, 1) i)
   IS DISTINCT FROM (SELECT array_agg(b[i] ORDER BY ib[i]) FROM generate_subscripts(b, 1) i);

-- dac_match_ids: a renamed partition takes the previous names; a split keeps
-- the name on its larger part; new clusters get ids after the largest previous
SELECT dac_match_ids('{1,1,2,2,3}', '{7,7,4,4,9}') AS renamed,
       dac_match_ids('{1,1,1,2,2,3,3}', '{5,5,5,5,5,NULL,NULL}') AS split_and_new,
       dac_match_ids('{1,1,1,1,1,2}', '{3,3,3,8,8,1}') AS merged,
       dac_match_ids('{1,NULL,2}', '{NULL,NULL,NULL}') AS no_previous,
       dac_match_ids('{}', '{}') AS empty;
-- ids of any size (these once crashed the backend: memory by the largest id)
SELECT dac_match_ids('{2147483647,2147483647,2000000000}', '{1,1,NULL}') AS large_ids;
SELECT pg_temp.err($$SELECT dac_match_ids('{1,2}', '{1}')$$);
SELECT pg_temp.err($$SELECT dac_match_ids('{0,2}', '{1,1}')$$);
SELECT pg_temp.err($$SELECT dac_match_ids('{{1},{2}}', '{1,1}')$$);
SELECT pg_temp.err($$SELECT dac_match_ids('{1,2}', '{2147483647,2147483647}')$$);

-- Previous ids through the window function: yesterday's ids were 10 x the
-- cluster; today 40 new rows per group arrive (no previous id).
CREATE TEMP TABLE yesterday AS
SELECT grp, id, 10 * dac_cluster(x) OVER (PARTITION BY grp) AS cid FROM pts WHERE id <= 360;
CREATE TEMP TABLE today AS
SELECT p.grp, p.id, y.cid AS previous,
       dac_cluster(x) OVER (PARTITION BY p.grp) AS plain,
       dac_cluster(x, NULL, y.cid) OVER (PARTITION BY p.grp) AS named
FROM pts p LEFT JOIN yesterday y USING (grp, id);
-- old rows keep their ids where their cluster survived; named is plain renamed one to one
SELECT count(*) FILTER (WHERE previous IS NOT NULL) AS old_rows,
       round(avg((named = previous)::int) FILTER (WHERE previous IS NOT NULL), 3) AS old_rows_same_id,
       count(DISTINCT (grp, plain)) = count(DISTINCT (grp, named)) AS one_to_one,
       bool_and(named % 10 = 0 OR named > 10 * 12) AS ids_previous_or_fresh
FROM today;
SELECT count(*) AS pairs_inconsistent
FROM (SELECT grp, plain, count(DISTINCT named) AS c FROM today GROUP BY grp, plain) s WHERE c <> 1;

-- ---------------------------------------------------------------- representatives
-- per cluster its representative: a member (nearest the mean; for a
-- Gaussian model in its σ metric)
SELECT cluster, size, representative
FROM dac_cluster_summary('{{0,0},{0.1,0.2},{0.05,0.1},{5,5},{5.2,4.9},{5.1,5}}'::real[]);
SELECT cluster, size, representative
FROM dac_cluster_summary('{{0,0},{0.1,0.2},{0.05,0.1},{5,5},{5.2,4.9},{5.1,5}}'::real[], 'af_mog2d');
-- the representative is a member of its cluster, in every group
WITH s AS (
    SELECT grp, (dac_cluster_summary(array_agg(x ORDER BY id))).*
    FROM pts GROUP BY grp),
c AS (
    SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS cluster FROM pts)
SELECT count(*) AS clusters, count(*) FILTER (WHERE c.cluster = s.cluster) AS rep_in_its_cluster
FROM s JOIN c ON c.grp = s.grp AND c.id = s.representative;

-- ---------------------------------------------------------------- kept clusterings
CREATE TEMP TABLE one_kept AS
SELECT dac_clustering('{{0,0},{0.1,0.2},{0.05,0.1},{5,5},{5.2,4.9},{5.1,5}}'::real[]) AS c;
SELECT jsonb_pretty(c - 'model_version' - 'clusters') FROM one_kept;
-- its clusters, the numbers rounded (their last digits follow the CPU's kernels)
SELECT cl->>'id' AS id, cl->>'size' AS size, cl->>'representative' AS representative,
       (SELECT array_agg(round(v::numeric, 4) ORDER BY i)
        FROM jsonb_array_elements_text(cl->'mean') WITH ORDINALITY AS e(v, i)) AS mean,
       (SELECT array_agg(round(v::numeric, 4) ORDER BY i)
        FROM jsonb_array_elements_text(cl->'stddev') WITH ORDINALITY AS e(v, i)) AS stddev,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(cl) AS k) AS keys
FROM one_kept, jsonb_array_elements(c->'clusters') AS cl
ORDER BY 1;
-- assign the points of a group to its own clustering: the same ids; the
-- probability of the cluster named is the largest of K, so at least 1/K
CREATE TEMP TABLE kept AS
SELECT grp, dac_clustering(array_agg(x ORDER BY id)) AS clustering FROM pts GROUP BY grp;
SELECT round(avg((dac_assign(p.x, k.clustering) = c.cluster)::int), 3) AS agreement,
       bool_and(dac_assign_prob(p.x, k.clustering)
                BETWEEN 1.0 / jsonb_array_length(k.clustering->'clusters') AND 1) AS prob_in_range
FROM pts p JOIN kept k USING (grp)
JOIN (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS cluster FROM pts) c USING (grp, id);
-- held out: cluster 80% of each group, assign the other 20%, compare with
-- clustering the whole group (ARI on the held-out rows)
WITH part AS (
    SELECT grp, dac_clustering(array_agg(x ORDER BY id)) AS clustering
    FROM pts WHERE id % 5 <> 0 GROUP BY grp),
full_ids AS (
    SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS cluster FROM pts),
held AS (
    SELECT p.grp, f.cluster, dac_assign(p.x, part.clustering) AS assigned
    FROM pts p JOIN part USING (grp) JOIN full_ids f USING (grp, id) WHERE p.id % 5 = 0)
SELECT round(avg(a)::numeric, 2) >= 0.95 AS held_out_ari_at_least_095, count(*) AS groups
FROM (SELECT grp, dac_ari(array_agg(cluster), array_agg(assigned)) AS a FROM held GROUP BY grp) s;
-- previous ids name a kept clustering's clusters as the window function does
SELECT (SELECT array_agg((c->>'id')::int ORDER BY (c->>'id')::int)
        FROM jsonb_array_elements(dac_clustering('{{0,0},{0.1,0.2},{5,5},{5.2,4.9}}'::real[], NULL, '{42,42,NULL,7}')->'clusters') c)
       AS named_ids;
-- a model without a density head (trained from a table): the members' mean and σ
CREATE TABLE prod_pts AS SELECT grp, id, 10 * grp + label AS label, x FROM pts;
SET client_min_messages = warning;
CALL dac_train('nohead', 'prod_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp",
    "steps": 2, "batch": 2, "n_max": 60, "dim_hidden": 16, "num_inds": 4, "log_every": 100}');
RESET client_min_messages;
WITH c AS (SELECT dac_clustering(array_agg(x ORDER BY id), 'nohead') AS c FROM pts WHERE grp = 1),
ids AS (SELECT id, x, dac_cluster(x, 'nohead') OVER () AS cluster FROM pts WHERE grp = 1),
members AS (SELECT cluster, count(*) AS size, avg(x[1]) AS m1, stddev_pop(x[2]) AS s2 FROM ids GROUP BY cluster)
SELECT c->>'density' AS density,
       bool_and(abs((cl->'mean'->>0)::float8 - m.m1) < 1e-4 AND abs((cl->'stddev'->>1)::float8 - m.s2) < 1e-4
                AND (cl->>'size')::int = m.size) AS members_mean_and_sd,
       bool_and((SELECT i.cluster FROM ids i WHERE i.id = (cl->>'representative')::int) = m.cluster) AS reps_are_members
FROM c, jsonb_array_elements(c->'clusters') cl JOIN members m ON m.cluster = (cl->>'id')::int
GROUP BY 1;
-- NULLs
SELECT dac_assign(NULL::real[], '{}'::jsonb) IS NULL AS null_x,
       dac_assign('{1,2}'::real[], NULL) IS NULL AS null_clustering;
-- bad clusterings and vectors: clear errors
SELECT pg_temp.err($$SELECT dac_assign('{1,2}'::real[], '[]')$$);
SELECT pg_temp.err($$SELECT dac_assign('{1,2}'::real[], '{"dac_clustering": 1}')$$);
SELECT pg_temp.err($$SELECT dac_assign('{1,2}'::real[], '{"dac_clustering":1,"dim":2,"n":1,"noise":0,"density":"none","clusters":[{"id":1,"size":1,"mean":[0],"stddev":[0]}]}')$$);
SELECT pg_temp.err($$SELECT dac_assign('{1,2}'::real[], '{"dac_clustering":1,"dim":1,"n":2,"noise":0,"density":"none","clusters":[{"id":1,"size":1,"mean":[0],"stddev":[0]},{"id":1,"size":1,"mean":[0],"stddev":[0]}]}')$$);
SELECT pg_temp.err($$SELECT dac_assign('{1,2,3}'::real[], dac_clustering('{{0,0},{5,5}}'::real[]))$$);
SELECT pg_temp.err($$SELECT dac_assign('{1,NaN}'::real[], dac_clustering('{{0,0},{5,5}}'::real[]))$$);
SELECT pg_temp.err($$SELECT dac_clustering('{{0,0},{5,5}}'::real[], NULL, '{1}')$$);
SELECT pg_temp.err($$SELECT dac_clustering('{{0,0},{5,5}}'::real[], 'no_such_model')$$);

-- ---------------------------------------------------------------- noise
-- six far points added to each group: under dac.noise they get NULL
CREATE TEMP TABLE noisy AS
SELECT grp, id, label, x FROM pts
UNION ALL
SELECT g.grp, 1000 + i, -1, ARRAY[CASE WHEN i % 2 = 0 THEN 40 ELSE -40 END, 10 * i - 25]::real[]
FROM (SELECT DISTINCT grp FROM pts) g, generate_series(0, 5) i;
SHOW dac.noise;
SELECT count(*) FILTER (WHERE c IS NULL) AS null_ids FROM
    (SELECT dac_cluster(x) OVER (PARTITION BY grp) AS c FROM noisy) s;
SET dac.noise = 0.001;
SELECT count(*) FILTER (WHERE label = -1 AND c IS NULL) AS outliers_null,
       count(*) FILTER (WHERE label = -1) AS outliers,
       count(*) FILTER (WHERE label >= 0 AND c IS NULL) < 0.02 * count(*) FILTER (WHERE label >= 0) AS few_set_points_null
FROM (SELECT label, dac_cluster(x) OVER (PARTITION BY grp) AS c FROM noisy) s;
-- the aggregate, dac_cluster_set and the summary agree
SELECT count(*) FILTER (WHERE c IS NULL) AS null_in_agg, count(*) AS points
FROM (SELECT unnest(dac_cluster_agg(x ORDER BY id)) AS c FROM noisy WHERE grp = 1) s;
SELECT count(*) FILTER (WHERE cluster IS NULL) AS null_in_set, count(*) AS points
FROM dac_cluster_set((SELECT array_agg(x ORDER BY id) FROM noisy WHERE grp = 1));
SELECT sum(size) + (SELECT count(*) FILTER (WHERE cluster IS NULL)
                    FROM dac_cluster_set((SELECT array_agg(x ORDER BY id) FROM noisy WHERE grp = 1)))
       = (SELECT count(*) FROM noisy WHERE grp = 1) AS summary_leaves_noise_out
FROM dac_cluster_summary((SELECT array_agg(x ORDER BY id) FROM noisy WHERE grp = 1));
-- three far-apart points and nothing else: the 2-D models take any units
-- (0.9.0), so three points alone have no scale and are one cluster; beside a
-- tight group they are far, one-point clusters, and noise
SELECT count(*) AS clusters FROM dac_cluster_summary('{{-40,-25},{40,-15},{-40,-5}}'::real[]);
SELECT array_agg(cluster) AS ids FROM dac_cluster_set('{{-40,-25},{40,-15},{-40,-5}}'::real[]);
SELECT array_agg(cluster ORDER BY ord) FILTER (WHERE ord <= 3) AS far_ids,
       count(cluster) FILTER (WHERE ord > 3) AS tight_clustered, count(*) FILTER (WHERE ord > 3) AS tight
FROM dac_cluster_set((SELECT array_agg(x ORDER BY o)
                      FROM (SELECT ord AS o, x FROM dac_generate('mog', 1, 40, 1, 5)
                            UNION ALL VALUES (-3, '{-40,-25}'::real[]), (-2, '{40,-15}'), (-1, '{-40,-5}')) v(o, x)));
-- a point far from every kept cluster is noise for dac_assign too
SELECT dac_assign('{0,0}'::real[], c) IS NOT NULL AS near, dac_assign('{500,500}'::real[], c) IS NULL AS far_is_noise,
       dac_assign_prob('{500,500}'::real[], c) IS NOT NULL AS far_has_a_prob
FROM (SELECT dac_clustering('{{0,0},{0.1,0.2},{0.05,0.1},{5,5},{5.2,4.9},{5.1,5}}'::real[]) AS c) s;
-- the temperature and each cluster's stability (0.11.0) calibrate
-- dac_assign_prob; a clustering kept before 0.11.0 has neither and reads
-- them as 1; bad ones are refused
WITH k AS (SELECT dac_clustering('{{0,0},{0.1,0.2},{0.05,0.1},{0.3,0.3},{0.2,0.4},{0.35,0.2}}'::real[], 'af_mog2d', k => 2) AS c)
SELECT (c->>'temperature')::float8 >= 1 AS has_temperature,
       dac_assign_prob('{0.2,0.2}'::real[], c - 'temperature') = dac_assign_prob('{0.2,0.2}'::real[], jsonb_set(c, '{temperature}', '1')) AS old_reads_as_1,
       dac_assign_prob('{0.2,0.2}'::real[], jsonb_set(c, '{clusters}', (SELECT jsonb_agg(cl - 'stability') FROM jsonb_array_elements(c->'clusters') cl)))
         = dac_assign_prob('{0.2,0.2}'::real[], jsonb_set(c, '{clusters}', (SELECT jsonb_agg(jsonb_set(cl, '{stability}', '1')) FROM jsonb_array_elements(c->'clusters') cl))) AS no_stability_reads_as_1,
       dac_assign_prob('{0.2,0.2}'::real[], jsonb_set(c, '{temperature}', '100')) < dac_assign_prob('{0.2,0.2}'::real[], c - 'temperature') AS hotter_is_flatter,
       dac_assign('{0.2,0.2}'::real[], jsonb_set(c, '{temperature}', '100')) = dac_assign('{0.2,0.2}'::real[], c) AS same_cluster
FROM k;
SELECT pg_temp.err($$SELECT dac_assign_prob('{0,0}'::real[], jsonb_set(dac_clustering('{{0,0},{1,1}}'::real[]), '{temperature}', '0.5'))$$);
SELECT pg_temp.err($$SELECT dac_assign_prob('{0,0}'::real[], jsonb_set(dac_clustering('{{0,0},{1,1}}'::real[]), '{temperature}', '"hot"'))$$);
SELECT pg_temp.err($$SELECT dac_assign_prob('{0,0}'::real[], jsonb_set(dac_clustering('{{0,0},{1,1}}'::real[]), '{clusters,0,stability}', '0'))$$);
SELECT pg_temp.err($$SET dac.noise = -0.1$$);
SELECT pg_temp.err($$SET dac.noise = 0.9$$);
RESET dac.noise;
