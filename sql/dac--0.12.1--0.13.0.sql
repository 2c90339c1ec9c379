-- dac 0.12.1 -> 0.13.0: small clusters in another's fringe are absorbed.
--
-- * A new setting, dac.absorb_size (default 4), defined by the module: for
--   models with a Gaussian or flow density head, a cluster of fewer points
--   joins the cluster that fits its points best unless one of them is an
--   outlier there.  SET dac.absorb_size = 1 gives 0.12.1's clusterings.
--   No SQL object changes; a user's models, runs and checkpoints are
--   untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.13.0'" to load this file. \quit
