-- dac 0.41.0 -> 0.42.0: the graph stage counts at two scales.
--
-- * With no count asked for, where dac.graph_resolution finds more than one
--   community, the communities are counted at 4 times it, unless their mean
--   silhouette on the stage's sample is more than 0.05 below the coarser
--   ones'.  Elsewhere dac.graph_merge's partition is kept as before.
--   Groups of models without a density head (mlf_embed, tables,
--   pixels, embeddings) may get more clusters; 2-D models and counts asked
--   for are unchanged.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.42.0'" to load this file. \quit
