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
SET search_path = pg_catalog, @extschema@, pg_temp
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
SET search_path = pg_catalog, @extschema@, pg_temp
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
INSERT INTO @extschema@.dac_models (name, config, weights, shipped, metrics)
SELECT f.name, @extschema@.dac_weights_info(f.w) OPERATOR(pg_catalog.->) 'config', f.w, true, f.metrics::pg_catalog.jsonb
FROM (VALUES
    ('mlf_mog2d', @extschema@.dac_shipped_weights('mlf_mog2d.safetensors'),
     '{"trained_on": "mog", "see": "weights/README.md"}'),
    ('af_mog2d', @extschema@.dac_shipped_weights('af_mog2d.safetensors'),
     '{"trained_on": "mog", "see": "weights/README.md"}'),
    ('mlf64_mog2d', @extschema@.dac_shipped_weights('mlf64_mog2d.safetensors'),
     '{"trained_on": "mog", "width": 64, "see": "weights/README.md"}')
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
'per cluster: size and, for Gaussian models, the network''s mean and standard deviation (refit by EM under dac.em_steps; else the centroid and spread)';
COMMENT ON FUNCTION dac_cluster_summary(double precision[], text) IS
'per cluster: size and, for Gaussian models, the network''s mean and standard deviation (refit by EM under dac.em_steps; else the centroid and spread)';

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

-- ------------------------------------------------------------------ training

CREATE TABLE dac_training_runs (
    run_id            bigserial PRIMARY KEY,
    model             text NOT NULL,
    source            text NOT NULL,
    options           jsonb NOT NULL,
    status            text NOT NULL DEFAULT 'running'
                      CHECK (status IN ('running', 'paused', 'finished', 'failed', 'cancelled', 'interrupted')),
    step              bigint NOT NULL DEFAULT 0,
    total_steps       bigint NOT NULL,
    last_loss         double precision,
    steps_per_second  double precision,
    started_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    error             text,
    pid               integer NOT NULL DEFAULT pg_backend_pid(),
    backend_start     timestamptz
);
COMMENT ON TABLE dac_training_runs IS
'one row per CALL dac_train: status (running, paused, finished, failed, cancelled, interrupted), step reached, last loss, timings, error';

CREATE TABLE dac_training_log (
    run_id      bigint NOT NULL REFERENCES dac_training_runs ON DELETE CASCADE,
    step_from   bigint NOT NULL,
    step_to     bigint NOT NULL,
    loss        double precision,
    seconds     double precision NOT NULL,
    PRIMARY KEY (run_id, step_to)
);
COMMENT ON TABLE dac_training_log IS
'mean training loss per range of steps, committed with each checkpoint';

CREATE TABLE dac_checkpoints (
    model       text PRIMARY KEY REFERENCES dac_models (name) ON DELETE CASCADE ON UPDATE CASCADE,
    run_id      bigint,
    step        bigint NOT NULL,
    total_steps bigint NOT NULL,
    source      text NOT NULL,
    options     jsonb NOT NULL,
    state       bytea NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE dac_checkpoints ALTER COLUMN state SET STORAGE EXTERNAL;
COMMENT ON TABLE dac_checkpoints IS
'the optimiser state (Adam moments, step, RNG) of each model''s last committed checkpoint; resume continues from it';

SELECT pg_catalog.pg_extension_config_dump('dac_training_runs', '');
SELECT pg_catalog.pg_extension_config_dump('dac_training_runs_run_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dac_training_log', '');
SELECT pg_catalog.pg_extension_config_dump('dac_checkpoints', '');

CREATE FUNCTION dac_train_begin(weights bytea, state bytea, source text, options jsonb)
RETURNS jsonb AS 'MODULE_PATHNAME', 'dac_train_begin' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION dac_train_steps(n integer, OUT step bigint, OUT loss double precision, OUT seconds double precision)
RETURNS record AS 'MODULE_PATHNAME', 'dac_train_steps' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION dac_train_weights() RETURNS bytea
AS 'MODULE_PATHNAME', 'dac_train_weights' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION dac_train_state() RETURNS bytea
AS 'MODULE_PATHNAME', 'dac_train_state' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION dac_train_end() RETURNS void
AS 'MODULE_PATHNAME', 'dac_train_end' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dac_train_begin(bytea, bytea, text, jsonb) IS 'internal: starts this session''s trainer (used by dac_train)';
COMMENT ON FUNCTION dac_train_steps(integer) IS 'internal: runs training steps (used by dac_train)';
COMMENT ON FUNCTION dac_train_weights() IS 'internal: the weights being trained (used by dac_train)';
COMMENT ON FUNCTION dac_train_state() IS 'internal: the optimiser state (used by dac_train)';
COMMENT ON FUNCTION dac_train_end() IS 'internal: frees this session''s trainer (used by dac_train)';

-- Each key of options is known and of its type (ints, nums, bools, strs);
-- the errors name the key.  Shared by dac_train_options and dac_evaluate.
CREATE FUNCTION dac_check_option_types(what text, options jsonb, ints text[], nums text[],
                                       bools text[], strs text[])
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
DECLARE
    k text;
    v jsonb;
BEGIN
    IF options IS NULL OR jsonb_typeof(options) <> 'object' THEN
        RAISE EXCEPTION '% options must be a JSON object', what
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR k, v IN SELECT * FROM jsonb_each(options) LOOP
        IF k = ANY (ints) THEN
            IF jsonb_typeof(v) <> 'number' OR v::numeric <> trunc(v::numeric) THEN
                RAISE EXCEPTION 'option "%" must be an integer, not %', k, v
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        ELSIF k = ANY (nums) THEN
            IF jsonb_typeof(v) <> 'number' THEN
                RAISE EXCEPTION 'option "%" must be a number, not %', k, v
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        ELSIF k = ANY (bools) THEN
            IF jsonb_typeof(v) <> 'boolean' THEN
                RAISE EXCEPTION 'option "%" must be true or false, not %', k, v
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        ELSIF k = ANY (strs) THEN
            IF jsonb_typeof(v) <> 'string' THEN
                RAISE EXCEPTION 'option "%" must be a string, not %', k, v
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        ELSE
            RAISE EXCEPTION 'unknown option "%"', k
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'The options are ' || array_to_string(ints || nums || bools || strs, ', ') || '.';
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION dac_check_option_types(text, jsonb, text[], text[], text[], text[]) IS
'internal: checks that each option is known and of its type (used by dac_train_options and dac_evaluate)';

-- The training options, completed with defaults and checked.  Every key is
-- named in its error.
CREATE FUNCTION dac_train_options(source text, options jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
DECLARE
    generated boolean := source IN ('mog', 'warped_mog');
    o jsonb;
    k text;
    ints text[] := ARRAY['dim', 'dim_hidden', 'num_heads', 'num_inds', 'num_blocks', 'steps',
                         'batch', 'n_max', 'k_max', 'mix_n_max', 'mix_k_max', 'mix_ratio', 'seed', 'checkpoint_every',
                         'log_every', 'run_steps'];
    nums text[] := ARRAY['lr', 'clip'];
    bools text[] := ARRAY['shared_blocks', 'resume', 'replace', 'fixed_n'];
    strs text[] := ARRAY['strategy', 'density', 'vector_column', 'label_column', 'group_column'];
    lo numeric;
    hi numeric;
BEGIN
    PERFORM @extschema@.dac_check_option_types('dac_train', options, ints, nums, bools, strs);
    o := jsonb_build_object(
        'strategy', 'mlf', 'density', CASE WHEN generated THEN 'gaussian_diag' ELSE 'none' END,
        'dim', 2, 'dim_hidden', 128, 'num_heads', 4, 'num_inds', 32, 'num_blocks', 4,
        'shared_blocks', true, 'steps', 1000, 'batch', 10, 'n_max', 300, 'k_max', 4,
        'mix_n_max', 0, 'mix_k_max', 0, 'mix_ratio', 1, 'lr', 5e-4, 'clip', 10, 'seed', 1, 'checkpoint_every', 100, 'log_every', 50,
        'fixed_n', false, 'run_steps', 1000000000, 'resume', false, 'replace', false) || options;
    IF o->>'strategy' NOT IN ('mlf', 'af') THEN
        RAISE EXCEPTION 'option "strategy" must be "mlf" or "af", not "%"', o->>'strategy'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o->>'density' NOT IN ('gaussian_diag', 'none') THEN
        RAISE EXCEPTION 'option "density" must be "gaussian_diag" or "none", not "%"', o->>'density'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR k, lo, hi IN VALUES ('dim', 1, 16384), ('dim_hidden', 1, 4096), ('num_heads', 1, 4096),
            ('num_inds', 1, 1024), ('num_blocks', 1, 16), ('steps', 1, 1000000000),
            ('batch', 1, 100000), ('n_max', 4, 1000000), ('k_max', 1, 10000),
            ('mix_n_max', 0, 1000000), ('mix_k_max', 0, 10000), ('mix_ratio', 1, 1000), ('seed', 0, 9007199254740991), ('checkpoint_every', 1, 1000000000),
            ('log_every', 1, 1000000000), ('run_steps', 1, 1000000000), ('lr', 0, 1), ('clip', 0, 1e30) LOOP
        IF k = 'lr' AND ((o->>k)::numeric <= 0 OR (o->>k)::numeric > 1) THEN
            RAISE EXCEPTION 'option "lr" must be greater than 0 and at most 1, not %', o->k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF (o->>k)::numeric < lo OR (o->>k)::numeric > hi THEN
            RAISE EXCEPTION 'option "%" must be between % and %, not %', k, lo, hi, o->k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END LOOP;
    IF (o->>'mix_n_max')::int BETWEEN 1 AND 3 THEN
        RAISE EXCEPTION 'option "mix_n_max" must be 0 (off) or between 4 and 1000000, not %', o->'mix_n_max'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF ((o->>'mix_n_max')::int = 0) <> ((o->>'mix_k_max')::int = 0) THEN
        RAISE EXCEPTION 'options "mix_n_max" and "mix_k_max" must be set together'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Set both, or leave both at 0 (no mix).';
    END IF;
    IF (o->>'dim_hidden')::int % (o->>'num_heads')::int <> 0 THEN
        RAISE EXCEPTION 'option "dim_hidden" (%) must be a multiple of "num_heads" (%)',
            o->'dim_hidden', o->'num_heads' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF generated THEN
        FOREACH k IN ARRAY ARRAY['vector_column', 'label_column', 'group_column'] LOOP
            IF o ? k THEN
                RAISE EXCEPTION 'option "%" applies only to a table source, not "%"', k, source
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
        IF source = 'warped_mog' AND (o->>'dim')::int <> 2 THEN
            RAISE EXCEPTION 'option "dim" must be 2 for warped_mog' USING ERRCODE = 'invalid_parameter_value';
        END IF;
    ELSE
        FOREACH k IN ARRAY ARRAY['vector_column', 'label_column'] LOOP
            IF NOT o ? k THEN
                RAISE EXCEPTION 'option "%" is required for a table source', k
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
        IF options ? 'dim' THEN
            RAISE EXCEPTION 'option "dim" comes from the table''s vectors; leave it out'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    RETURN o;
END
$$;
COMMENT ON FUNCTION dac_train_options(text, jsonb) IS
'the options dac_train will use: the given ones, checked, completed with defaults';

-- A procedure that commits cannot carry a SET search_path clause: the 0.2.0
-- update, run by every CREATE EXTENSION, replaces this one with a procedure
-- that pins its path as its first statement and after each commit.
CREATE PROCEDURE dac_train(model text, source text, options jsonb DEFAULT '{}')
LANGUAGE plpgsql
AS $$
DECLARE
    src text;
    opts jsonb;
    cur @extschema@.dac_models;
    ck @extschema@.dac_checkpoints;
    resume boolean;
    w bytea;
    st bytea;
    cfg jsonb;
    run bigint;
    r record;
    total bigint;
    every bigint;
    log_every bigint;
    at_step bigint;
    start_step bigint;
    stop_at bigint;
    chunk integer;
    failed text;
    msg text;
    code text;
    elapsed double precision := 0;
    rate double precision;
    log_from bigint[] := '{}';
    log_to bigint[] := '{}';
    log_loss double precision[] := '{}';
    log_sec double precision[] := '{}';
    arch_keys text[] := ARRAY['strategy', 'density', 'dim', 'dim_hidden', 'num_heads', 'num_inds',
                              'num_blocks', 'shared_blocks'];
    k text;
BEGIN
    IF model IS NULL OR source IS NULL OR options IS NULL THEN
        RAISE EXCEPTION 'model, source and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF source IN ('mog', 'warped_mog') THEN
        src := source;
    ELSE
        src := to_regclass(source)::text;
        IF src IS NULL THEN
            RAISE EXCEPTION 'training source "%" is neither a generator nor a table', source
                USING ERRCODE = 'undefined_table',
                      HINT = 'The source is ''mog'', ''warped_mog'', or a table or view with a vector and a label column.';
        END IF;
    END IF;

    -- runs whose backend ended, or stopped running them, did not finish
    UPDATE @extschema@.dac_training_runs t
    SET status = 'interrupted', finished_at = clock_timestamp(),
        error = 'the session running it ended or stopped before finishing (last checkpoint: step ' || t.step || ')'
    WHERE t.status = 'running' AND NOT EXISTS (
        SELECT 1 FROM pg_stat_activity a
        WHERE a.pid = t.pid AND a.backend_start = t.backend_start AND a.state = 'active');

    SELECT * INTO cur FROM @extschema@.dac_models m WHERE m.name = model;
    IF cur.shipped THEN
        RAISE EXCEPTION 'model "%" is shipped with the extension and cannot be retrained in place', model
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Train a copy: SELECT dac_import(''my_model'', dac_export(''' || model || '''));';
    END IF;
    SELECT * INTO ck FROM @extschema@.dac_checkpoints c WHERE c.model = dac_train.model;
    resume := coalesce((options->>'resume')::boolean, false);
    IF resume THEN
        IF ck.model IS NULL THEN
            RAISE EXCEPTION 'model "%" has no checkpoint to resume from', model
                USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        IF ck.source <> src THEN
            RAISE EXCEPTION 'the checkpoint of "%" was trained on %, not %', model, ck.source, src
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        FOREACH k IN ARRAY arch_keys || ARRAY['seed', 'batch', 'n_max', 'k_max', 'mix_n_max', 'mix_k_max', 'mix_ratio', 'fixed_n', 'lr', 'clip', 'replace'] LOOP
            IF options ? k AND options->k IS DISTINCT FROM ck.options->k THEN
                RAISE EXCEPTION 'option "%" cannot change when resuming (the checkpoint has %)', k, ck.options->k
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
        opts := @extschema@.dac_train_options(source, (ck.options - 'replace' - 'run_steps') || options);
        IF ck.step >= (opts->>'steps')::bigint THEN
            RAISE NOTICE 'dac_train %: already trained % of % steps; nothing to do', model, ck.step, opts->'steps';
            RETURN;
        END IF;
        w := cur.weights;
        st := ck.state;
    ELSE
        opts := @extschema@.dac_train_options(source, options);
        IF cur.name IS NOT NULL AND NOT (opts->>'replace')::boolean THEN
            FOREACH k IN ARRAY arch_keys LOOP
                IF options ? k AND options->>k IS DISTINCT FROM
                   cur.config->>(CASE k WHEN 'dim' THEN 'dim_input' ELSE k END) THEN
                    RAISE EXCEPTION 'model "%" exists with % = %; training cannot change its architecture',
                        model, k, cur.config->(CASE k WHEN 'dim' THEN 'dim_input' ELSE k END)
                        USING ERRCODE = 'invalid_parameter_value',
                              HINT = 'Add "replace": true to start the model afresh.';
                END IF;
            END LOOP;
            w := cur.weights;       -- continue from its weights with a fresh optimiser
        END IF;
    END IF;
    total := (opts->>'steps')::bigint;
    every := (opts->>'checkpoint_every')::bigint;
    stop_at := least(total, CASE WHEN resume THEN ck.step ELSE 0 END + (opts->>'run_steps')::bigint);
    log_every := (opts->>'log_every')::bigint;

    INSERT INTO @extschema@.dac_training_runs (model, source, options, step, total_steps, backend_start)
    VALUES (model, src, opts, CASE WHEN resume THEN ck.step ELSE 0 END, total,
            (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()))
    RETURNING run_id INTO run;
    cfg := @extschema@.dac_train_begin(w, st, src, opts);
    IF cur.name IS NULL THEN
        INSERT INTO @extschema@.dac_models (name, config, weights, metrics)
        VALUES (model, cfg, @extschema@.dac_train_weights(), jsonb_build_object('trained_by', 'dac_train'));
    ELSIF w IS NULL THEN
        -- "replace": the new architecture's initial weights replace the old ones
        UPDATE @extschema@.dac_models
        SET weights = @extschema@.dac_train_weights(), config = cfg, version = version + 1, updated_at = clock_timestamp()
        WHERE name = model;
    END IF;
    IF NOT resume THEN
        -- a checkpoint at step 0: a run stopped at once can be resumed too
        INSERT INTO @extschema@.dac_checkpoints (model, run_id, step, total_steps, source, options, state, updated_at)
        VALUES (model, run, 0, total, src, opts, @extschema@.dac_train_state(), clock_timestamp())
        ON CONFLICT ON CONSTRAINT dac_checkpoints_pkey DO UPDATE
        SET run_id = excluded.run_id, step = excluded.step, total_steps = excluded.total_steps,
            source = excluded.source, options = excluded.options, state = excluded.state,
            updated_at = excluded.updated_at;
    END IF;
    -- the run row is visible from now on (and CALL inside a transaction block fails here, before training)
    COMMIT;

    at_step := CASE WHEN resume THEN ck.step ELSE 0 END;
    start_step := at_step;
    RAISE NOTICE 'dac_train %: run %, % steps of % sets (n_max %, k_max %) from %, starting at step %',
        model, run, total, opts->'batch', opts->'n_max', opts->'k_max', src, at_step;
    WHILE at_step < stop_at LOOP
        chunk := least(log_every - at_step % log_every, every - at_step % every, stop_at - at_step);
        failed := NULL;
        BEGIN
            r := @extschema@.dac_train_steps(chunk);
        EXCEPTION
            WHEN query_canceled THEN
                failed := 'cancelled'; msg := SQLERRM; code := SQLSTATE;
            WHEN OTHERS THEN
                failed := 'failed'; msg := SQLERRM; code := SQLSTATE;
        END;
        IF failed IS NOT NULL THEN
            PERFORM @extschema@.dac_train_end();
            UPDATE @extschema@.dac_training_runs
            SET status = failed, error = msg, finished_at = clock_timestamp(), updated_at = clock_timestamp()
            WHERE run_id = run;
            COMMIT;
            RAISE EXCEPTION USING ERRCODE = code, MESSAGE = msg,
                DETAIL = format('dac_train run %s %s after step %s.', run, failed,
                                (SELECT t.step FROM @extschema@.dac_training_runs t WHERE t.run_id = run)),
                HINT = 'The last checkpoint is kept: CALL dac_train(model, source, ''{"resume": true}'') continues from it.';
        END IF;
        log_from := log_from || at_step;
        log_to := log_to || r.step;
        log_loss := log_loss || r.loss;
        log_sec := log_sec || r.seconds;
        elapsed := elapsed + r.seconds;
        at_step := r.step;
        rate := (at_step - start_step) / greatest(elapsed, 1e-9);
        RAISE NOTICE 'dac_train %: step %/%  loss %  % steps/s  % s left', model, at_step, total,
            round(r.loss::numeric, 4), round(rate::numeric, 2), round(((total - at_step) / rate)::numeric);
        IF at_step % every = 0 OR at_step = stop_at THEN
            UPDATE @extschema@.dac_models
            SET weights = @extschema@.dac_train_weights(), config = cfg, version = version + 1, updated_at = clock_timestamp()
            WHERE name = model;
            INSERT INTO @extschema@.dac_checkpoints (model, run_id, step, total_steps, source, options, state, updated_at)
            VALUES (model, run, at_step, total, src, opts, @extschema@.dac_train_state(), clock_timestamp())
            ON CONFLICT ON CONSTRAINT dac_checkpoints_pkey DO UPDATE
            SET run_id = excluded.run_id, step = excluded.step, total_steps = excluded.total_steps,
                source = excluded.source, options = excluded.options, state = excluded.state,
                updated_at = excluded.updated_at;
            INSERT INTO @extschema@.dac_training_log (run_id, step_from, step_to, loss, seconds)
            SELECT run, f, t, l, s FROM unnest(log_from, log_to, log_loss, log_sec) AS u(f, t, l, s);
            log_from := '{}'; log_to := '{}'; log_loss := '{}'; log_sec := '{}';
            UPDATE @extschema@.dac_training_runs
            SET step = at_step, last_loss = r.loss, steps_per_second = rate, updated_at = clock_timestamp(),
                status = CASE WHEN at_step = total THEN 'finished'
                              WHEN at_step = stop_at THEN 'paused' ELSE 'running' END,
                finished_at = CASE WHEN at_step = stop_at THEN clock_timestamp() END
            WHERE run_id = run;
            COMMIT;
        END IF;
    END LOOP;
    PERFORM @extschema@.dac_train_end();
END
$$;

COMMENT ON PROCEDURE dac_train(text, text, jsonb) IS
'trains a model (creating it if absent) on generated sets (''mog'', ''warped_mog'') or sets drawn from a labelled table, committing a checkpoint every checkpoint_every steps; "resume": true continues from the last one';

-- ------------------------------------------------------------------ evaluation

CREATE FUNCTION dac_evaluate_sets(model text, source text, sets integer, n_max integer, k_max integer,
    seed bigint, vector_column text, label_column text, group_column text,
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision)
RETURNS record AS 'MODULE_PATHNAME', 'dac_evaluate_sets' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dac_evaluate_sets(text, text, integer, integer, integer, bigint, text, text, text) IS
'internal: the work of dac_evaluate';

CREATE FUNCTION dac_evaluate(model text, source text, options jsonb DEFAULT '{}',
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision)
RETURNS record
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
DECLARE
    o jsonb := '{"sets": 100, "n_max": 1000, "k_max": 4, "seed": 1}'::jsonb;
    k text;
    v jsonb;
    src text;
BEGIN
    IF model IS NULL OR source IS NULL OR options IS NULL THEN
        RAISE EXCEPTION 'model, source and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    PERFORM @extschema@.dac_check_option_types('dac_evaluate', options,
        ARRAY['sets', 'n_max', 'k_max', 'seed'], '{}', '{}',
        ARRAY['vector_column', 'label_column', 'group_column']);
    o := o || options;
    FOR k, v IN VALUES ('sets', '[1, 1000000]'::jsonb), ('n_max', '[4, 1000000]'), ('k_max', '[1, 10000]'),
                       ('seed', '[0, 9007199254740991]') LOOP
        IF (o->>k)::numeric < (v->>0)::numeric OR (o->>k)::numeric > (v->>1)::numeric THEN
            RAISE EXCEPTION 'option "%" must be between % and %, not %', k, v->0, v->1, o->k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END LOOP;
    IF source IN ('mog', 'warped_mog') THEN
        src := source;
        IF o ?| ARRAY['vector_column', 'label_column', 'group_column'] THEN
            RAISE EXCEPTION 'vector_column, label_column and group_column apply only to a table source'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    ELSE
        src := to_regclass(source)::text;
        IF src IS NULL THEN
            RAISE EXCEPTION 'evaluation source "%" is neither a generator nor a table', source
                USING ERRCODE = 'undefined_table';
        END IF;
        IF NOT o ? 'vector_column' OR NOT o ? 'label_column' THEN
            RAISE EXCEPTION 'options "vector_column" and "label_column" are required for a table source'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    SELECT * INTO sets, ari, nmi, k_mae, ll, seconds_per_set, gflop_per_set, oracle_ll
    FROM @extschema@.dac_evaluate_sets(model, src, (o->>'sets')::int, (o->>'n_max')::int, (o->>'k_max')::int,
                                       (o->>'seed')::bigint, o->>'vector_column', o->>'label_column',
                                       o->>'group_column');
END
$$;
COMMENT ON FUNCTION dac_evaluate(text, text, jsonb) IS
'ARI, NMI, k-MAE, LL, seconds and GFLOP per set of a model on sets from a generator or drawn from a labelled table (a view selects held-out labels or rows), and for ''mog'' sets the oracle LL under the mixtures that drew them';

CREATE VIEW dac_training_status AS
SELECT r.run_id, r.model, r.source,
       CASE WHEN r.status = 'running' AND NOT EXISTS (
                SELECT 1 FROM pg_stat_activity a
                WHERE a.pid = r.pid AND a.backend_start = r.backend_start AND a.state = 'active')
            THEN 'interrupted' ELSE r.status END AS status,
       r.step, r.total_steps, r.last_loss, r.steps_per_second, r.started_at, r.updated_at,
       r.finished_at, r.error
FROM dac_training_runs r;
COMMENT ON VIEW dac_training_status IS
'dac_training_runs with "interrupted" for runs whose session ended or stopped without saying so (killed backend, crash)';
