-- dac 0.38.0 -> 0.39.0: a count asked for is reached by the group's own
-- evidence.
--
-- * 2-D groups given k => (or max_k =>, dac.k, dac.max_k) with more
--   clusters than asked for: the clusters are joined by single linkage on
--   their Gaussians' ridgeline ratios (the pair whose mixture dips least
--   first), not by their closest means, so a ring or a band the passes cut
--   into pieces joins along itself.
-- * Models without a density head given k => (or dac.k): the graph stage
--   keeps its k communities or k-means' k clusters of its sample, whichever
--   has the higher modularity in the group's neighbour graph.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.  Clusterings change only for groups
--   given a count; those with no count asked for are 0.38.0's.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.39.0'" to load this file. \quit
