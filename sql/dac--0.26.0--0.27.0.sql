-- dac 0.26.0 -> 0.27.0: the clustering's stages declared once.
--
-- * dac_pipeline(model, rows, dim, k, max_k): the stages a clustering of such
--   a group runs, in order, from the module's one table of stages: whether
--   each runs under the current settings, the settings it reads with their
--   values, and the memory it needs.
-- * dac_clustering's jsonb names the stages that ran ("stages"); dac_assign
--   reads clusterings with or without it.
-- * No clustering changes: every form gives the same ids, probabilities and
--   parameters as 0.26.0.  Users' models, runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.27.0'" to load this file. \quit

CREATE FUNCTION @extschema@.dac_pipeline(model text DEFAULT NULL, rows integer DEFAULT 300,
    dim integer DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT model_name text, OUT ord integer, OUT stage text, OUT runs boolean, OUT settings jsonb,
    OUT memory_kb bigint, OUT applies_to text, OUT does text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_pipeline_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 15;
COMMENT ON FUNCTION @extschema@.dac_pipeline(text, integer, integer, integer, integer) IS
'the stages a clustering of a group of rows points of width dim runs with the model (NULL: the one dac_cluster would use), in order: whether each runs under the current settings and the given count, the settings it reads and their values, the memory it needs beside the network''s passes';
