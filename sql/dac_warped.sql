-- dac_warped: the flow density head ("density": "maf").  The shipped
-- mlf_warped2d, training a flow model (generator and table), what a
-- clustering reports for a flow, and the options that use a density.
-- Results are checked as properties, so that a retrained mlf_warped2d
-- leaves this file as it is.
CREATE EXTENSION IF NOT EXISTS dac;
\i sql/err.psql
SET client_min_messages = warning;

-- ---------------------------------------------------------------- the shipped flow model
SELECT name, shipped, config->>'density' AS density, config->'maf' AS maf, metrics->>'trained_on' AS trained_on
FROM dac_models WHERE name = 'mlf_warped2d';
SELECT i->'config'->>'density' AS density, (i->>'parameters')::int AS parameters
FROM (SELECT dac_weights_info(dac_export('mlf_warped2d')) AS i) s;

-- ---------------------------------------------------------------- clustering warped sets
CREATE TEMP TABLE w AS
SELECT set_id AS grp, ord AS id, label, x FROM dac_generate('warped_mog', 6, 400, 4, 17, 2);
CREATE TEMP TABLE wc AS
SELECT grp, id, label, dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM w;
SELECT count(*) AS rows, count(c) AS clustered, min(c) >= 1 AS ids_from_1 FROM wc;
-- the flow finds the warped clusters (a weak bound: the shipped model does far better)
SELECT avg(ari) > 0.6 AS finds_clusters
FROM (SELECT dac_ari(array_agg(label ORDER BY id), array_agg(c ORDER BY id)) AS ari FROM wc GROUP BY grp) s;

-- the summary: size, the members' mean and spread, and the flow's context as θ
CREATE TEMP TABLE ws AS
SELECT s.* FROM (SELECT array_agg(x ORDER BY id) AS m FROM w WHERE grp = (SELECT min(grp) FROM w)) g, dac_cluster_summary(m, 'mlf_warped2d') s;
SELECT count(*) >= 1 AS clusters, sum(size) AS points, bool_and(array_length(mean, 1) = 2) AS mean_2d,
       bool_and(array_length(stddev, 1) = 2 AND stddev[1] >= 0) AS spread_2d,
       bool_and(array_length(theta, 1) = 128) AS context_128, bool_and(representative BETWEEN 1 AND 400) AS reps
FROM ws;
-- the members' mean, not a network output
SELECT bool_and(abs(s.mean[1] - g.m1) < 1e-9 AND abs(s.mean[2] - g.m2) < 1e-9) AS mean_is_members
FROM ws s JOIN (SELECT c, avg(x[1]::float8) AS m1, avg(x[2]::float8) AS m2
                FROM (SELECT x, dac_cluster(x, 'mlf_warped2d') OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS c
                      FROM w WHERE grp = (SELECT min(grp) FROM w)) q GROUP BY c) g ON g.c = s.cluster;
-- θ of a Gaussian model: μ then σ; none without a density head
SELECT array_length(theta, 1) AS gaussian_theta FROM dac_cluster_summary('{{0,0},{0.1,0},{5,5},{5,5.1}}'::real[], 'mlf_mog2d') LIMIT 1;
SELECT theta IS NULL AS no_head_theta FROM dac_cluster_summary('{{0,0},{0.1,0},{5,5},{5,5.1}}'::real[], 'mlf_embed') LIMIT 1;

-- ---------------------------------------------------------------- options that use a density
-- each runs through the flow's log-density and keeps every row clustered
SET dac.reassign = on;
SELECT count(c) = count(*) AS reassign_ok FROM (SELECT dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM w) s;
SET dac.em_steps = 5;
SELECT count(c) = count(*) AS em_ok FROM (SELECT dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM w) s;
RESET dac.reassign;
RESET dac.em_steps;
SET dac.min_cluster_size = 50;
SELECT min(n) >= 50 AS min_size_ok
FROM (SELECT grp, c, count(*) AS n
      FROM (SELECT grp, dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM w) s GROUP BY grp, c) t;
