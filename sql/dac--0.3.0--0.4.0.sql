/* dac--0.3.0--0.4.0.sql: real embeddings
 *
 * - models that take vectors of any width: "input": "setnorm" normalises
 *   each set (centre, the set's own principal directions, unit RMS length)
 *   before the network (C code, recorded in the model's configuration);
 * - the shipped model mlf_embed clusters vectors of any dimension with no
 *   training; dac.default_embedding_model (C) makes it what a call that
 *   names no model uses for vectors dac.default_model does not take;
 * - dac_cluster_ids(points, model) -> int[], parallel safe: a table of groups
 *   is clustered by every core;
 * - dac_train: the options "input" ("setnorm" by default for tables and
 *   the "embed" generator) and "init" (start from another model's weights
 *   and architecture); the generator "embed" for dac_train, dac_evaluate
 *   and dac_generate.
 *
 * No table changes: models, runs, log rows and checkpoints are untouched;
 * a model of a user's already called mlf_embed is renamed <name>_<owner>
 * with a WARNING (until 0.8.0 it stopped the update, which let any role that
 * may create models block it).
 */

\echo Use "ALTER EXTENSION dac UPDATE TO '0.4.0'" to load this file. \quit

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
                         'log_every', 'run_steps'];
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
                                              'num_heads', 'num_inds', 'num_blocks', 'shared_blocks'] THEN
        options := jsonb_build_object('init', 'mlf_embed', 'init_default', true, 'lr', 2e-4, 'steps', 2000) || options;
    END IF;
    o := jsonb_build_object(
        'strategy', 'mlf', 'density', CASE WHEN paper THEN 'gaussian_diag' ELSE 'none' END,
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
                                 'num_blocks', 'shared_blocks'] LOOP
            IF options ? k THEN
                RAISE EXCEPTION 'option "%" cannot be given with "init"', k
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'A model trained from another takes that model''s architecture.';
            END IF;
        END LOOP;
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
                       'num_blocks', 'shared_blocks'];
    END IF;
    RETURN o;
END
$$;

-- The work of dac_evaluate (the 'embed' generator added).
CREATE OR REPLACE FUNCTION dac_internal.dac_evaluate_run(model text, source text, options jsonb,
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision)
RETURNS record
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o jsonb := '{"sets": 100, "n_max": 1000, "k_max": 4, "seed": 1}';
    k text;
    v jsonb;
    src text;
BEGIN
    IF model IS NULL OR source IS NULL OR options IS NULL THEN
        RAISE EXCEPTION 'model, source and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    PERFORM dac_internal.dac_check_option_types('dac_evaluate', options,
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
    IF source IN ('mog', 'warped_mog', 'embed') THEN
        src := source;
        IF o ?| ARRAY['vector_column', 'label_column', 'group_column'] THEN
            RAISE EXCEPTION 'vector_column, label_column and group_column apply only to a table source'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    ELSE
        src := source;
        IF NOT o ? 'vector_column' OR NOT o ? 'label_column' THEN
            RAISE EXCEPTION 'options "vector_column" and "label_column" are required for a table source'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    SELECT * INTO sets, ari, nmi, k_mae, ll, seconds_per_set, gflop_per_set, oracle_ll
    FROM dac_internal.dac_evaluate_sets(model, src, (o->>'sets')::int, (o->>'n_max')::int, (o->>'k_max')::int,
                                        (o->>'seed')::bigint, o->>'vector_column', o->>'label_column',
                                        o->>'group_column');
END
$$;

-- ------------------------------------------------------------------ the shipped embedding model

DO $$
DECLARE
    taken record;
    newname text;
    i integer;
BEGIN
    -- A model of a user's that has a name this version ships is renamed, not
    -- an obstacle: a role that may create models cannot block the update.
    FOR taken IN SELECT m.name, m.owner FROM @extschema@.dac_models m
                 WHERE m.name IN ('mlf_embed') AND NOT m.shipped ORDER BY m.name LOOP
        newname := pg_catalog.left(taken.name || '_' || taken.owner, 60);
        i := 1;
        WHILE EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name = newname) LOOP
            i := i + 1;
            newname := pg_catalog.left(taken.name || '_' || taken.owner, 56) || '_' || i;
        END LOOP;
        UPDATE @extschema@.dac_models m SET name = newname WHERE m.name = taken.name;
        UPDATE @extschema@.dac_training_runs r SET model = newname WHERE r.model = taken.name;
        RAISE WARNING 'model "%" of role "%" is renamed "%": version 0.4.0 ships a model named "%"',
            taken.name, taken.owner, newname, taken.name;
    END LOOP;
END
$$;
ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
INSERT INTO @extschema@.dac_models (name, config, weights, shipped, metrics)
SELECT 'mlf_embed', @extschema@.dac_weights_info(w) -> 'config', w, true,
       '{"trained_on": "embed", "input": "any width", "see": "weights/README.md"}'
FROM (SELECT dac_internal.dac_shipped_weights('mlf_embed.safetensors') AS w) f;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;

-- ------------------------------------------------------------------ every core

-- A plain function of one group's points: over a table of groups (one row
-- each), the planner can run it in parallel workers, which the window
-- function and an ORDER BY aggregate never are (docs/scaling.md).
CREATE FUNCTION @extschema@.dac_cluster_ids(points real[], model text DEFAULT NULL)
RETURNS integer[]
AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_ids(points double precision[], model text DEFAULT NULL)
RETURNS integer[]
AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
COMMENT ON FUNCTION @extschema@.dac_cluster_ids(real[], text) IS
'the cluster ids of a 2-D array of points (one row each), NULL for noise; parallel safe, for a table of groups';
COMMENT ON FUNCTION @extschema@.dac_cluster_ids(double precision[], text) IS
'the cluster ids of a 2-D array of points (one row each), NULL for noise; parallel safe, for a table of groups';
