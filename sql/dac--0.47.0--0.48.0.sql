-- dac 0.47.0 -> 0.48.0: given k, a model without a density head keeps the
-- graph's k communities or k-means' k clusters by their modularity and
-- their silhouette together.
--
-- * With a count asked for (k => or dac.k) and a model without a density
--   head (mlf_embed, a table's model), the graph stage keeps its k
--   communities or k-means' k clusters of its sample, whichever is ahead on
--   the sum of their modularity in its neighbour graph (resolution 1) and
--   their mean silhouette.  Modularity alone preferred equal shares: it kept
--   k-means' halves of a large class beside small ones.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.48.0'" to load this file. \quit
