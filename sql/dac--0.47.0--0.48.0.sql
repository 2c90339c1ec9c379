-- dac 0.47.0 -> 0.48.0: a group left as one cluster is split where its
-- neighbour graph's communities beat Gaussians of its spread by 0.14
-- modularity (was 0.17).
--
-- * With an embedding model (no Gaussian head), no count asked for and no
--   width given, the one-cluster test's graph margin is 0.14: small groups of
--   a few classes in raw pixels, which the passes leave as one cluster, are
--   found apart; no development group of one class reaches it.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.48.0'" to load this file. \quit
