-- dac 0.15.0 -> 0.16.0: a flow model's pieces of one cluster are joined; a set
-- clustered in several orientations.
--
-- * A new setting, dac.pair_merge (default 0.9), defined by the module: for
--   MLF models with a flow (maf) density head, two found clusters, each among
--   the other's two nearest by mean, become one when one network pass over
--   their points alone selects at least that share of each.  SET
--   dac.pair_merge = 0 gives 0.15.0's clusterings.
-- * A new setting, dac.rotations (default 1: off): above 1, a group of 2-D
--   points is also clustered turned about its mean in that many
--   orientations, and the clustering of the highest log-likelihood kept
--   (models with a Gaussian or flow density head).
--   No SQL object changes; a user's models, runs and checkpoints are
--   untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.16.0'" to load this file. \quit
