-- dac 0.11.0 -> 0.12.0
\echo Use "ALTER EXTENSION dac UPDATE TO '0.12.0'" to load this file. \quit

-- In the module: the image model of the paper (a mixture of neural
-- statisticians, density "ns"): 28x28 images as rows of 784 pixel values
-- between 0 and 1 cluster with every form of dac_cluster, and CALL dac_train
-- trains one from a table of labelled images.
-- dac_train_options: "density": "ns", with the options "image_filters" and
-- "image_latent" (and the flow's "maf_*", which size the image model's prior).
-- User models, runs and checkpoints are not touched.

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
                         'log_every', 'run_steps', 'maf_blocks', 'maf_hidden', 'maf_context',
                         'image_filters', 'image_latent'];
    nums text[] := ARRAY['lr', 'clip'];
    bools text[] := ARRAY['shared_blocks', 'resume', 'replace', 'fixed_n', 'init_default'];
    strs text[] := ARRAY['strategy', 'density', 'input', 'init', 'vector_column', 'label_column', 'group_column'];
    lo numeric;
    hi numeric;
    lo_open boolean;
    defaults jsonb;
BEGIN
    PERFORM dac_internal.dac_check_option_types('dac_train', options, ints, nums, bools, strs);
    -- A new model from a table source given no architecture starts from the
    -- shipped mlf_embed (pretrained on synthetic clusters) and fine-tunes it:
    -- the recipe that generalised best to classes the table does not have
    -- (docs/embeddings.md).  "init_default" tells dac_train_begin that an
    -- existing model keeps its own weights instead.
    IF NOT generated AND NOT options ?| ARRAY['init', 'strategy', 'density', 'input', 'dim', 'dim_hidden',
                                              'num_heads', 'num_inds', 'num_blocks', 'shared_blocks',
                                              'maf_blocks', 'maf_hidden', 'maf_context',
                                              'image_filters', 'image_latent'] THEN
        options := jsonb_build_object('init', 'mlf_embed', 'init_default', true, 'lr', 2e-4, 'steps', 2000) || options;
    END IF;
    -- the numbers' defaults are the core's option table's (the flow's and
    -- the image model's own options only apply to them, which take the
    -- core's defaults)
    SELECT pg_catalog.jsonb_object_agg(t.name, t.default_value) INTO defaults
    FROM dac_internal.dac_train_option_table() t
    WHERE t.default_value IS NOT NULL
      AND t.name NOT IN ('maf_blocks', 'maf_hidden', 'maf_context', 'image_filters', 'image_latent');
    o := jsonb_build_object(
        'strategy', 'mlf',
        'density', CASE source WHEN 'mog' THEN 'gaussian_diag' WHEN 'warped_mog' THEN 'maf' ELSE 'none' END,
        'input', CASE WHEN paper OR options->>'density' = 'ns' THEN 'raw' ELSE 'setnorm' END,
        'dim', CASE WHEN paper THEN 2 ELSE 32 END,
        'shared_blocks', true, 'fixed_n', false, 'resume', false, 'replace', false) || defaults || options;
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
                                 'num_blocks', 'shared_blocks', 'maf_blocks', 'maf_hidden', 'maf_context',
                                 'image_filters', 'image_latent'] LOOP
            IF options ? k THEN
                RAISE EXCEPTION 'option "%" cannot be given with "init"', k
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'A model trained from another takes that model''s architecture.';
            END IF;
        END LOOP;
    END IF;
    IF o->>'density' NOT IN ('gaussian_diag', 'maf', 'ns', 'none') THEN
        RAISE EXCEPTION 'option "density" must be "gaussian_diag", "maf", "ns" or "none", not "%"', o->>'density'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- every number within the core's option table's range
    FOR k, lo, hi, lo_open IN SELECT t.name, t.min, t.max, t.min_open FROM dac_internal.dac_train_option_table() t LOOP
        CONTINUE WHEN NOT o ? k;
        IF lo_open AND ((o->>k)::numeric <= lo OR (o->>k)::numeric > hi) THEN
            RAISE EXCEPTION 'option "%" must be greater than % and at most %, not %', k, lo, hi, o->k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF (o->>k)::numeric < lo OR (o->>k)::numeric > hi THEN
            RAISE EXCEPTION 'option "%" must be between % and %, not %', k, lo, hi, o->k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END LOOP;
    IF o->>'density' NOT IN ('maf', 'ns') AND options ?| ARRAY['maf_blocks', 'maf_hidden', 'maf_context'] THEN
        RAISE EXCEPTION 'options "maf_blocks", "maf_hidden" and "maf_context" apply only to "density": "maf" or "ns"'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o->>'density' IS DISTINCT FROM 'ns' AND options ?| ARRAY['image_filters', 'image_latent'] THEN
        RAISE EXCEPTION 'options "image_filters" and "image_latent" apply only to "density": "ns"'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o->>'density' = 'ns' THEN
        -- the authors' sets for the image model: up to 100 images
        IF NOT options ? 'n_max' THEN
            o := o || '{"n_max": 100}';
        END IF;
        IF generated THEN
            RAISE EXCEPTION 'the image model ("density": "ns") trains on a table of labelled images, not "%"', source
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Name a table whose vectors are 784 pixel values between 0 and 1 (28x28 images).';
        END IF;
        IF o->>'input' <> 'raw' OR o->>'strategy' <> 'mlf' THEN
            RAISE EXCEPTION 'the image model ("density": "ns") is an "mlf" network on "raw" pixels'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
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
                       'num_blocks', 'shared_blocks', 'maf_blocks', 'maf_hidden', 'maf_context',
                       'image_filters', 'image_latent'];
    END IF;
    RETURN o;
END
$$;
-- ------------------------------------------------------------------ the shipped image model

DO $$
DECLARE
    taken record;
    newname text;
    i integer;
BEGIN
    -- A model of a user's that has a name this version ships is renamed, not
    -- an obstacle: a role that may create models cannot block the update.
    FOR taken IN SELECT m.name, m.owner FROM @extschema@.dac_models m
                 WHERE m.name IN ('mlf_fmnist') AND NOT m.shipped ORDER BY m.name LOOP
        newname := pg_catalog.left(taken.name || '_' || taken.owner, 60);
        i := 1;
        WHILE EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name = newname) LOOP
            i := i + 1;
            newname := pg_catalog.left(taken.name || '_' || taken.owner, 56) || '_' || i;
        END LOOP;
        UPDATE @extschema@.dac_models m SET name = newname WHERE m.name = taken.name;
        UPDATE @extschema@.dac_training_runs r SET model = newname WHERE r.model = taken.name;
        RAISE WARNING 'model "%" of role "%" is renamed "%": version 0.12.0 ships a model named "%"',
            taken.name, taken.owner, newname, taken.name;
    END LOOP;
END
$$;
ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
INSERT INTO @extschema@.dac_models (name, config, weights, shipped, metrics)
SELECT 'mlf_fmnist', @extschema@.dac_weights_info(w) -> 'config', w, true,
       '{"trained_on": "Fashion-MNIST training images of classes 0-5", "density": "ns", "see": "weights/README.md"}'
FROM (SELECT dac_internal.dac_shipped_weights('mlf_fmnist.safetensors') AS w) f;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
