-- dac 0.18.0 -> 0.19.0: a flow model's pairs of clusters shared out anew.
--
-- * A new setting, dac.pair_split (default on), defined by the module: with
--   dac.pair_merge, a pair of found clusters whose pass keeps them apart
--   becomes the pass's selection and the rest, each with the context of a
--   pass over its own points, when that raises the group's log-likelihood
--   under the clusters' mixture (MLF models with a flow (maf) density head).
--   SET dac.pair_split = off gives 0.18.0's clusterings.
-- * No SQL object changes and no shipped model changes; a user's models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.19.0'" to load this file. \quit

-- Nothing to change in the catalog: the setting lives in the module.
