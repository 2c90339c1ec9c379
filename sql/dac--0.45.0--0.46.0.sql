-- dac 0.45.0 -> 0.46.0: with a 2-D model, every cluster the passes found is
-- tested as a group of one cluster is.
--
-- * With a Gaussian head (the 2-D models), no count asked for and no width
--   given, each cluster is split where k-means separates its parts
--   strongly (mean silhouette 0.7 or more) and beyond each of 20 Gaussians
--   of its own spread per cluster tested; the parts' θ are their members'
--   mean and deviation.  A group of one cluster is tested as before.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.46.0'" to load this file. \quit
