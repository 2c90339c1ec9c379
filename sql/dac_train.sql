-- dac_train and dac_evaluate: options, errors, what a run leaves behind.
-- (NOTICE progress lines carry timings, so they are hidden here.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
\i sql/err.psql
-- the dac.training record in a weights file's safetensors header (little-endian length, then JSON)
CREATE FUNCTION pg_temp.training_record(w bytea) RETURNS jsonb LANGUAGE sql AS $$
    SELECT (convert_from(substring(w FROM 9 FOR get_byte(w, 0) + 256 * get_byte(w, 1) + 65536 * get_byte(w, 2)
                                             + 16777216 * get_byte(w, 3)), 'UTF8')::jsonb
            -> '__metadata__' ->> 'dac.training')::jsonb
$$;

-- ---------------------------------------------------------------- options
SELECT jsonb_pretty(dac_train_options('mog', '{"steps": 50, "strategy": "af"}'));
SELECT o->>'init' AS table_init, o->>'lr' AS lr, o->>'steps' AS steps, o->>'density' AS density
FROM dac_train_options('items', '{"vector_column": "v", "label_column": "l"}') o;
SELECT o->>'init' AS init, o->>'input' AS input, o->>'density' AS table_density, o->>'dim' AS width
FROM dac_train_options('items', '{"vector_column": "v", "label_column": "l", "dim_hidden": 64}') o;
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"stepz": 5}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"steps": "many"}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"steps": 2.5}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"steps": 0}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"lr": 0}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"lr": "fast"}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"resume": 1}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"strategy": "kmeans"}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"density": "full"}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"dim_hidden": 30, "num_heads": 4}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"num_blocks": 17}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"vector_column": "v"}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('warped_mog', '{"dim": 3}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('items', '{"vector_column": "v"}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('items', '{"vector_column": "v", "label_column": "l", "input": "raw", "dim": 3}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '[1, 2]')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"mix_n_max": 3000}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"mix_n_max": 2, "mix_k_max": 3}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"mix_n_max": 3000, "mix_k_max": -1}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"mix_n_max": 3000, "mix_k_max": 12, "mix_ratio": 0}')$$);
SELECT pg_temp.err($$SELECT dac_train_options('mog', '{"mix_ratio": 1001}')$$);
SELECT dac_train_options('mog', '{}')->'mix_ratio' AS default_mix_ratio;

-- ---------------------------------------------------------------- a short run
CALL dac_train('small', 'mog', '{"steps": 30, "batch": 3, "n_max": 60, "dim_hidden": 16, "num_inds": 4,
                                 "checkpoint_every": 10, "log_every": 5, "seed": 3}');
SELECT model, source, status, step, total_steps, last_loss > 0 AS has_loss, error, finished_at IS NOT NULL AS finished
FROM dac_training_runs ORDER BY run_id;
SELECT step_from, step_to, loss > 0 AS has_loss FROM dac_training_log ORDER BY step_to;
SELECT model, step, total_steps, source, octet_length(state) > 0 AS has_state FROM dac_checkpoints;
SELECT name, version, shipped, config->>'dim_hidden' AS width, metrics FROM dac_models WHERE name = 'small';
SELECT (dac_weights_info(dac_export('small'))->>'parameters')::int > 0 AS exportable;
-- it clusters
SELECT count(*) AS clustered FROM dac_cluster_set('{{0,0},{0.1,0.2},{5,5},{5.2,4.9}}'::real[], 'small');
-- resume past the end: nothing to do; resume to 40 steps
CALL dac_train('small', 'mog', '{"resume": true}');
CALL dac_train('small', 'mog', '{"resume": true, "steps": 40}');
-- a paused run (run_steps) and its resumption
CALL dac_train('small', 'mog', '{"resume": true, "steps": 60, "run_steps": 5}');
SELECT run_id, status, step, total_steps FROM dac_training_runs ORDER BY run_id;
CALL dac_train('small', 'mog', '{"resume": true, "steps": 60}');
SELECT run_id, status, step, total_steps FROM dac_training_status ORDER BY run_id;
-- a curriculum mix: two of every three steps draw sets of up to 120 points from up to 6 clusters
CALL dac_train('mixed', 'mog', '{"steps": 4, "batch": 2, "n_max": 40, "mix_n_max": 120, "mix_k_max": 6,
                                 "mix_ratio": 2, "dim_hidden": 16, "num_inds": 4, "seed": 5}');
