-- dac 0.10.0 -> 0.11.0
\echo Use "ALTER EXTENSION dac UPDATE TO '0.11.0'" to load this file. \quit

-- In the module: a kept clustering carries a temperature and each cluster a
-- stability (dac_clustering measures them; it clusters four rows in five
-- again for the stability), and dac_assign_prob is calibrated with them;
-- clusterings kept before this update have neither and keep their old
-- probabilities.  The setting dac.progress (NOTICEs from long clusterings).
-- User models, runs and checkpoints are not touched.

-- ------------------------------------------------------------------ numeric[] and integer[]
-- Vectors may be numeric[] (what ARRAY[0.5, 1.5] is) or integer[] (pixel
-- values, counts), converted to real as the real[] and double precision[]
-- forms are.  Each form gets the same signature with numeric[] and with
-- integer[]: without them PostgreSQL found the call ambiguous between
-- real[] and double precision[] ("function ... is not unique").  The C
-- entry points are the same ones; the comments are copied from the
-- double precision[] forms below.
CREATE FUNCTION @extschema@.dac_cluster(x numeric[], model text DEFAULT NULL, previous integer DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;
CREATE FUNCTION @extschema@.dac_cluster(x integer[], model text DEFAULT NULL, previous integer DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;

CREATE FUNCTION @extschema@.dac_cluster_set(points numeric[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000 COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_set(points integer[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000 COST 100000;

CREATE FUNCTION @extschema@.dac_cluster_summary(points numeric[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10 COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_summary(points integer[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10 COST 100000;

CREATE FUNCTION @extschema@.dac_cluster_ids(points numeric[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer[] AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_ids(points integer[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer[] AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;

CREATE FUNCTION @extschema@.dac_clustering(points numeric[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS jsonb AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_clustering(points integer[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS jsonb AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;

CREATE FUNCTION @extschema@.dac_assign(x numeric[], clustering jsonb)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_assign_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_assign(x integer[], clustering jsonb)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_assign_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_assign_prob(x numeric[], clustering jsonb)
RETURNS double precision AS 'MODULE_PATHNAME', 'dac_assign_prob_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_assign_prob(x integer[], clustering jsonb)
RETURNS double precision AS 'MODULE_PATHNAME', 'dac_assign_prob_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.dac_filter(points numeric[], model text DEFAULT NULL, anchor integer DEFAULT NULL,
    OUT ord integer, OUT member boolean, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_filter_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
CREATE FUNCTION @extschema@.dac_filter(points integer[], model text DEFAULT NULL, anchor integer DEFAULT NULL,
    OUT ord integer, OUT member boolean, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_filter_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;

CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, numeric[])
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, integer[])
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, numeric[], text)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, integer[], text)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, numeric[], text, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, integer[], text, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, numeric[], text, integer, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, integer[], text, integer, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.dac_cluster_agg(numeric[]) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(integer[]) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(numeric[], text) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(integer[], text) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(numeric[], text, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(integer[], text, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(numeric[], text, integer, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(integer[], text, integer, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);

COMMENT ON FUNCTION @extschema@.dac_assign_prob(real[], jsonb) IS
'the probability of the cluster dac_assign picks: the chance that clustering the row with the set would have put it there (the clusters'' Gaussian posterior at the clustering''s temperature, times the cluster''s stability)';
COMMENT ON FUNCTION @extschema@.dac_assign_prob(double precision[], jsonb) IS
'the probability of the cluster dac_assign picks: the chance that clustering the row with the set would have put it there (the clusters'' Gaussian posterior at the clustering''s temperature, times the cluster''s stability)';

-- Each new form's comment is its double precision[] twin's.
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT p.oid::regprocedure AS sig, d.oid::regprocedure AS twin, p.prokind
             FROM pg_catalog.pg_proc p
             JOIN pg_catalog.pg_proc d
               ON d.proname = p.proname AND d.pronamespace = p.pronamespace
              AND d.pronargs = p.pronargs AND d.oid <> p.oid
              AND pg_catalog.array_to_string(d.proargtypes::pg_catalog.oid[], ',')
                  = pg_catalog.regexp_replace(pg_catalog.array_to_string(p.proargtypes::pg_catalog.oid[], ','),
                                              '^[0-9]+', 'double precision[]'::pg_catalog.regtype::pg_catalog.oid::text)
             WHERE p.pronamespace = '@extschema@'::regnamespace
               AND p.proname <> 'dac_cluster_agg_trans'
               AND p.proargtypes[0] IN ('numeric[]'::pg_catalog.regtype, 'integer[]'::pg_catalog.regtype)
    LOOP
        EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L',
                                  CASE WHEN f.prokind = 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
                                  f.sig, pg_catalog.obj_description(f.twin, 'pg_proc'));
    END LOOP;
END $$;
