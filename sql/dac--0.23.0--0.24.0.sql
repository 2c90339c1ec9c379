-- dac 0.23.0 -> 0.24.0: a table's projection keeps only its directions.
--
-- * A model that keeps a table's projection onto the directions that
--   separate its labels (dac_train's "whiten", 0.23.0) now stores that map
--   as [L - 1, d] ("input_map_rows": L - 1 beside "input_map": d) instead of
--   [d, d] with rows of zeros, and the network's per-set normalisation works
--   on those L - 1 coordinates instead of d: the same clustering (up to
--   rounding), at a fraction of the cost for wide embeddings.  Models made
--   by 0.23.0 keep their square map and cluster as before.
-- * The gate of such a model reads a group 64 rows at a time and stops once
--   the group cannot be one of the table's (the same decision, sooner).
-- * Whitening maps (zero above the diagonal) take BLAS's triangular product,
--   half a general product's work; the model notes which maps are when it
--   is loaded.
-- * Set normalisation orthonormalises its directions along memory: the same
--   clusterings, faster for wide vectors.
-- * No SQL object added, replaced or dropped; a user's models, runs and
--   checkpoints are untouched; no shipped model or setting changes.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.24.0'" to load this file. \quit
