-- dac 0.30.0 -> 0.31.0: no silent one-cluster answer where k-means
-- separates a group cleanly.
--
-- * A new stage, one_cluster (dac_pipeline lists it; dac_clustering's
--   "stages" names it where it ran): a group that a model without a
--   density head leaves as one cluster, with no count asked for, is split
--   where k-means at 2 to 10 clusters separates it at a mean silhouette of
--   0.5 or more and by 0.05 more than it separates a Gaussian of the
--   group's own mean and covariance.  Its draws follow the rows nearest the
--   group's mean first, so the answer moves with neither the rows' order
--   nor their units.  dac.k_search = 0 turns it off with the count search.
-- * No SQL object changes.  Users' models, runs and checkpoints are
--   untouched; a group the default answered as one cluster can now get
--   two or more.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.31.0'" to load this file. \quit
