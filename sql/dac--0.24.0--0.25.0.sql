-- dac 0.24.0 -> 0.25.0: a flow model's cluster contexts fitted to the group.
--
-- * A new setting, dac.refine_rounds (default 0, off), defined by the module:
--   for models with a flow (maf) density head, after dac.pair_merge, each
--   round moves every found cluster's context by 30 Adam steps up the mean
--   log-density of its points (the network's weights fixed), then moves each
--   point to the cluster likeliest to have drawn it.  At 0 every clustering
--   is 0.24.0's.
-- * No SQL object changes and no shipped model changes; a user's models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.25.0'" to load this file. \quit

-- Nothing to change in the catalog: the setting lives in the module.
