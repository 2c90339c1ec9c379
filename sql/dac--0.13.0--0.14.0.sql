-- dac 0.13.0 -> 0.14.0: groups of many classes counted by the links their
-- communities share; the warped model trained further.
--
-- * A new setting, dac.graph_merge (default 0.04), defined by the module:
--   for models without a density head, the graph stage also takes the
--   modularity communities at 4 times dac.graph_resolution (0.2) and merges
--   them while two share more than this part of the smaller one's links;
--   that partition replaces
--   the modularity's (at dac.graph_resolution) when it has 4 or more
--   clusters.  Groups of many classes, which the modularity at one
--   resolution under-counted, are counted far better; groups where it finds
--   fewer than 4 clusters are clustered as before (docs/embeddings.md).
--   SET dac.graph_merge = 0 gives 0.13.0's clusterings.  Models with a
--   density head (every 2-D model, the image model) are not touched.
--   No SQL object changes; a user's models, runs and checkpoints are
--   untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.14.0'" to load this file. \quit

-- * The shipped mlf_warped2d is 0.13.0's network trained further on warped
--   sets (weights/README.md has the recipe, its cost and how the checkpoint
--   was chosen).  Its row takes the new file's bytes and configuration; its
--   version goes up by one when the bytes change, so cached copies are read
--   again.

ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
   SET weights = f.w, config = @extschema@.dac_weights_info(f.w) -> 'config',
       version = m.version + (m.weights IS DISTINCT FROM f.w)::integer, updated_at = pg_catalog.now()
  FROM (SELECT 'mlf_warped2d'::text AS name, dac_internal.dac_shipped_weights('mlf_warped2d.safetensors') AS w) f
 WHERE m.name OPERATOR(pg_catalog.=) f.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
