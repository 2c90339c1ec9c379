-- dac 0.13.0 -> 0.14.0: groups of many classes counted by the links their
-- communities share.
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
