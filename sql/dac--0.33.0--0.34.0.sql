-- dac 0.33.0 -> 0.34.0: a cluster width a user can give; dac.noise leaves a
-- row NULL only where it is both far in its cluster's tail and isolated.
--
-- * dac.cluster_width (a setting of the module): a 2-D cluster's width in
--   the data's own units, in place of the width each group's frame reads
--   from its rows; the passes run until one finds nothing and a row none
--   claims is a cluster of its own.  0 (the default) keeps 0.33.0's.
-- * A cluster's tail is read with the correlation of its members: their
--   squared standardised distance as a scaled χ² with the two moments that
--   correlation gives (before: χ² in as many degrees of freedom as the
--   network's coordinates, as if they were independent).
-- * A row in that tail is noise only when its nearest row is at least twice
--   as far from it as that row's own nearest row is.  Rows in a sparse lobe
--   of a cluster, with neighbours of their own, stay clustered.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.  Clusterings without dac.noise are
--   0.33.0's; with it, fewer rows are NULL (384-d embedding rows at 0.001:
--   6.3% -> 1.9%).

\echo Use "ALTER EXTENSION dac UPDATE TO '0.34.0'" to load this file. \quit

-- Nothing to change in the catalog: the setting and the noise test live in
-- the module.
