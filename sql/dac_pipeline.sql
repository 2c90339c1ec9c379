-- dac_pipeline: the stages of a clustering, from the module's one table,
-- and the stages dac_clustering reports as run.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
\i sql/hint.psql

-- the default 2-D model: the stages in order, which run, and their settings
SELECT ord, stage, runs, settings, applies_to FROM dac_pipeline() ORDER BY ord;
-- the embedding model: no density head, so the k-means, count search and graph stages run
SELECT model_name, string_agg(stage, ', ' ORDER BY ord) FILTER (WHERE runs) AS runs
FROM dac_pipeline('mlf_embed') GROUP BY 1;
-- a large group goes through a sample; a count asked for replaces the count search
SELECT stage, runs FROM dac_pipeline('mlf_embed', rows => 5000, k => 4)
WHERE stage IN ('sample', 'k_search', 'graph', 'count') ORDER BY ord;
-- the settings are read as they stand: a setting switches its stage
SET dac.noise = 0.01;
SET dac.rotations = 4;
SELECT stage, runs, settings FROM dac_pipeline('mlf_mog2d') WHERE stage IN ('rotations', 'min_size', 'noise') ORDER BY ord;
RESET dac.noise;
RESET dac.rotations;
-- a flow model's own stages, each with the memory it needs for 1,000 rows
SELECT stage, runs, memory_kb > 0 AS needs_memory FROM dac_pipeline('mlf_warped2d', 1000)
WHERE stage IN ('absorb', 'pair_merge', 'refine') ORDER BY ord;
-- the default model for a group's size and width is the one dac_cluster uses
SELECT DISTINCT model_name FROM dac_pipeline(NULL, 50);
SELECT DISTINCT model_name FROM dac_pipeline(NULL, 300, 384);

-- dac_clustering names the stages that ran: those dac_pipeline says run, but a
-- stage with nothing to do (leftover: every row was selected by a pass;
-- one_cluster: the group is in more than one cluster)
WITH pts AS (SELECT array_agg(x ORDER BY ord) AS a FROM dac_generate('embed', 1, 200, 4, 3, 32)),
     c AS (SELECT dac_clustering(a, 'mlf_embed') AS j FROM pts)
SELECT j->'stages' AS stages,
       j->'stages' = (SELECT jsonb_agg(stage ORDER BY ord) FROM dac_pipeline('mlf_embed', 200, 32)
                      WHERE runs AND stage NOT IN ('leftover', 'one_cluster')) AS as_declared
FROM c;
-- a group the passes and the graph leave as one cluster, which k-means separates
-- cleanly: 135 rows of a Gaussian in 3-D and 15 rows 6 sigma out on one axis
-- (the draws of a = 6 among five offsets)
SELECT setseed(0.5);
CREATE TEMP TABLE apart AS
SELECT a, i, (SELECT array_agg(((CASE WHEN j = 0 AND i % 10 = 0 THEN a ELSE 0 END) +
                                sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))::real ORDER BY j)
              FROM generate_series(0, 2) j) AS x
FROM generate_series(1, 150) i, unnest(ARRAY[4.5, 5, 6, 7, 8]) a;
DELETE FROM apart WHERE a <> 6;
SELECT dac_clustering(array_agg(x ORDER BY i), 'mlf_embed')->'stages' AS stages FROM apart;
SELECT max(c) AS clusters, dac_ari(array_agg((i % 10 = 0)::int ORDER BY i), array_agg(c ORDER BY i)) AS ari
FROM (SELECT i, dac_cluster(x, 'mlf_embed') OVER () AS c FROM apart) s;
-- without the count searches (dac.k_search = 0) the group stays one cluster
SET dac.k_search = 0;
SELECT max(c) AS clusters FROM (SELECT dac_cluster(x, 'mlf_embed') OVER () AS c FROM apart) s;
RESET dac.k_search;
SELECT dac_clustering('{{0,0},{0.1,0.2},{0.05,0.1},{5,5},{5.2,4.9},{5.1,5}}'::real[])->'stages' AS stages;
-- a group turned in 4 orientations: the turns and the likelihood that chose among them
SET dac.rotations = 4;
SELECT dac_clustering('{{0,0},{0.1,0.2},{0.05,0.1},{5,5},{5.2,4.9},{5.1,5}}'::real[])->'stages' AS stages;
SELECT stage, runs FROM dac_pipeline() WHERE stage IN ('rotations', 'log_likelihood') ORDER BY ord;
RESET dac.rotations;
-- a large group through a sample
WITH g AS (SELECT * FROM dac_generate('embed', 3, 3000, 4, 3, 16)),
     big AS (SELECT set_id FROM g GROUP BY 1 HAVING count(*) > 1000 ORDER BY 1 LIMIT 1)
