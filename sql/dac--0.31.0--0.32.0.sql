-- dac 0.31.0 -> 0.32.0: a model carries its own settings; a table chooses
-- its graph resolution.
--
-- * A model's configuration may hold "settings": the clustering settings
--   that model uses when the dac.* setting of the same name is left at its
--   default (a setting given a value, by SET, ALTER ROLE or DATABASE, the
--   server's files or a function's SET clause, still wins).  k, max_k and
--   noise stay with each call.
-- * dac_model_settings(model): each setting a model can carry, the value a
--   clustering with it uses now, and where that comes from.
-- * dac_weights_with_settings(weights, settings): the same weights file
--   with other settings; with dac_export and dac_import a user sets them on
--   a model of their own.
-- * dac_tune(model, table regclass, options): a model of the caller's that is another
--   (mlf_embed by default) with its graph resolution chosen on the table's
--   own labelled groups, each clustered whole.
-- * The shipped models now carry the settings of the stages that apply to
--   them, at the values the dac.* defaults had: every clustering is
--   0.31.0's.  Users' models, runs and checkpoints are untouched, carry no
--   settings and cluster as before; a model trained from a shipped one
--   carries its settings.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.32.0'" to load this file. \quit

CREATE FUNCTION @extschema@.dac_model_settings(model text,
    OUT setting text, OUT value text, OUT source text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_model_settings_srf'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 16;
COMMENT ON FUNCTION @extschema@.dac_model_settings(text) IS
'each clustering setting a model can carry, the value a clustering with the model uses now, and its source: setting (a dac.* setting given a value), model (the model''s own) or default';

CREATE FUNCTION @extschema@.dac_weights_with_settings(weights bytea, settings jsonb)
RETURNS bytea
AS 'MODULE_PATHNAME', 'dac_weights_with_settings_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dac_weights_with_settings(bytea, jsonb) IS
'the same weights file, its configuration carrying these clustering settings in place of those it had (''{}'': none)';

-- the shipped models' own settings: the stages that apply to each, at 0.31.0's defaults
ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
SET weights = s.w,
    config = @extschema@.dac_weights_info(s.w) OPERATOR(pg_catalog.->) 'config',
    version = m.version OPERATOR(pg_catalog.+) 1,
    updated_at = pg_catalog.now()
FROM (SELECT d.name, @extschema@.dac_weights_with_settings(d.weights, v.settings::pg_catalog.jsonb) AS w
      FROM @extschema@.dac_models d
      JOIN (VALUES
          ('mlf_mog2d', '{"absorb_size": 4}'),
          ('af_mog2d', '{"absorb_size": 4}'),
          ('mlf64_mog2d', '{"absorb_size": 4}'),
          ('mlf_small2d', '{"absorb_size": 4}'),
          ('mlf_fast2d', '{"absorb_size": 4}'),
          ('mlf_warped2d', '{"absorb_size": 4, "pair_merge": 0.9, "pair_split": true}'),
          ('mlf_embed', '{"kmeans_steps": 10, "k_search": 2, "graph_neighbors": 5, "graph_resolution": 0.05, "graph_merge": 0.04, "sample_size": 1000}')
      ) AS v(name, settings) ON v.name OPERATOR(pg_catalog.=) d.name
      WHERE d.shipped) AS s
WHERE m.name OPERATOR(pg_catalog.=) s.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;

-- ------------------------------------------------------------------ dac_tune
-- A model of the caller's that is another model (init: the default embedding
-- model) with the graph stage's resolution chosen on a labelled table's own
-- groups: each of the start's resolution times 0.5, 1, 2, 4 and 8 clusters
-- every group whole, and the best mean ARI (ties: the start's, then the
-- nearest) becomes the new model's own setting.  The table is a regclass,
-- named in the caller's search_path where the call is written, so the
-- function runs pinned; its dac.graph_resolution is restored when it returns.
CREATE FUNCTION @extschema@.dac_tune(model text, source regclass, options jsonb,
    OUT graph_resolution double precision, OUT groups integer, OUT ari double precision,
    OUT nmi double precision, OUT k_mae double precision, OUT chosen boolean)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET dac.graph_resolution = 0.05
AS $$
DECLARE
    init text;
    base @extschema@.dac_models;
    r0 double precision;
    f double precision;
    e record;
    best double precision;
    best_ari double precision := -2;
    best_far double precision;
    tried jsonb := '[]';
    src text;
    k text;
    owner_of name;
