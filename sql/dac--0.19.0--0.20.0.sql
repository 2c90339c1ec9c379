-- dac 0.19.0 -> 0.20.0: the shipped warped model trained in the units frame.
--
-- * The shipped mlf_warped2d is the mean of two checkpoints of 0.19.0's
--   network trained on in the frame each group is clustered in (stages 17b
--   and 19, weights/README.md has the recipes, their cost and how the file
--   was chosen).  Its row takes the new file's bytes and configuration; its
--   version goes up by one when the bytes change, so cached copies are read
--   again.
--   No SQL object changes, no setting changes; a user's models, runs and
--   checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.20.0'" to load this file. \quit

ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
   SET weights = f.w, config = @extschema@.dac_weights_info(f.w) -> 'config',
       version = m.version + (m.weights IS DISTINCT FROM f.w)::integer, updated_at = pg_catalog.now()
  FROM (SELECT 'mlf_warped2d'::text AS name, dac_internal.dac_shipped_weights('mlf_warped2d.safetensors') AS w) f
 WHERE m.name OPERATOR(pg_catalog.=) f.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