SELECT count(*) > 1000 AS large, dac_clustering(array_agg(x ORDER BY ord), 'mlf_embed')->'stages' AS stages
FROM g JOIN big USING (set_id);
-- dac_assign reads a clustering with its stages as before
SELECT dac_assign('{5,5}'::real[], dac_clustering('{{0,0},{0.1,0.2},{0.05,0.1},{5,5},{5.2,4.9},{5.1,5}}'::real[])) AS id;

-- errors name the argument and the fix
SELECT pg_temp.hint($$SELECT * FROM dac_pipeline('mlf_embed', 0)$$);
SELECT pg_temp.hint($$SELECT * FROM dac_pipeline('mlf_embed', dim => 0)$$);
SELECT pg_temp.hint($$SELECT * FROM dac_pipeline('mlf_mog2d', dim => 3)$$);
SELECT pg_temp.hint($$SELECT * FROM dac_pipeline('no_such_model')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_pipeline('mlf_embed', k => 0)$$);
SELECT pg_temp.hint($$SELECT * FROM dac_pipeline('mlf_embed', k => 5, max_k => 3)$$);


-- ---------------------------------------------------------------- a model's own settings
-- each shipped model carries the settings of the stages that apply to it
SELECT name, config->'settings' AS settings FROM dac_models WHERE shipped ORDER BY name;
SELECT * FROM dac_model_settings('mlf_embed');
-- a setting given a value wins over the model's; RESET gives the model's back
SET dac.graph_resolution = 0.2;
SELECT * FROM dac_model_settings('mlf_embed') WHERE setting LIKE 'graph%';
SELECT settings->'graph_resolution' AS resolution FROM dac_pipeline('mlf_embed') WHERE stage = 'graph';
RESET dac.graph_resolution;
SELECT * FROM dac_model_settings('mlf_embed') WHERE setting = 'graph_resolution';
-- set to its default value, a setting is still given: it wins over the model's
SET dac.absorb_size = 4;
SELECT source FROM dac_model_settings('mlf_mog2d') WHERE setting = 'absorb_size';
RESET dac.absorb_size;
-- a user's model with settings of its own: the clustering follows them, a setting still wins
CREATE TABLE own_sets AS SELECT * FROM dac_generate('embed', 3, 200, 6, 42, 16);
SELECT dac_import('own_embed', dac_weights_with_settings(dac_export('mlf_embed'), '{"graph_resolution": 3}'));
SELECT setting, value, source FROM dac_model_settings('own_embed') WHERE source = 'model';
SELECT bool_and(a.c = b.c) AS same_as_shipped, max(b.c) > max(a.c) AS more_clusters
FROM (SELECT set_id, ord, dac_cluster(x, 'mlf_embed') OVER (PARTITION BY set_id) AS c FROM own_sets) a
JOIN (SELECT set_id, ord, dac_cluster(x, 'own_embed') OVER (PARTITION BY set_id) AS c FROM own_sets) b USING (set_id, ord);
SET dac.graph_resolution = 0.05;
SELECT bool_and(a.c = b.c) AS same_as_shipped
FROM (SELECT set_id, ord, dac_cluster(x, 'mlf_embed') OVER (PARTITION BY set_id) AS c FROM own_sets) a
JOIN (SELECT set_id, ord, dac_cluster(x, 'own_embed') OVER (PARTITION BY set_id) AS c FROM own_sets) b USING (set_id, ord);
RESET dac.graph_resolution;
-- '{}' takes them away; the image model's file (with its fixed buffers), rewritten, still loads
SELECT dac_import('own_embed', dac_weights_with_settings(dac_export('own_embed'), '{}'));
SELECT count(*) AS own_settings FROM dac_model_settings('own_embed') WHERE source = 'model';
SELECT dac_weights_info(dac_weights_with_settings(dac_export('mlf_fmnist'), '{"max_passes": 20}'))->'config'->'settings' AS fmnist;
SELECT dac_drop_model('own_embed');
-- refused: a call's own settings, unknown names, wrong types, values out of range, no model file
SELECT pg_temp.hint($$SELECT dac_weights_with_settings(dac_export('mlf_embed'), '{"k": 3}')$$);
SELECT pg_temp.hint($$SELECT dac_weights_with_settings(dac_export('mlf_mog2d'), '{"cluster_width": 5000}')$$);
SELECT pg_temp.hint($$SELECT dac_weights_with_settings(dac_export('mlf_embed'), '{"graph_resolutions": 0.2}')$$);
SELECT pg_temp.hint($$SELECT dac_weights_with_settings(dac_export('mlf_embed'), '{"graph_resolution": "0.2"}')$$);
SELECT pg_temp.hint($$SELECT dac_weights_with_settings(dac_export('mlf_embed'), '{"graph_resolution": 0}')$$);
SELECT pg_temp.hint($$SELECT dac_weights_with_settings(dac_export('mlf_embed'), '{"leftover": "nowhere"}')$$);
SELECT pg_temp.hint($$SELECT dac_weights_with_settings(dac_export('mlf_embed'), '[1]')$$);
SELECT pg_temp.hint($$SELECT dac_weights_with_settings('\x0000'::bytea, '{}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_model_settings('no_such_model')$$);

-- ---------------------------------------------------------------- dac_tune
-- a model whose graph resolution and scales are chosen on a labelled table's own groups
CREATE TABLE tune_pts AS SELECT set_id AS grp, label, x FROM dac_generate('embed', 12, 150, 5, 7, 16);
CREATE TEMP TABLE tuned AS
SELECT * FROM dac_tune('tuned_embed', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp"}');
SELECT graph_resolution, graph_merge, groups, round(ari::numeric, 3) AS ari, chosen FROM tuned ORDER BY graph_resolution, graph_merge DESC;
SELECT setting, value FROM dac_model_settings('tuned_embed') WHERE source = 'model' ORDER BY setting;
SELECT metrics->>'tuned_from' AS tuned_from, metrics->>'tuned_on' AS tuned_on, metrics->'graph_resolution' AS chosen,
       metrics->'graph_merge' AS chosen_merge
FROM dac_models WHERE name = 'tuned_embed';
-- its check: each group scored by the pair the other 11 choose, against the start's pair
SELECT metrics->'check'->>'kept' AS kept, round((metrics->'check'->>'start_ari')::numeric, 3) AS start_ari,
       round((metrics->'check'->>'left_out_ari')::numeric, 3) AS left_out_ari,
       round((metrics->'check'->>'lead')::numeric, 3) AS lead, round((metrics->'check'->>'se')::numeric, 3) AS se
FROM dac_models WHERE name = 'tuned_embed';
-- the check by hand: candidate 1 leads on every left-out group (0.35 ± 0.05); candidate 1 is best
-- overall by its first group alone, and left out it scores 0.475 against the start's 0.5
SELECT round(loo_ari::numeric, 6) AS loo_ari, round(diff::numeric, 6) AS diff, round(se::numeric, 6) AS se, holds
FROM dac_internal.dac_choice_check('{{0.5,0.5,0.5,0.5},{0.9,0.9,0.9,0.7},{0.6,0.6,0.6,0.6}}');
SELECT round(loo_ari::numeric, 6) AS loo_ari, round(diff::numeric, 6) AS diff, round(se::numeric, 6) AS se, holds
FROM dac_internal.dac_choice_check('{{0.5,0.5,0.5,0.5},{1.0,0.45,0.45,0.45},{0.55,0.52,0.52,0.52}}');
SELECT pg_temp.hint($$SELECT * FROM dac_internal.dac_choice_check('{0.5,0.9}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_internal.dac_choice_check('{{0.5,NULL}}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_internal.dac_choice_check('{{0.5,NaN}}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_internal.dac_choice_check(NULL)$$);
-- the session's settings are as they were; the tuned model clusters as mlf_embed at that pair
SHOW dac.graph_resolution;
SHOW dac.graph_merge;
SELECT bool_and(a.c = b.c) AS same
FROM (SELECT grp, x, dac_cluster(x, 'tuned_embed') OVER (PARTITION BY grp) AS c FROM tune_pts) a
JOIN (SELECT grp, x, c FROM (SELECT grp, x, dac_cluster(x, 'mlf_embed') OVER (PARTITION BY grp) AS c
                             FROM tune_pts, (SELECT set_config('dac.graph_resolution', graph_resolution::text, false),
                                                    set_config('dac.graph_merge', graph_merge::text, false)
                                             FROM tuned WHERE chosen) s) t) b
  USING (grp, x);
RESET dac.graph_resolution;
RESET dac.graph_merge;
-- dac_evaluate scores the zero-shot model beside it under that model's own settings
SELECT t.ari = (SELECT ari FROM tuned WHERE chosen) AS tuned_as_chosen, t.zero_shot_ari = e.ari AS zero_shot_is_mlf_embeds
FROM dac_evaluate('tuned_embed', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp"}') t,
     dac_evaluate('mlf_embed', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp"}') e;
-- tuned again from the tuned model: its own resolution is the start of the ladder, and from its one
-- scale, two are tried again
SELECT string_agg(DISTINCT graph_resolution::text, ', ') AS tried, count(DISTINCT graph_merge) AS scales
FROM dac_tune('tuned_embed2', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp", "init": "tuned_embed"}');
SELECT dac_drop_model('tuned_embed'), dac_drop_model('tuned_embed2');
-- tuned on 4 groups: the choice does not earn its place, the start's pair is kept and a notice says why
CREATE VIEW tune_few AS SELECT * FROM tune_pts WHERE grp <= 4;
SET client_min_messages = notice;
SELECT graph_resolution, graph_merge, round(ari::numeric, 3) AS ari
FROM dac_tune('tuned_few', 'tune_few', '{"vector_column": "x", "label_column": "label", "group_column": "grp"}') WHERE chosen;
SET client_min_messages = warning;
SELECT metrics->'check'->>'kept' AS kept FROM dac_models WHERE name = 'tuned_few';
SELECT dac_drop_model('tuned_few');
-- refused: no group column, a model with a density head, a shipped name, unknown options, no table
SELECT pg_temp.hint($$SELECT * FROM dac_tune('t', 'tune_pts', '{"vector_column": "x", "label_column": "label"}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_tune('t', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp", "init": "mlf_mog2d"}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_tune('mlf_embed', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp"}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_tune('t', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp", "colour": "red"}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_tune('t', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": 3}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_tune('t', 'tune_pts', '[1]')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_tune('t', 'tune_pts', '{"vector_column": "x", "label_column": "label", "group_column": "grp", "init": "no_such_model"}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_tune('t', 'no_such_table', '{"vector_column": "x", "label_column": "label", "group_column": "grp"}')$$);
SELECT pg_temp.hint($$SELECT * FROM dac_tune('t', 'embed', '{"vector_column": "x", "label_column": "label", "group_column": "grp"}')$$);
