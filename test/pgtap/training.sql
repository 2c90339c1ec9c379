-- Training in the database (pgTAP; no enclosing transaction: dac_train commits).
SET client_min_messages = warning;
SELECT plan(11);

-- 1. a short run: the loss falls
CALL dac_train('tap_fall', 'mog', '{"steps": 200, "batch": 4, "n_max": 100, "dim_hidden": 32, "num_inds": 8,
                                    "log_every": 25, "checkpoint_every": 50, "lr": 0.002, "seed": 4}');
SELECT cmp_ok(
  (SELECT l.loss FROM dac_training_log l JOIN dac_training_runs r USING (run_id)
   WHERE r.model = 'tap_fall' ORDER BY l.step_to DESC LIMIT 1),
  '<',
  0.7 * (SELECT l.loss FROM dac_training_log l JOIN dac_training_runs r USING (run_id)
         WHERE r.model = 'tap_fall' ORDER BY l.step_to LIMIT 1),
  'loss of the last 25 steps is below 70% of the first 25');

-- 2. paused (run_steps) and resumed gives the same model, byte for byte, as one uninterrupted run
CALL dac_train('tap_a', 'mog', '{"steps": 40, "batch": 3, "n_max": 80, "dim_hidden": 16, "num_inds": 4,
                                 "checkpoint_every": 10, "seed": 8, "strategy": "af"}');
CALL dac_train('tap_b', 'mog', '{"steps": 40, "batch": 3, "n_max": 80, "dim_hidden": 16, "num_inds": 4,
                                 "checkpoint_every": 10, "seed": 8, "strategy": "af", "run_steps": 17}');
SELECT is((SELECT status || ' at ' || step FROM dac_training_runs WHERE model = 'tap_b'), 'paused at 17',
          'run_steps pauses the run at step 17 with a checkpoint');
CALL dac_train('tap_b', 'mog', '{"resume": true}');
SELECT ok(dac_export('tap_a') = dac_export('tap_b'),
          'AF: paused at 17 and resumed equals the uninterrupted run, byte for byte');

-- 3. training from a labelled table of dimension 5 with a group column, then evaluating on held-out
--    labels: a raw-input model (the 0.3.0 recipe), and the default recipe (mlf_embed fine-tuned)
CREATE TABLE tap_items AS
SELECT i AS id, lab, lab / 10 AS shop,
       (SELECT array_agg((CASE WHEN j = lab % 5 THEN 4.0 ELSE 0.0 END + 0.3 * sin(i * 7.1 + j * 3.3))::real ORDER BY j)
        FROM generate_series(0, 4) j) AS emb
FROM generate_series(1, 2000) i, LATERAL (SELECT i % 40 AS lab) l;
CREATE VIEW tap_train AS SELECT * FROM tap_items WHERE lab < 30;
-- what is measured here is the training: the network's own clusters.  (These
-- rows lie on rings of tight clumps of near-duplicates, sin(7.1 i) repeating
-- every 5 rows of a label; a 5-nearest-neighbour graph falls apart into the
-- clumps, and the graph stage, leidenalg's Leiden too, cuts them apart:
-- docs/embeddings.md.  k-means cuts them apart as well, at a silhouette near
-- 1: the count searches, the one-cluster test among them, are off too.)
SET dac.graph_neighbors = 0;
SET dac.k_search = 0;
CREATE VIEW tap_heldout AS SELECT * FROM tap_items WHERE lab >= 30;
CALL dac_train('tap_emb', 'tap_train', '{"vector_column": "emb", "label_column": "lab", "group_column": "shop",
                                         "steps": 150, "batch": 4, "n_max": 100, "k_max": 4, "dim_hidden": 32,
                                         "num_inds": 8, "lr": 0.002, "seed": 2, "input": "raw"}');
SELECT is((SELECT config->>'dim_input' || ' ' || (config->>'density') FROM dac_models WHERE name = 'tap_emb'),
          '5 none', 'a 5-D model without density head was created from the table');
SELECT cmp_ok((SELECT ari FROM dac_evaluate('tap_emb', 'tap_heldout',
                 '{"vector_column": "emb", "label_column": "lab", "group_column": "shop", "sets": 30, "n_max": 100}'))::numeric,
              '>=', 0.5, 'ARI >= 0.5 on sets drawn from held-out labels (Dir(1) shares: some clusters of a few points; two labels of a shop share a centre)');
SELECT ok((SELECT count(*) FROM (SELECT dac_cluster(emb, 'tap_emb') OVER (PARTITION BY shop) c FROM tap_heldout) s
           WHERE c IS NULL) = 0, 'the trained model clusters the held-out rows by shop');
