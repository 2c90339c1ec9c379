-- dac 0.26.0 -> 0.27.0: the clustering's stages declared once.
--
-- * dac_pipeline(model, rows, dim, k, max_k): the stages a clustering of such
--   a group runs, in order, from the module's one table of stages: whether
--   each runs under the current settings, the settings it reads with their
--   values, and the memory it needs.
-- * dac_clustering's jsonb names the stages that ran ("stages"); dac_assign
--   reads clusterings with or without it.
-- * Vectors of bigint[] are taken by every form that takes integer[] (the
--   C entry points are the same ones).
-- * Points of the type point cluster as they are (x, y), in the window
--   function and the aggregate.
-- * dac_cluster with text or jsonb, or with a count in the model's place,
--   says how to call it (it was PostgreSQL's "function does not exist").
-- * No clustering changes: every form gives 0.26.0's ids, probabilities and
--   parameters.  Users' models, runs and checkpoints are untouched.

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

-- ------------------------------------------------------------------ bigint[] vectors

CREATE FUNCTION @extschema@.dac_cluster(x bigint[], model text DEFAULT NULL, previous integer DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;
CREATE FUNCTION @extschema@.dac_cluster_set(points bigint[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000 COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_summary(points bigint[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10 COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_ids(points bigint[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer[] AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_clustering(points bigint[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS jsonb AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_assign(x bigint[], clustering jsonb)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_assign_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_assign_prob(x bigint[], clustering jsonb)
RETURNS double precision AS 'MODULE_PATHNAME', 'dac_assign_prob_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_filter(points bigint[], model text DEFAULT NULL, anchor integer DEFAULT NULL,
    OUT ord integer, OUT member boolean, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_filter_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, bigint[])
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, bigint[], text)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, bigint[], text, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, bigint[], text, integer, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.dac_cluster_agg(bigint[]) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(bigint[], text) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(bigint[], text, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(bigint[], text, integer, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);

-- ------------------------------------------------------------------ points

CREATE FUNCTION @extschema@.dac_cluster(x point, model text DEFAULT NULL, previous integer DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION @extschema@.dac_cluster(point, text, integer, integer, integer) IS
'window function: clusters the partition''s points (x, y) once; the row''s cluster id (NULL for a NULL point or noise)';
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, point)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, point, text)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, point, text, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, point, text, integer, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.dac_cluster_agg(point) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(point, text) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(point, text, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(point, text, integer, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);

-- ------------------------------------------------------------------ calls that name their fix

-- dac_cluster(text), dac_cluster(jsonb) and dac_cluster(vector, integer): a window
-- function that says how to call dac_cluster; its arguments have no names, so
-- that dac_cluster(x, k => 3) still means the count.
CREATE FUNCTION @extschema@.dac_cluster(text)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_misused'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster(jsonb)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_misused'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster(real[], integer)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_misused'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster(double precision[], integer)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_misused'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster(numeric[], integer)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_misused'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster(integer[], integer)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_misused'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster(bigint[], integer)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_misused'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster(point, integer)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_misused'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dac_cluster(text) IS 'says how to give dac_cluster a vector (real[])';
COMMENT ON FUNCTION @extschema@.dac_cluster(jsonb) IS 'says how to give dac_cluster a vector (real[])';
COMMENT ON FUNCTION @extschema@.dac_cluster(real[], integer) IS 'says how to give dac_cluster a count (k => )';
COMMENT ON FUNCTION @extschema@.dac_cluster(double precision[], integer) IS 'says how to give dac_cluster a count (k => )';
COMMENT ON FUNCTION @extschema@.dac_cluster(numeric[], integer) IS 'says how to give dac_cluster a count (k => )';
COMMENT ON FUNCTION @extschema@.dac_cluster(integer[], integer) IS 'says how to give dac_cluster a count (k => )';
COMMENT ON FUNCTION @extschema@.dac_cluster(bigint[], integer) IS 'says how to give dac_cluster a count (k => )';
COMMENT ON FUNCTION @extschema@.dac_cluster(point, integer) IS 'says how to give dac_cluster a count (k => )';