SELECT status, step, options->'mix_n_max' AS mix_n, options->'mix_k_max' AS mix_k, options->'mix_ratio' AS mix_ratio
FROM dac_training_runs WHERE model = 'mixed';
-- the trained weights record the mix in their dac.training metadata
SELECT t->'mix_n_max' AS mix_n, t->'mix_k_max' AS mix_k, t->'mix_ratio' AS mix_ratio
FROM pg_temp.training_record(dac_export('mixed')) AS t;
SELECT pg_temp.err($$CALL dac_train('mixed', 'mog', '{"resume": true, "steps": 8, "mix_k_max": 12}')$$);
SELECT pg_temp.err($$CALL dac_train('mixed', 'mog', '{"resume": true, "steps": 8, "mix_ratio": 1}')$$);
-- options completed by an older dac_train_options have no mix_ratio: the trainer alternates
SELECT dac_internal.dac_train_begin(NULL, NULL, 'mog', dac_train_options('mog', '{"steps": 2, "batch": 1, "n_max": 20,
    "mix_n_max": 30, "mix_k_max": 3, "dim_hidden": 8, "num_heads": 2, "num_inds": 2, "num_blocks": 1}') - 'mix_ratio')
    ->> 'dim_hidden' AS started_width;
SELECT step, loss > 0 AS has_loss FROM dac_internal.dac_train_steps(2);
SELECT t->'mix_n_max' AS mix_n, t->'mix_ratio' AS mix_ratio FROM pg_temp.training_record(dac_internal.dac_train_weights()) AS t;
SELECT dac_internal.dac_train_end();

-- ---------------------------------------------------------------- errors of the procedure
SELECT pg_temp.err($$CALL dac_train('x', 'nowhere', '{}')$$);
SELECT pg_temp.err($$CALL dac_train(NULL, 'mog', '{}')$$);
SELECT pg_temp.err($$CALL dac_train('mlf_mog2d', 'mog', '{"steps": 5}')$$);
SELECT pg_temp.err($$CALL dac_train('fresh', 'mog', '{"resume": true}')$$);
SELECT pg_temp.err($$CALL dac_train('small', 'mog', '{"resume": true, "seed": 9}')$$);
SELECT pg_temp.err($$CALL dac_train('small', 'warped_mog', '{"resume": true}')$$);
SELECT pg_temp.err($$CALL dac_train('small', 'mog', '{"dim_hidden": 32}')$$);
-- inside a transaction block the procedure could not commit its checkpoints:
-- it says so first (0.9.0; 0.8.0: "invalid transaction termination")
BEGIN;
CALL dac_train('inblock', 'mog', '{"steps": 5}');
ROLLBACK;
-- (called from an exception block, a subtransaction, PostgreSQL's own error)
BEGIN;
SELECT pg_temp.err($$CALL dac_train('inblock', 'mog', '{"steps": 5}')$$);
ROLLBACK;
-- a table source: errors
CREATE TABLE items (id int, v real[], l text, shop int);
INSERT INTO items SELECT i, ARRAY[(i % 3) * 4 + 0.1 * (i % 7), 0.2 * (i % 5), 1]::real[], 'c' || (i % 3), (i % 3) / 2
FROM generate_series(1, 90) i;
SELECT pg_temp.err($$CALL dac_train('t', 'items', '{"vector_column": "nope", "label_column": "l"}')$$);
SELECT pg_temp.err($$CALL dac_train('small', 'items', '{"vector_column": "v", "label_column": "l"}')$$);
INSERT INTO items VALUES (91, '{1,2}', 'c1', 0);
SELECT pg_temp.err($$CALL dac_train('t', 'items', '{"vector_column": "v", "label_column": "l", "steps": 3}')$$);
DELETE FROM items WHERE id = 91;
INSERT INTO items VALUES (92, '{1,NaN,2}', 'c1', 0);
SELECT pg_temp.err($$CALL dac_train('t', 'items', '{"vector_column": "v", "label_column": "l", "steps": 3}')$$);
DELETE FROM items WHERE id = 92;
-- labels numbered within each group (the same label in two groups is two
-- classes; until 0.8.0: "a label appears in two groups")
CREATE TABLE items_by_shop AS
SELECT i AS id, ARRAY[(i % 3) * 4 + 0.1 * (i % 7), 0.2 * (i % 5) + 6 * (i % 2)]::real[] AS v, 1 + i % 3 AS l, i % 2 AS shop
FROM generate_series(1, 120) i;
SELECT count(DISTINCT shop) AS shops, count(DISTINCT l) AS labels_per_shop FROM items_by_shop;
CALL dac_train('by_shop', 'items_by_shop', '{"vector_column": "v", "label_column": "l", "group_column": "shop",
                                             "input": "raw", "steps": 2, "batch": 1, "n_max": 30, "dim_hidden": 8, "num_heads": 2, "num_inds": 2}');
SELECT status, step FROM dac_training_runs WHERE model = 'by_shop';
-- labels of any type, a group column, 3-D vectors
CALL dac_train('shops', 'items', '{"vector_column": "v", "label_column": "l", "group_column": "shop",
                                   "steps": 10, "batch": 2, "n_max": 30, "dim_hidden": 16, "num_inds": 4}');
SELECT name, config->>'dim_input' AS dim, config->>'input' AS input, config->>'density' AS density FROM dac_models WHERE name = 'shops';
SELECT status, step FROM dac_training_runs WHERE model = 'shops';

-- ---------------------------------------------------------------- dac_evaluate
SELECT sets, ari BETWEEN -1 AND 1 AS ari_ok, nmi BETWEEN 0 AND 1 AS nmi_ok, k_mae >= 0 AS kmae_ok,
       ll IS NOT NULL AS has_ll, seconds_per_set > 0 AS timed, gflop_per_set > 0 AS counted
FROM dac_evaluate('small', 'mog', '{"sets": 3, "n_max": 50}');
-- the oracle depends on the sets alone: the same for any model, and the value
-- `dac-cli eval --sets 20 --n-max 300 --k-max 4 --seed 5` prints
SELECT round(oracle_ll::numeric, 4) AS oracle_ll
FROM dac_evaluate('small', 'mog', '{"sets": 20, "n_max": 300, "seed": 5}');
SELECT round(oracle_ll::numeric, 4) AS oracle_ll
FROM dac_evaluate('mlf64_mog2d', 'mog', '{"sets": 20, "n_max": 300, "seed": 5}');
SELECT sets, ll IS NULL AS no_ll_without_density, oracle_ll IS NULL AS no_oracle_for_a_table
FROM dac_evaluate('shops', 'items', '{"vector_column": "v", "label_column": "l", "sets": 3, "n_max": 20}');
SELECT oracle_ll IS NULL AS no_oracle_for_warped_sets
FROM dac_evaluate('mlf64_mog2d', 'warped_mog', '{"sets": 2, "n_max": 50}');
-- "whole_groups": each group of the table clustered as it is, labels read within it;
-- on the sets of a generator kept as groups it gives the mean of dac_ari over them
CREATE TABLE mog_groups AS SELECT set_id, ord, label, x FROM dac_generate('mog', 6, 200, 4, 77);
SELECT e.sets, round(e.ari::numeric, 6) = round(g.ari::numeric, 6) AS ari_is_the_groups_mean,
       round(e.nmi::numeric, 6) = round(g.nmi::numeric, 6) AS nmi_is_the_groups_mean
FROM dac_evaluate('mlf_mog2d', 'mog_groups', '{"vector_column": "x", "label_column": "label", "group_column": "set_id",
                                               "whole_groups": true}') e,
     (SELECT avg(dac_ari(t, f)) AS ari, avg(dac_nmi(t, f)) AS nmi
      FROM (SELECT set_id, array_agg(label ORDER BY ord) AS t,
                   dac_cluster_agg(x, 'mlf_mog2d' ORDER BY ord) AS f
            FROM mog_groups GROUP BY set_id) s) g;
-- sampled sets draw no row twice (0.23.0): from a table of 12 rows, with n_max 1000, each
-- set holds at most those 12, so it costs no more than clustering the 12 as one group
-- (sets of 300 or more points drawn with repeats cost tens of times more)
CREATE TABLE twelve AS SELECT 1 AS g, set_id, ord, label, x FROM dac_generate('mog', 1, 12, 3, 5);
SELECT s.gflop_per_set <= 2 * w.gflop_per_set AS no_row_twice
FROM dac_evaluate('mlf_mog2d', 'twelve', '{"vector_column": "x", "label_column": "label", "sets": 20, "n_max": 1000}') s,
     dac_evaluate('mlf_mog2d', 'twelve', '{"vector_column": "x", "label_column": "label", "group_column": "g",
                                           "whole_groups": true}') w;
SELECT sets FROM dac_evaluate('by_shop', 'items_by_shop', '{"vector_column": "v", "label_column": "l", "group_column": "shop", "whole_groups": true}');
-- given a group column and no option that draws sets, the table's own groups are scored whole;
-- "whole_groups": false draws sets from them instead
SELECT g.sets AS groups, g.ari = w.ari AS whole_by_default, s.sets AS drawn_sets
FROM dac_evaluate('mlf_mog2d', 'mog_groups', '{"vector_column": "x", "label_column": "label", "group_column": "set_id"}') g,
     dac_evaluate('mlf_mog2d', 'mog_groups', '{"vector_column": "x", "label_column": "label", "group_column": "set_id",
                                               "whole_groups": true}') w,
     dac_evaluate('mlf_mog2d', 'mog_groups', '{"vector_column": "x", "label_column": "label", "group_column": "set_id",
                                               "whole_groups": false}') s;
-- beside the model, on the same sets, the model dac_cluster picks naming none (zero-shot):
-- the default's own scores for the default; for a 2-D model, groups of 60 rows, mlf_small2d's
-- (dac.small_group_models); mlf_embed's for a model of width 3; none where no default takes
-- the width
SELECT e.zero_shot_ari = e.ari AND e.zero_shot_nmi = e.nmi AND e.zero_shot_k_mae = e.k_mae AS default_beside_itself
FROM dac_evaluate('mlf_mog2d', 'mog_groups', '{"vector_column": "x", "label_column": "label", "group_column": "set_id"}') e;
SELECT b.zero_shot_ari = m.ari AND b.zero_shot_nmi = m.nmi AND b.zero_shot_k_mae = m.k_mae AS zero_shot_is_mlf_small2d
FROM dac_evaluate('by_shop', 'items_by_shop', '{"vector_column": "v", "label_column": "l", "group_column": "shop"}') b,
     dac_evaluate('mlf_small2d', 'items_by_shop', '{"vector_column": "v", "label_column": "l", "group_column": "shop"}') m;
CALL dac_train('wide3', 'items', '{"vector_column": "v", "label_column": "l", "group_column": "shop", "input": "raw",
                                   "steps": 1, "batch": 1, "n_max": 30, "dim_hidden": 8, "num_heads": 2, "num_inds": 2,
                                   "validate": false}');
SELECT b.zero_shot_ari = m.ari AND b.zero_shot_nmi = m.nmi AND b.zero_shot_k_mae = m.k_mae AS zero_shot_is_mlf_embed
FROM dac_evaluate('wide3', 'items', '{"vector_column": "v", "label_column": "l", "group_column": "shop"}') b,
     dac_evaluate('mlf_embed', 'items', '{"vector_column": "v", "label_column": "l", "group_column": "shop"}') m;
SET dac.default_embedding_model = '';
SELECT ari IS NOT NULL AS scored, zero_shot_ari IS NULL AND zero_shot_nmi IS NULL AND zero_shot_k_mae IS NULL AS no_zero_shot
FROM dac_evaluate('wide3', 'items', '{"vector_column": "v", "label_column": "l", "group_column": "shop"}');
RESET dac.default_embedding_model;
SELECT pg_temp.err($$SELECT dac_evaluate('mlf_mog2d', 'mog_groups', '{"vector_column": "x", "label_column": "label", "whole_groups": true}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('mlf_mog2d', 'mog_groups', '{"vector_column": "x", "label_column": "label", "group_column": "set_id", "whole_groups": true, "sets": 5}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('mlf_mog2d', 'mog', '{"whole_groups": true}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('mlf_mog2d', 'mog_groups', '{"vector_column": "x", "label_column": "label", "group_column": "set_id", "whole_groups": 1}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('small', 'mog', '{"sets": 0}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('small', 'mog', '{"colour": 1}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('small', 'items', '{}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('small', 'mog', '{"vector_column": "v"}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('nope', 'mog', '{}')$$);
SELECT pg_temp.err($$SELECT dac_evaluate('small', 'items', '{"vector_column": "v", "label_column": "l"}')$$);

-- the internal functions, called directly with bad arguments: errors, and
-- no half-made trainer is left behind
SELECT pg_temp.err($$SELECT dac_internal.dac_train_steps(5)$$);
SELECT pg_temp.err($$SELECT dac_internal.dac_train_begin(NULL, NULL, 'mog', '{}')$$);
SELECT pg_temp.err($$SELECT dac_internal.dac_train_begin(NULL, NULL, NULL, '{}')$$);
SELECT pg_temp.err($$SELECT dac_internal.dac_train_begin(NULL, NULL, 'items', '{"strategy": "mlf"}')$$);
SELECT pg_temp.err($$SELECT dac_internal.dac_train_weights()$$);
SELECT pg_temp.err($$SELECT * FROM dac_internal.dac_evaluate_sets(NULL, 'mog', 1, 10, 2, 1, NULL, NULL, NULL, false)$$);
SELECT pg_temp.err($$SELECT * FROM dac_internal.dac_evaluate_sets('small', 'items', 1, 10, 2, 1, NULL, NULL, NULL, false)$$);
SELECT pg_temp.err($$SELECT * FROM dac_internal.dac_evaluate_sets('small', 'mog', 0, 10, 2, 1, NULL, NULL, NULL, false)$$);
SELECT pg_temp.err($$SELECT * FROM dac_internal.dac_evaluate_groups('small', 'mog', 'x', 'l', 'g', false)$$);
SELECT pg_temp.err($$SELECT * FROM dac_internal.dac_evaluate_groups('small', 'mog_groups', 'x', 'label', NULL, false)$$);

-- a model started from another (init): the copy of its parameters is checked against
-- dac.memory_limit before it is made (mlf_mog2d decoded first, under the default limit)
SELECT count(*) AS clustered FROM (SELECT dac_cluster(ARRAY[i::float8, 0], 'mlf_mog2d') OVER () FROM generate_series(1, 5) i) s;
SET dac.memory_limit = '1MB';
CALL dac_train('copy_big', 'mog', '{"init": "mlf_mog2d", "steps": 1}');
RESET dac.memory_limit;
SELECT count(*) AS copy_big_absent FROM dac_models WHERE name = 'copy_big';

-- deleting a model deletes its checkpoint
DELETE FROM dac_models WHERE name IN ('small', 'shops', 'mixed', 'by_shop');
SELECT count(*) AS checkpoints_left FROM dac_checkpoints;
SELECT 1 AS still_alive;