BEGIN
    IF model IS NULL OR source IS NULL OR options IS NULL THEN
        RAISE EXCEPTION 'model, source and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- checked here, so that an error quotes no query of dac's
    IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
        RAISE EXCEPTION 'options must be a JSON object' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Give {"vector_column": ..., "label_column": ..., "group_column": ...}.';
    END IF;
    FOR k IN SELECT pg_catalog.jsonb_object_keys(options) LOOP
        IF NOT k = ANY (ARRAY['vector_column', 'label_column', 'group_column', 'init']) THEN
            RAISE EXCEPTION 'unknown option "%"', k USING ERRCODE = 'invalid_parameter_value',
                HINT = 'The options are vector_column, label_column, group_column, init.';
        END IF;
        IF pg_catalog.jsonb_typeof(options->k) <> 'string' THEN
            RAISE EXCEPTION 'option "%" must be a string', k USING ERRCODE = 'invalid_parameter_value',
                HINT = 'Name the column or model in quotes.';
        END IF;
    END LOOP;
    IF EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name = dac_tune.model AND m.shipped) THEN
        RAISE EXCEPTION 'model "%" is shipped with the extension and cannot be replaced', model
            USING ERRCODE = 'insufficient_privilege', HINT = 'Give the tuned model another name.';
    END IF;
    owner_of := dac_internal.dac_model_owner(model);
    IF owner_of IS NOT NULL AND NOT dac_internal.dac_may_own(owner_of) THEN
        RAISE EXCEPTION 'model "%" belongs to another role', model
            USING ERRCODE = 'insufficient_privilege', HINT = 'Give the tuned model a name of your own.';
    END IF;
    src := dac_internal.dac_resolve_source(source::pg_catalog.text, 'tuning');
    IF NOT options ?& ARRAY['vector_column', 'label_column', 'group_column'] THEN
        RAISE EXCEPTION 'options "vector_column", "label_column" and "group_column" are required'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name the table''s vector, label and group columns: each group is clustered whole, as dac_cluster meets it.';
    END IF;
    init := coalesce(options->>'init', pg_catalog.current_setting('dac.default_embedding_model'));
    SELECT * INTO base FROM @extschema@.dac_models m WHERE m.name = init;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'model "%" does not exist', init
            USING ERRCODE = 'undefined_object',
                  HINT = 'Name a model of dac_models as "init", or leave it out for the default embedding model.';
    END IF;
    IF coalesce(base.config->>'density', '') <> 'none' THEN
        RAISE EXCEPTION 'model "%" has a density head: it has no graph stage to tune', init
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Tune a model without a density head, such as mlf_embed or one trained on a table.';
    END IF;
    -- the start's own resolution, else the setting's default
    r0 := coalesce((base.config->'settings'->>'graph_resolution')::double precision,
                   (SELECT s.boot_val::double precision FROM pg_catalog.pg_settings s
                    WHERE s.name = 'dac.graph_resolution'));
    FOREACH f IN ARRAY ARRAY[1, 0.5, 2, 4, 8]::double precision[] LOOP
        graph_resolution := r0 * f;
        PERFORM pg_catalog.set_config('dac.graph_resolution', graph_resolution::text, true);
        SELECT * INTO e FROM dac_internal.dac_evaluate_groups(init, src, options->>'vector_column',
            options->>'label_column', options->>'group_column', false);
        groups := e.sets;
        ari := e.ari;
        nmi := e.nmi;
        k_mae := e.k_mae;
        tried := tried || pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
            'graph_resolution', graph_resolution, 'ari', ari, 'nmi', nmi, 'k_mae', k_mae));
        -- the start's first: another must beat it; between others the nearer wins a tie
        IF ari > best_ari OR (ari = best_ari AND abs(ln(f)) < best_far) THEN
            best := graph_resolution;
            best_ari := ari;
            best_far := abs(ln(f));
        END IF;
    END LOOP;
    IF groups < 10 THEN
        RAISE WARNING 'dac_tune %: the resolution was chosen on % groups', model, groups
            USING DETAIL = 'Chosen on fewer than 10 groups, it can cluster other groups worse than the start''s.',
                  HINT = 'Tune on a table of 10 labelled groups or more, and compare with dac_evaluate on groups it did not see.';
    END IF;
    PERFORM @extschema@.dac_import(model,
        @extschema@.dac_weights_with_settings(base.weights,
            coalesce(base.config->'settings', '{}') || pg_catalog.jsonb_build_object('graph_resolution', best)),
        pg_catalog.jsonb_build_object('tuned_from', init, 'tuned_on', src, 'groups', groups,
                                      'tried', tried, 'graph_resolution', best));
    FOR graph_resolution, groups, ari, nmi, k_mae IN
        SELECT (t->>'graph_resolution')::double precision, groups, (t->>'ari')::double precision,
               (t->>'nmi')::double precision, (t->>'k_mae')::double precision
        FROM pg_catalog.jsonb_array_elements(tried) t
        ORDER BY (t->>'graph_resolution')::double precision
    LOOP
        chosen := graph_resolution = best;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.dac_tune(text, regclass, jsonb) IS
'a model of the caller''s: another (options->>''init'', the default embedding model when absent) with its graph resolution chosen on a labelled table''s own groups, each clustered whole; one row per resolution tried, with its mean ARI, NMI and k-MAE over the groups and which was chosen';
