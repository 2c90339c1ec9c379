-- dac 0.8.0 -> 0.9.0: 2-D points in any units.
--
-- * The shipped 2-D models (mlf_mog2d, af_mog2d, mlf64_mog2d, mlf_small2d,
--   mlf_fast2d, mlf_warped2d) take points in any units and origin: their
--   configuration says "input": "scaled" with the cluster width they were
--   trained at ("unit_width"), and each set is centred and scaled to it in
--   double precision before the network sees it (src/core/frame.h).  The
--   network weights are the same as 0.8.0's, in a file whose configuration
--   says so; the version of each row whose bytes change goes up by one, so
--   cached copies are read again.  A model a user trained
--   or fine-tuned before keeps its configuration and its behaviour.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.9.0'" to load this file. \quit

ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
   SET weights = f.w, config = @extschema@.dac_weights_info(f.w) -> 'config',
       version = m.version + (m.weights IS DISTINCT FROM f.w)::integer, updated_at = pg_catalog.now()
  FROM (SELECT n AS name, dac_internal.dac_shipped_weights(n OPERATOR(pg_catalog.||) '.safetensors') AS w
          FROM pg_catalog.unnest(ARRAY['mlf_mog2d', 'af_mog2d', 'mlf64_mog2d', 'mlf_small2d',
                                       'mlf_fast2d', 'mlf_warped2d']) AS n) f
 WHERE m.name OPERATOR(pg_catalog.=) f.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
