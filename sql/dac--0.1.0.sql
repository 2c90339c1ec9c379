/* dac--0.1.0.sql: Deep Amortized Clustering */

\echo Use "CREATE EXTENSION dac" to load this file. \quit

-- ------------------------------------------------------------------ module

CREATE FUNCTION dac_version()
RETURNS text
AS 'MODULE_PATHNAME', 'dac_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dac_version() IS
'version of the dac extension and the precision of its numeric core';

CREATE FUNCTION dac_blas_info()
RETURNS text
AS 'MODULE_PATHNAME', 'dac_blas_info'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dac_blas_info() IS
'the OpenBLAS kernels this backend uses (e.g. SkylakeX)';

CREATE FUNCTION dac_weights_info(weights bytea)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dac_weights_info'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dac_weights_info(bytea) IS
'validates a DAC weights file (safetensors) and returns its configuration, parameter and tensor counts';

CREATE FUNCTION dac_shipped_weights(file text)
RETURNS bytea
AS 'MODULE_PATHNAME', 'dac_shipped_weights'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dac_shipped_weights(text) IS
'a weights file installed with the extension (in $sharedir/extension/dac/)';

-- ------------------------------------------------------------------ models

CREATE TABLE dac_models (
    name        text PRIMARY KEY
                CHECK (name ~ '^[A-Za-z_][A-Za-z0-9_.-]*$' AND length(name) < 64),
    config      jsonb NOT NULL,
    weights     bytea NOT NULL,
    version     bigint NOT NULL DEFAULT 1,
    shipped     boolean NOT NULL DEFAULT false,
    metrics     jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
-- float32 weights do not compress: store them out of line, uncompressed
ALTER TABLE dac_models ALTER COLUMN weights SET STORAGE EXTERNAL;

COMMENT ON TABLE dac_models IS
'DAC models: configuration, safetensors weights, version; shipped rows come with the extension';

-- pg_dump keeps the user's models; the shipped ones come back with CREATE EXTENSION
SELECT pg_catalog.pg_extension_config_dump('dac_models', 'WHERE NOT shipped');

CREATE FUNCTION dac_import(name text, weights bytea, metrics jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    info jsonb := dac_weights_info(weights);   -- rejects a malformed file
    v bigint;
BEGIN
    IF name IS NULL OR weights IS NULL THEN
        RAISE EXCEPTION 'model name and weights must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF EXISTS (SELECT 1 FROM dac_models m WHERE m.name = dac_import.name AND m.shipped) THEN
        RAISE EXCEPTION 'model "%" is shipped with the extension and cannot be replaced', name
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Import the weights under another name.';
    END IF;
    INSERT INTO dac_models AS m (name, config, weights, metrics)
    VALUES (dac_import.name, info -> 'config', dac_import.weights, dac_import.metrics)
    ON CONFLICT ON CONSTRAINT dac_models_pkey DO UPDATE
        SET config = excluded.config,
            weights = excluded.weights,
            metrics = coalesce(excluded.metrics, m.metrics),
            version = m.version + 1,
            updated_at = now()
    RETURNING m.version INTO v;
    RETURN v;
END
$$;

COMMENT ON FUNCTION dac_import(text, bytea, jsonb) IS
'adds a model from a safetensors weights file, or replaces its weights (version + 1); returns the version';

CREATE FUNCTION dac_export(name text)
RETURNS bytea
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    w bytea;
BEGIN
    SELECT m.weights INTO w FROM dac_models m WHERE m.name = dac_export.name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'model "%" does not exist', name
            USING ERRCODE = 'undefined_object';
    END IF;
    RETURN w;
END
$$;

COMMENT ON FUNCTION dac_export(text) IS
'the weights of a model as a safetensors file (readable by any safetensors tool)';

-- the shipped models
INSERT INTO dac_models (name, config, weights, shipped, metrics)
SELECT f.name, dac_weights_info(f.w) -> 'config', f.w, true, f.metrics::jsonb
FROM (VALUES
    ('mlf_mog2d', dac_shipped_weights('mlf_mog2d.safetensors'),
     '{"trained_on": "mog", "see": "weights/README.md"}'),
    ('af_mog2d', dac_shipped_weights('af_mog2d.safetensors'),
     '{"trained_on": "mog", "see": "weights/README.md"}')
) AS f(name, w, metrics);

-- ------------------------------------------------------------------ clustering

CREATE FUNCTION dac_cluster(x real[])
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION dac_cluster(x real[], model text)
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION dac_cluster(x double precision[])
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION dac_cluster(x double precision[], model text)
RETURNS integer
AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION dac_cluster(real[]) IS
'window function: clusters the partition with dac.default_model; cluster id of the row (1, 2, ...), NULL for a NULL vector';
COMMENT ON FUNCTION dac_cluster(real[], text) IS
'window function: clusters the partition with the named model; cluster id of the row (1, 2, ...), NULL for a NULL vector';
COMMENT ON FUNCTION dac_cluster(double precision[]) IS
'window function: clusters the partition with dac.default_model; cluster id of the row (1, 2, ...), NULL for a NULL vector';
COMMENT ON FUNCTION dac_cluster(double precision[], text) IS
'window function: clusters the partition with the named model; cluster id of the row (1, 2, ...), NULL for a NULL vector';

CREATE FUNCTION dac_cluster_agg_trans(internal, real[], text)
RETURNS internal
AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION dac_cluster_agg_trans(internal, double precision[], text)
RETURNS internal
AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION dac_cluster_agg_trans(internal, real[])
RETURNS internal
AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION dac_cluster_agg_trans(internal, double precision[])
RETURNS internal
AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION dac_cluster_agg_final(internal)
RETURNS integer[]
AS 'MODULE_PATHNAME', 'dac_cluster_agg_final'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE AGGREGATE dac_cluster_agg(real[], text) (
    SFUNC = dac_cluster_agg_trans, STYPE = internal, FINALFUNC = dac_cluster_agg_final);
CREATE AGGREGATE dac_cluster_agg(double precision[], text) (
    SFUNC = dac_cluster_agg_trans, STYPE = internal, FINALFUNC = dac_cluster_agg_final);
CREATE AGGREGATE dac_cluster_agg(real[]) (
    SFUNC = dac_cluster_agg_trans, STYPE = internal, FINALFUNC = dac_cluster_agg_final);
CREATE AGGREGATE dac_cluster_agg(double precision[]) (
    SFUNC = dac_cluster_agg_trans, STYPE = internal, FINALFUNC = dac_cluster_agg_final);

COMMENT ON AGGREGATE dac_cluster_agg(real[], text) IS
'cluster ids of the group''s vectors with the named model, in aggregate input order (NULL for NULL vectors)';
COMMENT ON AGGREGATE dac_cluster_agg(double precision[], text) IS
'cluster ids of the group''s vectors with the named model, in aggregate input order (NULL for NULL vectors)';
COMMENT ON AGGREGATE dac_cluster_agg(real[]) IS
'cluster ids of the group''s vectors with dac.default_model, in aggregate input order (NULL for NULL vectors)';
COMMENT ON AGGREGATE dac_cluster_agg(double precision[]) IS
'cluster ids of the group''s vectors with dac.default_model, in aggregate input order (NULL for NULL vectors)';

CREATE FUNCTION dac_cluster_set(points real[], model text DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;

CREATE FUNCTION dac_cluster_set(points double precision[], model text DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION dac_cluster_set(real[], text) IS
'clusters a 2-D array of points (one row each); per point its ord, cluster id and membership probability';
COMMENT ON FUNCTION dac_cluster_set(double precision[], text) IS
'clusters a 2-D array of points (one row each); per point its ord, cluster id and membership probability';

CREATE FUNCTION dac_cluster_summary(points real[], model text DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;

CREATE FUNCTION dac_cluster_summary(points double precision[], model text DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;

COMMENT ON FUNCTION dac_cluster_summary(real[], text) IS
'per cluster: size and, for Gaussian models, the network''s mean and standard deviation (else the centroid and spread)';
COMMENT ON FUNCTION dac_cluster_summary(double precision[], text) IS
'per cluster: size and, for Gaussian models, the network''s mean and standard deviation (else the centroid and spread)';

CREATE FUNCTION dac_filter(points real[], model text DEFAULT NULL, anchor integer DEFAULT NULL,
    OUT ord integer, OUT member boolean, OUT prob real)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_filter_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;

CREATE FUNCTION dac_filter(points double precision[], model text DEFAULT NULL, anchor integer DEFAULT NULL,
    OUT ord integer, OUT member boolean, OUT prob real)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_filter_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION dac_filter(real[], text, integer) IS
'one filtering pass: which points belong to the first cluster found (AF: the anchor''s cluster)';
COMMENT ON FUNCTION dac_filter(double precision[], text, integer) IS
'one filtering pass: which points belong to the first cluster found (AF: the anchor''s cluster)';

-- ------------------------------------------------------------------ data and metrics

CREATE FUNCTION dac_generate(kind text, n_sets integer, n_max integer, k_max integer,
    seed bigint, dim integer DEFAULT 2,
    OUT set_id integer, OUT ord integer, OUT label integer, OUT x real[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_generate_srf'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION dac_generate(text, integer, integer, integer, bigint, integer) IS
'the paper''s generators (mog, warped_mog): n_sets sets of up to n_max points from up to k_max clusters; labels from 1';

CREATE FUNCTION dac_ari(a integer[], b integer[])
RETURNS double precision
AS 'MODULE_PATHNAME', 'dac_ari_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dac_ari(integer[], integer[]) IS
'adjusted Rand index of two labelings of the same points (1 = same partition)';

CREATE FUNCTION dac_nmi(a integer[], b integer[])
RETURNS double precision
AS 'MODULE_PATHNAME', 'dac_nmi_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dac_nmi(integer[], integer[]) IS
'normalized mutual information (arithmetic mean of entropies) of two labelings of the same points';