CALL dac_train('tap_def', 'tap_train', '{"vector_column": "emb", "label_column": "lab", "group_column": "shop",
                                         "steps": 150, "batch": 4, "n_max": 100, "k_max": 4, "seed": 2}');
SELECT is((SELECT config - 'input_map' FROM dac_models WHERE name = 'tap_def'), (SELECT config FROM dac_models WHERE name = 'mlf_embed'),
          'given no architecture, the table model is mlf_embed fine-tuned (with a whitening map or not)');
SELECT cmp_ok((SELECT ari FROM dac_evaluate('tap_def', 'tap_heldout',
                 '{"vector_column": "emb", "label_column": "lab", "group_column": "shop", "sets": 30, "n_max": 100}'))::numeric,
              '>=', greatest(0.7, (SELECT ari FROM dac_evaluate('mlf_embed', 'tap_heldout',
                 '{"vector_column": "emb", "label_column": "lab", "group_column": "shop", "sets": 30, "n_max": 100}'))::numeric - 0.02),
              'fine-tuned on the table, ARI >= 0.7 on held-out labels and no worse than mlf_embed''s own');

-- 4. "validate" (on for tables): the report agrees with its rule (the trained weights kept exactly
--    when they are ahead of the start by more than the paired standard error), and the same options
--    give the same held-out rows, scores, choice and weights
SELECT ok((SELECT (v->>'kept' = 'trained') =
                  ((v->'trained_minus_start'->>'ari')::numeric > 0 AND
                   (v->'trained_minus_start'->>'ari')::numeric > (v->'trained_minus_start'->>'se')::numeric)
                  AND (v->>'held_out_labels')::int = 6 AND (v->>'held_out_rows')::int > 6 * 50
           FROM (SELECT validation AS v FROM dac_training_runs WHERE model = 'tap_def') r),
          'the validation of a 30-label table holds 6 labels out and keeps the trained weights only by its rule');
-- 5. "whiten" (on with "validate"): scored on the new rows of the trained labels (the table holds
--    labels out whole too), the best of the three ridges' maps and the gated projection is kept
--    exactly when it is ahead of none there by more than twice the paired standard error and not
--    behind it on every held-out row (nor, the projection, on large sets) by more than one; only a
--    projection kept gives a gate; and then the model takes the table's 5-wide rows only
SELECT ok((SELECT (v->'whiten'->>'kept')::boolean =
                  ((v->'whiten'->'map_minus_without'->>'ari')::numeric > 0 AND
                   (v->'whiten'->'map_minus_without'->>'ari')::numeric > 2 * (v->'whiten'->'map_minus_without'->>'se')::numeric AND
                   (v->'whiten'->'every_held_out_row'->'map_minus_without'->>'ari')::numeric >=
                   -(v->'whiten'->'every_held_out_row'->'map_minus_without'->>'se')::numeric AND
                   coalesce((v->'whiten'->'projection'->'large_sets'->'projection_minus_without'->>'ari')::numeric >=
                            -(v->'whiten'->'projection'->'large_sets'->'projection_minus_without'->>'se')::numeric, true))
                  AND (v->'whiten'->>'best' = 'projection') = (v->'whiten'->'projection' ? 'large_sets')
                  AND ((v->'whiten'->>'kept')::boolean AND v->'whiten'->>'best' = 'projection') = (m.config ? 'input_gate')
                  AND v->'whiten'->>'scored_on' = 'new rows of the trained labels'
                  AND (v->'whiten'->'without'->>'sets')::int = 100
                  AND (v->'whiten'->>'kept')::boolean = (m.config ? 'input_map')
                  AND coalesce(m.config->>'input_map', '5') = '5'
                  AND jsonb_array_length(v->'whiten'->'scores') = 3
           FROM (SELECT validation AS v, model FROM dac_training_runs WHERE model = 'tap_def') r
           JOIN dac_models m ON m.name = r.model),
          'the whitening is kept only by its rule, and a kept map takes the table''s width');
CALL dac_train('tap_def2', 'tap_train', '{"vector_column": "emb", "label_column": "lab", "group_column": "shop",
                                          "steps": 150, "batch": 4, "n_max": 100, "k_max": 4, "seed": 2}');
SELECT ok((SELECT validation FROM dac_training_runs WHERE model = 'tap_def2') =
          (SELECT validation FROM dac_training_runs WHERE model = 'tap_def')
          AND dac_export('tap_def2') = dac_export('tap_def'),
          'the same validated run again: the same report and the same weights, byte for byte');

SELECT * FROM finish();
DROP VIEW tap_train, tap_heldout;
DROP TABLE tap_items;
DELETE FROM dac_training_runs WHERE model LIKE 'tap%';
DELETE FROM dac_models WHERE name LIKE 'tap%';
