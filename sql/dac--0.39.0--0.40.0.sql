-- dac 0.39.0 -> 0.40.0: the one-cluster test costs less.
--
-- * The test reads a sample of at most 300 rows of a group (the sizes its
--   margins were chosen on), searches k-means' counts there, and spreads
--   the split it adopts to every row (nearest mean, then Lloyd's steps).
-- * Its Gaussian references are drawn through the covariance's square root
--   where that is cheaper, with one k-means++ start per count; the clean
--   split's test averages 4 of them, as the others average theirs.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.  Clusterings change only for groups
--   that reach the one-cluster test and lie near one of its margins, and
--   for one-cluster answers of groups of more than 300 rows.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.40.0'" to load this file. \quit