RESET dac.min_cluster_size;
SET dac.noise = 0.001;
SELECT count(*) - count(c) < 0.05 * count(*) AS few_noise, count(c) > 0.9 * count(*) AS most_kept
FROM (SELECT dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM w) s;
RESET dac.noise;
SET dac.leftover = 'own';
SET dac.max_passes = 1;
SELECT max(c) <= 2 AS one_pass_then_leftovers FROM (SELECT dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM w) s;
RESET dac.max_passes;
RESET dac.leftover;
-- dac.refine_rounds (default 0): rounds that fit each cluster's context to
-- its points (the network's weights fixed), then move each point to its
-- likeliest cluster.  The mean LL of 20 generated warped sets rises and their
-- ARI does not fall by more than 0.01; every row stays clustered; a Gaussian
-- model's clusterings do not change; out-of-range values are refused
SHOW dac.refine_rounds;
CREATE TEMP TABLE unrefined AS
SELECT m.model, e.* FROM (VALUES ('mlf_warped2d', 'warped_mog'), ('mlf_small2d', 'mog')) m(model, source),
     dac_evaluate(m.model, m.source, '{"sets": 20, "n_max": 600, "seed": 41}') e;
SET dac.refine_rounds = 2;
SELECT m.model, e.ll > u.ll AS ll_higher, e.ari >= u.ari - 0.01 AS ari_kept,
       e.ari = u.ari AND e.ll = u.ll AS unchanged
FROM unrefined u JOIN (VALUES ('mlf_warped2d', 'warped_mog'), ('mlf_small2d', 'mog')) m(model, source) USING (model),
     dac_evaluate(m.model, m.source, '{"sets": 20, "n_max": 600, "seed": 41}') e
ORDER BY m.model;
SELECT count(c) = count(*) AS refine_ok FROM (SELECT dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM w) s;
RESET dac.refine_rounds;
SELECT pg_temp.err($$SET dac.refine_rounds = -1$$);
SELECT pg_temp.err($$SET dac.refine_rounds = 101$$);
SELECT pg_temp.err($$SET dac.refine_rounds = 'many'$$);

-- ---------------------------------------------------------------- training a flow
-- the warped generator trains a flow by default
SELECT o->>'density' AS warped_default, dac_train_options('mog', '{}')->>'density' AS mog_default
FROM dac_train_options('warped_mog', '{}') o;
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"density": "full"}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"maf_blocks": 2}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('warped_mog', '{"maf_blocks": 0}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('warped_mog', '{"maf_blocks": 9}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('warped_mog', '{"maf_hidden": 0}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('warped_mog', '{"maf_context": "big"}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"density": "maf", "dim": 1}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('warped_mog', '{"init": "mlf_warped2d", "maf_blocks": 2}')$$);

CALL dac_train('tiny_flow', 'warped_mog', '{"steps": 6, "batch": 2, "n_max": 40, "dim_hidden": 8, "num_heads": 2,
                                           "num_inds": 3, "maf_blocks": 2, "maf_hidden": 6, "maf_context": 5,
                                           "checkpoint_every": 3, "seed": 4}');
SELECT status, step FROM dac_training_runs WHERE model = 'tiny_flow';
SELECT config->>'density' AS density, config->'maf' AS maf FROM dac_models WHERE name = 'tiny_flow';
-- resumable like any model
CALL dac_train('tiny_flow', 'warped_mog', '{"resume": true, "steps": 8}');
SELECT status, step FROM dac_training_runs WHERE model = 'tiny_flow' ORDER BY run_id DESC LIMIT 1;
-- dac_evaluate reports the LL of a flow model
SELECT sets, ll IS NOT NULL AND ll < 0 AS has_ll, k_mae >= 0 AS has_kmae
FROM dac_evaluate('tiny_flow', 'warped_mog', '{"sets": 2, "n_max": 60}');

-- a table of 3-D points: a flow over any width of at least 2
CREATE TEMP TABLE t3 AS
SELECT g AS grp, i AS id, g * 10 + (i % 3) AS label,
       ARRAY[(i % 3) * 4 + sin(i), cos(i * 7) * 0.3, (i % 3) - sin(i * 3) * 0.2]::real[] AS x
FROM generate_series(0, 3) g, generate_series(1, 60) i;
CALL dac_train('flow3', 'pg_temp.t3', '{"density": "maf", "input": "raw", "steps": 3, "batch": 2, "n_max": 40,
                                     "dim_hidden": 8, "num_heads": 2, "num_inds": 3, "maf_blocks": 1,
                                     "maf_hidden": 4, "maf_context": 3, "vector_column": "x",
                                     "label_column": "label", "group_column": "grp"}');
SELECT config->>'density' AS density, config->>'dim_input' AS dim FROM dac_models WHERE name = 'flow3';
SELECT count(c) AS clustered FROM (SELECT dac_cluster(x, 'flow3') OVER (PARTITION BY grp) AS c FROM t3) s;
-- a 1-D table cannot train a flow
CREATE TEMP TABLE t1 AS SELECT 0 AS grp, i AS id, i % 2 AS label, ARRAY[i::real] AS x FROM generate_series(1, 40) i;
SELECT pg_temp.err($$CALL dac_train('flow1', 'pg_temp.t1', '{"density": "maf", "input": "raw", "steps": 2,
                                     "batch": 2, "n_max": 20, "dim_hidden": 8, "num_heads": 2, "num_inds": 3,
                                     "vector_column": "x", "label_column": "label"}')$$);
SELECT count(*) AS flow1_models FROM dac_models WHERE name = 'flow1';

DELETE FROM dac_models WHERE name IN ('tiny_flow', 'flow3');
