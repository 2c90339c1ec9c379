-- dac 0.35.0 -> 0.36.0: the one-cluster test also reads a group in its
-- columns' normal scores.
--
-- * A group that a model without a density head leaves as one cluster is
--   split where k-means separates it cleanly (mean silhouette 0.5 or more)
--   and better than a Gaussian of its own spread, as before, or, where the
--   model reads no more columns than its width (a table's), where k-means
--   separates the columns' normal scores (each column's ranks mapped to a
--   standard normal's quantiles) by 0.06 more mean silhouette than the mean
--   of 8 Gaussians of theirs.  One class of skewed or coarsely measured
--   columns is near a Gaussian there; classes apart stay apart.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.  Clusterings of 2-D models are
--   0.35.0's; of other models, only groups of at most 32 columns that
--   0.35.0 left as one cluster can change (held-out tabular groups of 2+
--   classes answered as one cluster: 13 of 63 -> 2).

\echo Use "ALTER EXTENSION dac UPDATE TO '0.36.0'" to load this file. \quit
