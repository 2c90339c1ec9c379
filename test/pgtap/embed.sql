-- Embeddings of any width (pgTAP): the shipped mlf_embed's quality on
-- synthetic embedding sets with a threshold (a quality check CI runs), the
-- same at 384 dimensions, the k-means refinement, and the normalisation's
-- invariance as a property of whole clusterings.
SET client_min_messages = warning;
SELECT plan(11);

-- 1. zero-shot on the 'embed' generator's sets (32-D), and at 384-D from a table
SELECT cmp_ok((SELECT ari FROM dac_evaluate('mlf_embed', 'embed', '{"sets": 40, "n_max": 300, "seed": 5}'))::numeric,
              '>=', 0.45, 'mlf_embed: ARI >= 0.45 on 40 embed sets of up to 300 points (32-D)');
CREATE TABLE tap_e384 AS
SELECT set_id, set_id * 10 + label AS label, x FROM dac_generate('embed', 40, 300, 4, 6, 384);
SELECT cmp_ok((SELECT ari FROM dac_evaluate('mlf_embed', 'tap_e384',
                 '{"vector_column": "x", "label_column": "label", "group_column": "set_id", "sets": 40, "n_max": 300}'))::numeric,
              '>=', 0.45, 'mlf_embed: ARI >= 0.45 on 384-D embed sets');

-- 2. the k-means refinement (dac.kmeans_steps, 10 by default; it raises ARI on Fashion-MNIST,
--    docs/embeddings.md) keeps ARI within 0.03 on synthetic sets, whose clusters are not round
SELECT cmp_ok(
  (SELECT ari FROM dac_evaluate('mlf_embed', 'embed', '{"sets": 40, "n_max": 300, "seed": 5}'))::numeric,
  '>=',
  (SELECT ari FROM (SELECT set_config('dac.kmeans_steps', '0', false)) s,
          dac_evaluate('mlf_embed', 'embed', '{"sets": 40, "n_max": 300, "seed": 5}'))::numeric - 0.03,
  'k-means steps from the passes'' clusters keep ARI within 0.03 on embed sets');
RESET dac.kmeans_steps;

-- 3. invariance: any group, rotated (a random orthogonal map, by Householder
--    reflections), shifted and scaled, gets the same clusters up to rounding
--    (the normalisation's property: with dac.graph_merge = 0; with it on, a
--    group whose merged finer partition has about 4 communities may take it
--    on one side of the rounding and not on the other: at most 1 of 12)
CREATE TABLE tap_rot AS
SELECT set_id, ord, x FROM dac_generate('embed', 12, 200, 4, 8, 24);
CREATE FUNCTION pg_temp.reflect(x real[], v double precision[]) RETURNS real[] LANGUAGE sql AS $$
    SELECT array_agg((x[i] - 2 * (SELECT sum(x[j] * v[j]) FROM generate_subscripts(x, 1) j)
                      / (SELECT sum(w * w) FROM unnest(v) w) * v[i])::real ORDER BY i)
    FROM generate_subscripts(x, 1) i
$$;
CREATE TEMP TABLE tap_v AS
SELECT array_agg(sin(i * 12.9898 + 78.233) ORDER BY i) AS v1, array_agg(cos(i * 4.1414 + 3.3) ORDER BY i) AS v2
FROM generate_series(1, 24) i;
CREATE TEMP VIEW tap_rot_ari AS
SELECT set_id, dac_ari(a, b) AS ari FROM (
  SELECT set_id, dac_cluster_agg(x, 'mlf_embed' ORDER BY ord) AS a,
         dac_cluster_agg((SELECT array_agg(y * 3 - 5 ORDER BY k) FROM unnest(pg_temp.reflect(pg_temp.reflect(x, v1), v2))
                          WITH ORDINALITY u(y, k)), 'mlf_embed' ORDER BY ord) AS b
  FROM tap_rot, tap_v GROUP BY set_id) s;
SET dac.graph_merge = 0;
SELECT cmp_ok((SELECT avg(ari) FROM tap_rot_ari)::numeric,
  '>=', 0.97, 'reflected twice, scaled by 3 and shifted by -5: the same clusters (mean ARI >= 0.97)');
RESET dac.graph_merge;
SELECT cmp_ok((SELECT count(*) FILTER (WHERE ari < 0.97) FROM tap_rot_ari), '<=', 1::bigint,
  'the same with dac.graph_merge on: at most 1 group of 12 differs');

-- 4. one model, every width: the same rows padded with zero columns (a
--    subspace of a wider space) give the same clusters
SELECT cmp_ok(
  (SELECT avg(dac_ari(a, b)) FROM (
     SELECT set_id, dac_cluster_agg(x, 'mlf_embed' ORDER BY ord) AS a,
            dac_cluster_agg(x || array_fill(0::real, ARRAY[100]), 'mlf_embed' ORDER BY ord) AS b
     FROM tap_rot GROUP BY set_id) s)::numeric,
  '>=', 0.97, '24-D rows and the same rows as 124-D vectors: the same clusters (mean ARI >= 0.97)');

