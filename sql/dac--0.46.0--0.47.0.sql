-- dac 0.46.0 -> 0.47.0: with a 2-D model, the halves of a Gaussian a pass
-- cut in two become one cluster again.
--
-- * With a Gaussian head (the 2-D models), no count asked for and no width
--   given, the modes stage, after joining chains of pieces, joins two other
--   clusters, each the other's likeliest partner along their mixture's
--   ridgeline, where one Gaussian of their rows fits as well as the two by
--   Akaike's criterion (6 more parameters must raise the log-likelihood by
--   more than 6).  A group it would leave one cluster keeps its pieces where
--   k-means separates it cleanly, as before.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.47.0'" to load this file. \quit
