-- dac 0.9.0 -> 0.10.0
\echo Use "ALTER EXTENSION dac UPDATE TO '0.10.0'" to load this file. \quit

-- The clustering's graph stage (dac.graph_neighbors, dac.graph_resolution)
-- and the settings dac.k and dac.max_k are in the module; the graph stage
-- changes the clusters that models without a density head give.  User
-- models, runs and checkpoints are not touched.

-- ------------------------------------------------------------------ k => and max_k =>
-- Every one-group form takes the count the caller knows: exactly k => , or
-- at most max_k => (NULL: the model finds it; they override dac.k and
-- dac.max_k).  One signature per form with every argument after the points
-- defaulted, so that any of them can be named alone (previous => too).  The
-- 0.9.0 signatures beside it would make every call ambiguous, so each is
-- renamed with the suffix _0_9: a user's view or function made before this
-- update keeps calling it (by OID), and nothing else does.
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT p.oid, p.oid::regprocedure AS sig, p.proname
             FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = '@extschema@'::regnamespace
               AND ((p.proname = 'dac_cluster' AND p.pronargs BETWEEN 1 AND 3)
                    OR (p.proname IN ('dac_cluster_set', 'dac_cluster_summary', 'dac_cluster_ids')
                        AND p.pronargs = 2)
                    OR (p.proname = 'dac_clustering' AND p.pronargs = 3))
    LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s RENAME TO %I', f.sig, f.proname || '_0_9');
        EXECUTE pg_catalog.format('COMMENT ON FUNCTION %s IS %L', f.oid::regprocedure,
                                  'dac 0.9.0''s signature of ' || f.proname || ', kept for views and functions made before 0.10.0; new calls get ' || f.proname);
    END LOOP;
END $$;

CREATE FUNCTION @extschema@.dac_cluster(x real[], model text DEFAULT NULL, previous integer DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;
CREATE FUNCTION @extschema@.dac_cluster(x double precision[], model text DEFAULT NULL, previous integer DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION @extschema@.dac_cluster(real[], text, integer, integer, integer) IS
'window function: the cluster id of each row of the partition (NULL for NULL vectors and noise); model (NULL: the default), previous ids to keep, exactly k or at most max_k clusters';
COMMENT ON FUNCTION @extschema@.dac_cluster(double precision[], text, integer, integer, integer) IS
'window function: the cluster id of each row of the partition (NULL for NULL vectors and noise); model (NULL: the default), previous ids to keep, exactly k or at most max_k clusters';

CREATE FUNCTION @extschema@.dac_cluster_set(points real[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000 COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_set(points double precision[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000 COST 100000;
COMMENT ON FUNCTION @extschema@.dac_cluster_set(real[], text, integer, integer) IS
'clusters a 2-D array of points (one row each); per point its ord, cluster id and membership probability; exactly k or at most max_k clusters when given';
COMMENT ON FUNCTION @extschema@.dac_cluster_set(double precision[], text, integer, integer) IS
'clusters a 2-D array of points (one row each); per point its ord, cluster id and membership probability; exactly k or at most max_k clusters when given';

CREATE FUNCTION @extschema@.dac_cluster_summary(points real[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10 COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_summary(points double precision[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10 COST 100000;
COMMENT ON FUNCTION @extschema@.dac_cluster_summary(real[], text, integer, integer) IS
'per cluster: size, mean and standard deviation (Gaussian models: the network''s θ, refit by EM under dac.em_steps; else the members'' centroid and spread), the ord of the representative member, and theta: the network''s θ of the cluster (μ then σ; a flow''s context; NULL without a density head); exactly k or at most max_k clusters when given';
COMMENT ON FUNCTION @extschema@.dac_cluster_summary(double precision[], text, integer, integer) IS
'per cluster: size, mean and standard deviation (Gaussian models: the network''s θ, refit by EM under dac.em_steps; else the members'' centroid and spread), the ord of the representative member, and theta: the network''s θ of the cluster (μ then σ; a flow''s context; NULL without a density head); exactly k or at most max_k clusters when given';

CREATE FUNCTION @extschema@.dac_cluster_ids(points real[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer[]
AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_ids(points double precision[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer[]
AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
COMMENT ON FUNCTION @extschema@.dac_cluster_ids(real[], text, integer, integer) IS
'the cluster ids of a 2-D array of points (one row each), NULL for noise; parallel safe, for a table of groups; exactly k or at most max_k clusters when given';
COMMENT ON FUNCTION @extschema@.dac_cluster_ids(double precision[], text, integer, integer) IS
'the cluster ids of a 2-D array of points (one row each), NULL for noise; parallel safe, for a table of groups; exactly k or at most max_k clusters when given';

CREATE FUNCTION @extschema@.dac_clustering(points real[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_clustering(points double precision[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
COMMENT ON FUNCTION @extschema@.dac_clustering(real[], text, integer[], integer, integer) IS
'clusters a 2-D array of points and returns the clustering to keep: model, version, and per cluster its id, size, mean, standard deviation and representative (ids named after previous when given; exactly k or at most max_k clusters when given)';
COMMENT ON FUNCTION @extschema@.dac_clustering(double precision[], text, integer[], integer, integer) IS
'clusters a 2-D array of points and returns the clustering to keep: model, version, and per cluster its id, size, mean, standard deviation and representative (ids named after previous when given; exactly k or at most max_k clusters when given)';

-- The aggregate takes positional arguments only (PostgreSQL's rule for
-- aggregates): dac_cluster_agg(x, model, k) and dac_cluster_agg(x, model, k,
-- max_k), NULL for what is not given.  It keeps cost 1: with postgres_fdw, a
-- costlier aggregate is no longer pushed down to the shards (test/fdw.sh).
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, real[], text, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, double precision[], text, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, real[], text, integer, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, double precision[], text, integer, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.dac_cluster_agg(real[], text, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(double precision[], text, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(real[], text, integer, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(double precision[], text, integer, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
COMMENT ON AGGREGATE @extschema@.dac_cluster_agg(real[], text, integer) IS
'cluster ids of the group''s vectors in aggregate input order (NULL for NULL vectors): model (NULL: the default), exactly k clusters (NULL: found)';
COMMENT ON AGGREGATE @extschema@.dac_cluster_agg(double precision[], text, integer) IS
'cluster ids of the group''s vectors in aggregate input order (NULL for NULL vectors): model (NULL: the default), exactly k clusters (NULL: found)';
COMMENT ON AGGREGATE @extschema@.dac_cluster_agg(real[], text, integer, integer) IS
'cluster ids of the group''s vectors in aggregate input order (NULL for NULL vectors): model (NULL: the default), exactly k (NULL: found) or at most max_k clusters';
COMMENT ON AGGREGATE @extschema@.dac_cluster_agg(double precision[], text, integer, integer) IS
'cluster ids of the group''s vectors in aggregate input order (NULL for NULL vectors): model (NULL: the default), exactly k (NULL: found) or at most max_k clusters';