-- 5. the largest common embedding size
SELECT ok((SELECT count(c) = count(*) AND count(*) >= 600
           FROM (SELECT dac_cluster(x, 'mlf_embed') OVER (PARTITION BY set_id) c
                 FROM dac_generate('embed', 2, 1000, 4, 9, 1536)) s),
          '1,536-D groups of up to 1,000 rows cluster under the default dac.memory_limit, every row an id');

-- 6. dac.graph_merge (0.14.0) on groups of up to 12 clusters: the same ids
--    whatever the rows' order, and with dac.k the count asked for (the
--    merged partition is not used there)
CREATE TEMP TABLE tap_many AS SELECT set_id, ord, label, x FROM dac_generate('embed', 8, 800, 12, 17, 32);
SELECT is(
  (SELECT count(*) FROM (
     SELECT set_id, dac_cluster_agg(x ORDER BY ord) AS a, dac_cluster_agg(x ORDER BY md5(ord::text)) AS b,
            array_agg(ord ORDER BY ord) AS oa, array_agg(ord ORDER BY md5(ord::text)) AS ob
     FROM tap_many GROUP BY set_id) s
   WHERE (SELECT array_agg(c ORDER BY o) FROM unnest(a, oa) u(c, o)) <> (SELECT array_agg(c ORDER BY o) FROM unnest(b, ob) u(c, o))),
  0::bigint, 'graph_merge on: every row keeps its id when the rows come in another order');
SET dac.k = 7;
SELECT is(
  (SELECT count(*) FROM (SELECT set_id, dac_cluster_agg(x ORDER BY ord) AS c FROM tap_many GROUP BY set_id) s
   WHERE (SELECT count(DISTINCT v) FROM unnest(c) v) <> 7),
  0::bigint, 'graph_merge on, dac.k = 7: every group gets 7 clusters');
RESET dac.k;

-- 10. a table's projection is applied only to groups that look like its classes: groups of the
--     table's rows moved far from every class, by any of five offsets along any coordinate, are
--     clustered exactly as the same network without maps clusters them when the run kept no map
--     for such groups, and otherwise (through that map) when it did
SELECT setseed(0.5);
CREATE TABLE tap_proj AS
SELECT i AS id, l AS label,
       (SELECT array_agg(CASE k WHEN 1 THEN 3 * cos(l * 1.047) + 0.3 * (random() - 0.5)
                                WHEN 2 THEN 3 * sin(l * 1.047) + 0.3 * (random() - 0.5)
                                ELSE 6 * (random() - 0.5) END ORDER BY k)::real[]
        FROM generate_series(1, 16) k WHERE l >= 0) AS x
FROM generate_series(0, 5) l, generate_series(1, 60) i;
SET client_min_messages = warning;
CALL dac_train('tap_proj', 'tap_proj', '{"vector_column": "x", "label_column": "label", "steps": 2, "batch": 2, "n_max": 60}');
CALL dac_train('tap_proj_plain', 'tap_proj', '{"vector_column": "x", "label_column": "label", "steps": 2, "batch": 2,
                                               "n_max": 60, "whiten": false}');
RESET client_min_messages;
SELECT ok((SELECT config ? 'input_gate' FROM dac_models WHERE name = 'tap_proj') AND
          (SELECT (count(*) FILTER (WHERE a IS DISTINCT FROM b) = 0) =
                  NOT coalesce((SELECT (config->>'input_map_else')::boolean FROM dac_models WHERE name = 'tap_proj'), false)
           FROM (SELECT dac_cluster(y, 'tap_proj') OVER w AS a, dac_cluster(y, 'tap_proj_plain') OVER w AS b
                 FROM (SELECT o.off, o.coord, id,
                              (SELECT array_agg(CASE WHEN c = o.coord THEN v + o.off ELSE v END ORDER BY c)
                               FROM unnest(x) WITH ORDINALITY u(v, c))::real[] AS y
                       FROM tap_proj, (SELECT 30 + 100 * random() AS off, 1 + floor(16 * random())::int AS coord
                                       FROM generate_series(1, 5)) o) q
                 WINDOW w AS (PARTITION BY off, coord, id % 3 ORDER BY id)) s),
          'a projection kept by a table''s run leaves groups far from its classes to the plain network or to its map for them');
-- 11. the projection keeps only its directions: the labels less one rows, fewer than the width
SELECT ok((SELECT (m.config->>'input_map_rows')::int = (r.validation->'whiten'->'projection'->>'labels')::int - 1
                  AND (m.config->>'input_map_rows')::int < (m.config->>'input_map')::int
           FROM dac_models m JOIN dac_training_runs r ON r.model = m.name WHERE m.name = 'tap_proj'),
          'a kept projection stores as many rows as its labels less one, fewer than the rows'' width');
SELECT * FROM finish();
DROP VIEW tap_rot_ari;
DROP TABLE tap_e384, tap_rot, tap_proj;
