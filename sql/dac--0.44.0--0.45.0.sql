-- dac 0.44.0 -> 0.45.0: 2-D groups left as one cluster are tested; the rows
-- a pass leaves are framed again.
--
-- * A 2-D model's group (a Gaussian head) left as one cluster, with no
--   count asked for and no width given, is split where k-means separates it
--   cleanly (mean silhouette 0.5 or more) and beyond each of 20 Gaussians
--   of its own spread by 0.05; each cluster's θ is its members' mean and
--   deviation.  The one-cluster test now runs after the small clusters are
--   absorbed or dissolved, so that it reads the count the group ends with.
-- * Where a 2-D model's pass selects nothing and rows are left (no width
--   given), those rows are framed again at the width their own pair
--   distances give and passed once more.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.45.0'" to load this file. \quit
