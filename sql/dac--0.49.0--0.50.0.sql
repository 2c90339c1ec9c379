-- dac 0.49.0 -> 0.50.0: the graph stage's communities are Leiden's runs
-- until the modularity stops rising.
--
-- * The graph stage of a model without a density head (mlf_embed, a table's
--   model) and the one-cluster test's neighbour graph repeat Leiden's run,
--   each from the last one's communities, while the modularity rises (as
--   leidenalg iterates): one run at the coarse resolution could leave a
--   small class inside a large one.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.50.0'" to load this file. \quit
