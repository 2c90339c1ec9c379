-- dac 0.15.0 -> 0.16.0: a flow model's pieces of one cluster are joined; a set
-- clustered in several orientations.
--
-- * A new setting, dac.pair_merge (default 0.9), defined by the module: for
--   MLF models with a flow (maf) density head, two found clusters, each among
--   the other's two nearest by mean, become one when one network pass over
--   their points alone selects at least that share of each.  SET
--   dac.pair_merge = 0 gives 0.15.0's clusterings.
-- * A new setting, dac.rotations (default 1: off): above 1, a group of 2-D
--   points is also clustered turned about its mean in that many
--   orientations, and the clustering of the highest log-likelihood kept
--   (models with a Gaussian or flow density head).
-- * The shipped mlf_warped2d is 0.15.0's network trained 16,000 steps
--   further on warped sets (stages 11 and 12; weights/README.md has the
--   recipe, its cost and how it was chosen).  Its row takes the new file's
--   bytes and configuration; its version goes up by one when the bytes
--   change, so cached copies are read again.
--   No SQL object changes; a user's models, runs and checkpoints are
--   untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.16.0'" to load this file. \quit

ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
   SET weights = f.w, config = @extschema@.dac_weights_info(f.w) -> 'config',
       version = m.version + (m.weights IS DISTINCT FROM f.w)::integer, updated_at = pg_catalog.now()
  FROM (SELECT 'mlf_warped2d'::text AS name, dac_internal.dac_shipped_weights('mlf_warped2d.safetensors') AS w) f
 WHERE m.name OPERATOR(pg_catalog.=) f.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
