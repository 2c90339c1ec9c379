-- dac 0.12.0 -> 0.12.1: the image model trained further.
--
-- * The shipped mlf_fmnist is 0.12.0's network trained a second stage on the
--   same images (Fashion-MNIST training images of classes 0-5; weights/README.md
--   has the recipe, its cost and how the checkpoint was chosen).  Its row takes
--   the new file's bytes and configuration; its version goes up by one when the
--   bytes change, so cached copies are read again.  A user's model, run and
--   checkpoint are untouched, and no function changes.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.12.1'" to load this file. \quit

ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
   SET weights = f.w, config = @extschema@.dac_weights_info(f.w) -> 'config',
       version = m.version + (m.weights IS DISTINCT FROM f.w)::integer, updated_at = pg_catalog.now()
  FROM (SELECT 'mlf_fmnist'::text AS name, dac_internal.dac_shipped_weights('mlf_fmnist.safetensors') AS w) f
 WHERE m.name OPERATOR(pg_catalog.=) f.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
