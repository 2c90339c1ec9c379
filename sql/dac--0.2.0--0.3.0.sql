/* dac--0.2.0--0.3.0.sql: what people who cluster in production ask for
 *
 * - clusterings kept and new rows assigned to them without clustering again:
 *   dac_clustering(points, model, previous) -> jsonb, dac_assign(x,
 *   clustering) -> cluster id, dac_assign_prob(x, clustering) -> its
 *   probability;
 * - stable ids: the same rows give the same ids in any order (in the C code,
 *   no schema change), and a new clustering can take its ids from a
 *   previous one: dac_cluster(x, model, previous) OVER (...), and
 *   dac_match_ids(ids, previous);
 * - representatives: dac_cluster_summary returns each cluster's
 *   representative member (a new OUT column, so the function is re-created);
 * - noise: the setting dac.noise (C only; NULL ids, no schema change).
 *
 * No table changes: models, runs, log rows and checkpoints are untouched.
 */

\echo Use "ALTER EXTENSION dac UPDATE TO '0.3.0'" to load this file. \quit

-- As in the 0.2.0 update: nothing here may resolve to another role's object.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

-- ------------------------------------------------------------------ stable ids

CREATE FUNCTION @extschema@.dac_cluster(x real[], model text, previous integer)
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION @extschema@.dac_cluster(x double precision[], model text, previous integer)
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.dac_cluster(real[], text, integer) IS
'window function: clusters the partition; each row''s id, named after the rows'' previous ids (largest overlap first; new clusters get ids after the largest previous one); NULL model: dac.default_model';
COMMENT ON FUNCTION @extschema@.dac_cluster(double precision[], text, integer) IS
'window function: clusters the partition; each row''s id, named after the rows'' previous ids (largest overlap first; new clusters get ids after the largest previous one); NULL model: dac.default_model';

CREATE FUNCTION @extschema@.dac_match_ids(ids integer[], previous integer[])
RETURNS integer[]
AS 'MODULE_PATHNAME', 'dac_match_ids_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.dac_match_ids(integer[], integer[]) IS
'ids renamed after the previous ids of the same rows: clusters matched by the rows they share, largest overlap first; unmatched clusters get ids after the largest previous one';

-- ------------------------------------------------------------------ representatives

DROP FUNCTION @extschema@.dac_cluster_summary(real[], text);
DROP FUNCTION @extschema@.dac_cluster_summary(double precision[], text);

CREATE FUNCTION @extschema@.dac_cluster_summary(points real[], model text DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;

CREATE FUNCTION @extschema@.dac_cluster_summary(points double precision[], model text DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;

COMMENT ON FUNCTION @extschema@.dac_cluster_summary(real[], text) IS
'per cluster: size, mean and standard deviation (Gaussian models: the network''s θ, refit by EM under dac.em_steps; else the members'' centroid and spread) and the ord of the representative member (nearest the mean; in the σ metric for Gaussian models)';
COMMENT ON FUNCTION @extschema@.dac_cluster_summary(double precision[], text) IS
'per cluster: size, mean and standard deviation (Gaussian models: the network''s θ, refit by EM under dac.em_steps; else the members'' centroid and spread) and the ord of the representative member (nearest the mean; in the σ metric for Gaussian models)';

-- ------------------------------------------------------------------ kept clusterings

CREATE FUNCTION @extschema@.dac_clustering(points real[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.dac_clustering(points double precision[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.dac_clustering(real[], text, integer[]) IS
'clusters a 2-D array of points and returns the clustering to keep: model, version, and per cluster its id, size, mean, standard deviation and representative (ids named after previous when given)';
COMMENT ON FUNCTION @extschema@.dac_clustering(double precision[], text, integer[]) IS
'clusters a 2-D array of points and returns the clustering to keep: model, version, and per cluster its id, size, mean, standard deviation and representative (ids named after previous when given)';

CREATE FUNCTION @extschema@.dac_assign(x real[], clustering jsonb)
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_assign_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.dac_assign(x double precision[], clustering jsonb)
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_assign_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.dac_assign_prob(x real[], clustering jsonb)
RETURNS double precision
AS 'MODULE_PATHNAME', 'dac_assign_prob_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.dac_assign_prob(x double precision[], clustering jsonb)
RETURNS double precision
AS 'MODULE_PATHNAME', 'dac_assign_prob_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.dac_assign(real[], jsonb) IS
'the id of the cluster of a kept clustering (dac_clustering) that x most likely belongs to, under the clusters'' Gaussian mixture; NULL for noise under dac.noise';
COMMENT ON FUNCTION @extschema@.dac_assign(double precision[], jsonb) IS
'the id of the cluster of a kept clustering (dac_clustering) that x most likely belongs to, under the clusters'' Gaussian mixture; NULL for noise under dac.noise';
COMMENT ON FUNCTION @extschema@.dac_assign_prob(real[], jsonb) IS
'the posterior probability of the cluster dac_assign picks';
COMMENT ON FUNCTION @extschema@.dac_assign_prob(double precision[], jsonb) IS
'the posterior probability of the cluster dac_assign picks';
