/* dac--0.4.0--0.5.0.sql: clusters of any shape
 *
 * - the flow density head ("density": "maf", C code): a conditional masked
 *   autoregressive flow per cluster, as the authors' warped-Gaussian model;
 *   dac_train takes "density": "maf" (the default for the warped_mog
 *   generator) and the flow's sizes "maf_blocks", "maf_hidden",
 *   "maf_context";
 * - dac_cluster_summary returns each cluster's θ as the network gave it
 *   (μ then σ, a flow's context; NULL without a density head): a new OUT
 *   column, so the function is re-created;
 * - the shipped model mlf_warped2d (2-D clusters of any shape).
 *
 * No table changes: models, runs, log rows and checkpoints are untouched;
 * a model of a user's already called mlf_warped2d is renamed
 * <name>_<owner> with a WARNING (until 0.8.0 it stopped the update).
 */

\echo Use "ALTER EXTENSION dac UPDATE TO '0.5.0'" to load this file. \quit

-- As in the 0.2.0 update: nothing here may resolve to another role's object.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

-- ------------------------------------------------------------------ training options

CREATE OR REPLACE FUNCTION @extschema@.dac_train_options(source text, options jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    generated boolean := source IN ('mog', 'warped_mog', 'embed');
    paper boolean := source IN ('mog', 'warped_mog');
    o jsonb;
    k text;
    ints text[] := ARRAY['dim', 'dim_hidden', 'num_heads', 'num_inds', 'num_blocks', 'steps',
                         'batch', 'n_max', 'k_max', 'mix_n_max', 'mix_k_max', 'mix_ratio', 'seed', 'checkpoint_every',
                         'log_every', 'run_steps', 'maf_blocks', 'maf_hidden', 'maf_context'];
    nums text[] := ARRAY['lr', 'clip'];
    bools text[] := ARRAY['shared_blocks', 'resume', 'replace', 'fixed_n', 'init_default'];
    strs text[] := ARRAY['strategy', 'density', 'input', 'init', 'vector_column', 'label_column', 'group_column'];
    lo numeric;
    hi numeric;
BEGIN
    PERFORM dac_internal.dac_check_option_types('dac_train', options, ints, nums, bools, strs);
    -- A new model from a table source given no architecture starts from the
    -- shipped mlf_embed (pretrained on synthetic clusters) and fine-tunes it:
    -- the recipe that generalised best to classes the table does not have
    -- (docs/embeddings.md).  "init_default" tells dac_train_begin that an
    -- existing model keeps its own weights instead.
    IF NOT generated AND NOT options ?| ARRAY['init', 'strategy', 'density', 'input', 'dim', 'dim_hidden',
                                              'num_heads', 'num_inds', 'num_blocks', 'shared_blocks',
                                              'maf_blocks', 'maf_hidden', 'maf_context'] THEN
        options := jsonb_build_object('init', 'mlf_embed', 'init_default', true, 'lr', 2e-4, 'steps', 2000) || options;
    END IF;
    o := jsonb_build_object(
        'strategy', 'mlf',
        'density', CASE source WHEN 'mog' THEN 'gaussian_diag' WHEN 'warped_mog' THEN 'maf' ELSE 'none' END,
        'input', CASE WHEN paper THEN 'raw' ELSE 'setnorm' END,
        'dim', CASE WHEN paper THEN 2 ELSE 32 END, 'dim_hidden', 128, 'num_heads', 4, 'num_inds', 32, 'num_blocks', 4,
        'shared_blocks', true, 'steps', 1000, 'batch', 10, 'n_max', 300, 'k_max', 4,
        'mix_n_max', 0, 'mix_k_max', 0, 'mix_ratio', 1, 'lr', 5e-4, 'clip', 10, 'seed', 1, 'checkpoint_every', 100, 'log_every', 50,
        'fixed_n', false, 'run_steps', 1000000000, 'resume', false, 'replace', false) || options;
    IF o->>'strategy' NOT IN ('mlf', 'af') THEN
        RAISE EXCEPTION 'option "strategy" must be "mlf" or "af", not "%"', o->>'strategy'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o->>'input' NOT IN ('raw', 'setnorm') THEN
        RAISE EXCEPTION 'option "input" must be "raw" or "setnorm", not "%"', o->>'input'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o ? 'init' THEN
        FOREACH k IN ARRAY ARRAY['strategy', 'density', 'input', 'dim', 'dim_hidden', 'num_heads', 'num_inds',
                                 'num_blocks', 'shared_blocks', 'maf_blocks', 'maf_hidden', 'maf_context'] LOOP
            IF options ? k THEN
                RAISE EXCEPTION 'option "%" cannot be given with "init"', k
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'A model trained from another takes that model''s architecture.';
            END IF;
        END LOOP;
    END IF;
    IF o->>'density' NOT IN ('gaussian_diag', 'maf', 'none') THEN
        RAISE EXCEPTION 'option "density" must be "gaussian_diag", "maf" or "none", not "%"', o->>'density'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o->>'density' IS DISTINCT FROM 'maf' AND options ?| ARRAY['maf_blocks', 'maf_hidden', 'maf_context'] THEN
        RAISE EXCEPTION 'options "maf_blocks", "maf_hidden" and "maf_context" apply only to "density": "maf"'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR k, lo, hi IN VALUES ('maf_blocks', 1, 8), ('maf_hidden', 1, 4096), ('maf_context', 1, 4096) LOOP
        IF o ? k AND ((o->>k)::numeric < lo OR (o->>k)::numeric > hi) THEN
            RAISE EXCEPTION 'option "%" must be between % and %, not %', k, lo, hi, o->k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END LOOP;
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
        IF o->>'density' = 'maf' AND (o->>'dim')::int < 2 THEN
            RAISE EXCEPTION 'option "dim" must be at least 2 for "density": "maf"'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'The flow conditions each coordinate on the ones before it; one coordinate has none.';
        END IF;
        IF source = 'warped_mog' AND o->>'input' = 'raw' AND (o->>'dim')::int <> 2 THEN
            RAISE EXCEPTION 'option "dim" must be 2 for warped_mog' USING ERRCODE = 'invalid_parameter_value';
        END IF;
    ELSE
        FOREACH k IN ARRAY ARRAY['vector_column', 'label_column'] LOOP
            IF NOT o ? k THEN
                RAISE EXCEPTION 'option "%" is required for a table source', k
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
        IF o->>'input' = 'raw' THEN
            IF options ? 'dim' THEN
                RAISE EXCEPTION 'option "dim" comes from the table''s vectors; leave it out'
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'With "input": "setnorm" (the default for tables), "dim" is the network''s width.';
            END IF;
            o := o - 'dim';     -- the table's vectors say it
        END IF;
    END IF;
    IF o ? 'init' THEN
        -- the architecture is the initial model's: none is recorded
        o := o - ARRAY['strategy', 'density', 'input', 'dim', 'dim_hidden', 'num_heads', 'num_inds',
                       'num_blocks', 'shared_blocks', 'maf_blocks', 'maf_hidden', 'maf_context'];
    END IF;
    RETURN o;
END
$$;

-- ------------------------------------------------------------------ summaries with θ

DROP FUNCTION @extschema@.dac_cluster_summary(real[], text);
DROP FUNCTION @extschema@.dac_cluster_summary(double precision[], text);

CREATE FUNCTION @extschema@.dac_cluster_summary(points real[], model text DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;

CREATE FUNCTION @extschema@.dac_cluster_summary(points double precision[], model text DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;

COMMENT ON FUNCTION @extschema@.dac_cluster_summary(real[], text) IS
'per cluster: size, mean and standard deviation (Gaussian models: the network''s θ, refit by EM under dac.em_steps; else the members'' centroid and spread), the ord of the representative member, and theta: the network''s θ of the cluster (μ then σ; a flow''s context; NULL without a density head)';
COMMENT ON FUNCTION @extschema@.dac_cluster_summary(double precision[], text) IS
'per cluster: size, mean and standard deviation (Gaussian models: the network''s θ, refit by EM under dac.em_steps; else the members'' centroid and spread), the ord of the representative member, and theta: the network''s θ of the cluster (μ then σ; a flow''s context; NULL without a density head)';

-- ------------------------------------------------------------------ the shipped warped model

DO $$
DECLARE
    taken record;
    newname text;
    i integer;
BEGIN
    -- A model of a user's that has a name this version ships is renamed, not
    -- an obstacle: a role that may create models cannot block the update.
    FOR taken IN SELECT m.name, m.owner FROM @extschema@.dac_models m
                 WHERE m.name IN ('mlf_warped2d') AND NOT m.shipped ORDER BY m.name LOOP
        newname := pg_catalog.left(taken.name || '_' || taken.owner, 60);
        i := 1;
        WHILE EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name = newname) LOOP
            i := i + 1;
            newname := pg_catalog.left(taken.name || '_' || taken.owner, 56) || '_' || i;
        END LOOP;
        UPDATE @extschema@.dac_models m SET name = newname WHERE m.name = taken.name;
        UPDATE @extschema@.dac_training_runs r SET model = newname WHERE r.model = taken.name;
        RAISE WARNING 'model "%" of role "%" is renamed "%": version 0.5.0 ships a model named "%"',
            taken.name, taken.owner, newname, taken.name;
    END LOOP;
END
$$;
ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
INSERT INTO @extschema@.dac_models (name, config, weights, shipped, metrics)
SELECT 'mlf_warped2d', @extschema@.dac_weights_info(w) -> 'config', w, true,
       '{"trained_on": "warped_mog", "density": "maf", "see": "weights/README.md"}'
FROM (SELECT dac_internal.dac_shipped_weights('mlf_warped2d.safetensors') AS w) f;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;

