-- dac 0.48.0 -> 0.49.0: a group of a few dozen rows of one class is no
-- longer split by chance.
--
-- * The one-cluster test of a model without a density head (mlf_embed, a
--   table's model) adopts k-means' clean split (mean silhouette 0.5 or more)
--   only where it beats each of 20 Gaussians of the group's spread, not
--   their mean, by the margin, as a Gaussian head's test of each cluster
--   already did: a Gaussian of a few dozen rows reaches a clean split by
--   chance.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.49.0'" to load this file. \quit
