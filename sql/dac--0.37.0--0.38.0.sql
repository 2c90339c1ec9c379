-- dac 0.37.0 -> 0.38.0: the one-cluster test also reads the group's
-- neighbour graph.
--
-- * Models without a density head (mlf_embed, mlf_fmnist, a table's own):
--   a group the earlier stages leave as one cluster is also split where the
--   Leiden communities of its 5-nearest-neighbour graph have 0.17 more
--   modularity than those of 4 Gaussians of its own spread (classes apart
--   in many dimensions, whose silhouette stays low).
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.  Clusterings change only for groups
--   that 0.37.0 answered as one cluster and this test splits; 2-D models'
--   clusterings are 0.37.0's.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.38.0'" to load this file. \quit
