-- dac 0.43.0 -> 0.44.0: the one-cluster test's reading of normal scores.
--
-- * A group still one cluster whose table has no more columns than the
--   model's width is split where k-means separates its normal scores with
--   some structure (mean silhouette 0.22 or more) and beats a
--   Gaussian of their covariance by 0.25 / sqrt(m) (m: the test's sample,
--   at most 300 rows), in place of a fixed 0.06.  Standardised tables of
--   2+ classes come back as one cluster less often; groups whose normal
--   scores show little structure (most embeddings) are no longer
--   split by this test.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.44.0'" to load this file. \quit
