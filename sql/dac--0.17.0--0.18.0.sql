-- dac 0.17.0 -> 0.18.0: the shipped warped and image models trained further.
--
-- * The shipped mlf_warped2d is 0.17.0's network trained 6,000 steps
--   further on warped sets at half the learning rate (stage 16b), and the
--   shipped mlf_fmnist is 0.12.1's image network trained 5,500 steps
--   further on the training images of classes 0-5 (stage 3); weights/README.md
--   has the recipes, their cost and how each was chosen.  Each row takes its
--   new file's bytes and configuration; its version goes up by one when the
--   bytes change, so cached copies are read again.
--   No SQL object changes, no setting changes; a user's models, runs and
--   checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.18.0'" to load this file. \quit

ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
   SET weights = f.w, config = @extschema@.dac_weights_info(f.w) -> 'config',
       version = m.version + (m.weights IS DISTINCT FROM f.w)::integer, updated_at = pg_catalog.now()
  FROM (SELECT 'mlf_warped2d'::text AS name, dac_internal.dac_shipped_weights('mlf_warped2d.safetensors') AS w
        UNION ALL
        SELECT 'mlf_fmnist'::text, dac_internal.dac_shipped_weights('mlf_fmnist.safetensors')) f
 WHERE m.name OPERATOR(pg_catalog.=) f.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
