-- dac 0.32.0 -> 0.33.0: the 2-D models' frame reads a group's cluster width
-- where every row counts.
--
-- * The width σ̂ by which a model with "input": "scaled" (every shipped 2-D
--   model) frames each group is read at counts of at least two pairs of
--   rows a row (before: a thousandth of the pairs, at least 50).  Below
--   that the count is of the closest few pairs, which the rounding of the
--   coordinates and small noise decide: Panama's cities, given to 0.01°,
--   read 2.8 km there and 8 km once moved by 100 m.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched; 2-D groups (most of all small ones
--   and points on curves) can get other ids than under 0.32.0.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.33.0'" to load this file. \quit

-- Nothing to change in the catalog: the frame lives in the module.
