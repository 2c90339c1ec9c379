-- dac 0.36.0 -> 0.37.0: the setting dac.seed is gone.
--
-- * Anchored-filtering models (af_mog2d) anchor each pass on the first
--   unassigned row of the group's canonical order, as they did at the
--   default dac.seed = -1; the random anchors dac.seed >= 0 asked for
--   clustered no better.  SET dac.seed is now refused; a role or database
--   that set it gets a warning when the module loads, and the setting is
--   dropped for that session (ALTER ROLE ... RESET dac.seed clears it).
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched, and every clustering under the
--   default settings is 0.36.0's.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.37.0'" to load this file. \quit
