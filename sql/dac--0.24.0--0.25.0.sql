-- dac 0.24.0 -> 0.25.0: a table's gate measures each class by its own spread.
--
-- * The gate of a table's projection (dac_train's "whiten", 0.23.0) now
--   divides a row's squared distance to each class by that class's own
--   spread (the 95th percentile of its rows' distances, "input_gate_scales"
--   beside the class means), and sets its threshold from each held-out new
--   row's distance to its own class.  A group of a class that is wider than
--   the table's others is no longer turned away for lying beyond a
--   threshold the tighter classes set.  New runs only: a model made by
--   0.23.0 or 0.24.0 keeps its gate and clusters as before.
-- * dac-cli project numbers the held-out file's labels as the fitted file's.
-- * No SQL object added, replaced or dropped; a user's models, runs and
--   checkpoints are untouched; no shipped model or setting changes.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.25.0'" to load this file. \quit
