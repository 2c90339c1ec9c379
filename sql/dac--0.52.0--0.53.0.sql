-- dac 0.52.0 -> 0.53.0: dac_tune checks its choice as dac_train checks a
-- trained model.
--
-- * The pair of best mean ARI is kept only where, each group scored by the
--   pair chosen on the other groups, it leads the start's pair by more than
--   one paired standard error; otherwise the tuned model carries the start's
--   resolution and scales, and a notice says so.  The model's tuning record
--   gains "check" (the start's ARI, the left-out ARI, the lead, its standard
--   error, which was kept).  Its rows and signature are unchanged.
-- * Two internal functions it reads: each group's ARI, and the check.
--   Users' models, runs and checkpoints are untouched; a model tuned before
--   keeps its settings.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.53.0'" to load this file. \quit

CREATE FUNCTION dac_internal.dac_evaluate_group_aris(model text, source text, vector_column text,
    label_column text, group_column text,
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT group_ari double precision[])
RETURNS record AS 'MODULE_PATHNAME', 'dac_evaluate_group_aris' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dac_internal.dac_evaluate_group_aris(text, text, text, text, text) IS
'internal: each group of a labelled table clustered whole by the model, its mean scores and each group''s ARI in the groups'' order (what dac_tune''s check reads)';
REVOKE ALL ON FUNCTION dac_internal.dac_evaluate_group_aris(text, text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_evaluate_group_aris(text, text, text, text, text) TO dac_user;

CREATE FUNCTION dac_internal.dac_choice_check(scores double precision[],
    OUT loo_ari double precision, OUT diff double precision, OUT se double precision, OUT holds boolean)
RETURNS record AS 'MODULE_PATHNAME', 'dac_choice_check' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dac_internal.dac_choice_check(double precision[]) IS
'internal: dac_tune''s check of its choice; scores [candidates][groups], the start first: each group scored by the candidate of best mean on the other groups, and whether those lead the start by more than one paired standard error';
REVOKE ALL ON FUNCTION dac_internal.dac_choice_check(double precision[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_choice_check(double precision[]) TO dac_user;

CREATE OR REPLACE FUNCTION @extschema@.dac_tune(model text, source regclass, options jsonb,
    OUT graph_resolution double precision, OUT graph_merge double precision, OUT groups integer, OUT ari double precision,
    OUT nmi double precision, OUT k_mae double precision, OUT chosen boolean)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET dac.graph_resolution = 0.05
SET dac.graph_merge = 0.04
AS $$
DECLARE
    init text;
    base @extschema@.dac_models;
    r0 double precision;
    m0 double precision;
    m1 double precision;
    f double precision;
    g double precision;
    best_merge double precision;
    e record;
    best double precision;
    best_ari double precision := -2;
    best_far double precision;
    tried jsonb := '[]';
    scores double precision[] := '{}';
    start_ari double precision;
    chk record;
    kept text;
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
    -- the start's own resolution and finer scale's share, else the settings' defaults
    r0 := coalesce((base.config->'settings'->>'graph_resolution')::double precision,
                   (SELECT s.boot_val::double precision FROM pg_catalog.pg_settings s
                    WHERE s.name = 'dac.graph_resolution'));
    m0 := coalesce((base.config->'settings'->>'graph_merge')::double precision,
                   (SELECT s.boot_val::double precision FROM pg_catalog.pg_settings s
                    WHERE s.name = 'dac.graph_merge'));
    -- the other scales: one (dac.graph_merge 0), or from one, two at the setting's default
    m1 := CASE WHEN m0 > 0 THEN 0 ELSE (SELECT s.boot_val::double precision FROM pg_catalog.pg_settings s
                                        WHERE s.name = 'dac.graph_merge') END;
    -- each resolution at the start's scales, then at the other
    FOREACH f IN ARRAY ARRAY[1, 0.5, 2, 4, 8]::double precision[] LOOP
        FOREACH g IN ARRAY ARRAY[m0, m1] LOOP
            graph_resolution := r0 * f;
            graph_merge := g;
            PERFORM pg_catalog.set_config('dac.graph_resolution', graph_resolution::text, true);
            PERFORM pg_catalog.set_config('dac.graph_merge', graph_merge::text, true);
            SELECT * INTO e FROM dac_internal.dac_evaluate_group_aris(init, src, options->>'vector_column',
                options->>'label_column', options->>'group_column');
            IF groups IS NOT NULL AND e.sets <> groups THEN
                RAISE EXCEPTION 'the table "%" changed while dac_tune read it', src
                    USING ERRCODE = 'object_not_in_prerequisite_state',
                          HINT = 'Tune on a table no one writes to meanwhile, or on a copy of it.';
            END IF;
            groups := e.sets;
            -- each group's ARI, a row a pair: what the check below reads
            scores := scores || ARRAY[e.group_ari];
            ari := e.ari;
            nmi := e.nmi;
            k_mae := e.k_mae;
            tried := tried || pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
                'graph_resolution', graph_resolution, 'graph_merge', graph_merge, 'ari', ari, 'nmi', nmi,
                'k_mae', k_mae));
            start_ari := coalesce(start_ari, ari);
            -- the start's first: another must beat it; between others the nearer
            -- resolution wins a tie, then the start's scales
            IF ari > best_ari OR (ari = best_ari AND abs(ln(f)) < best_far) THEN
                best := graph_resolution;
                best_merge := graph_merge;
                best_ari := ari;
                best_far := abs(ln(f));
            END IF;
        END LOOP;
    END LOOP;
    -- the choice must earn its place, as a trained model's does: each group scored by the pair
    -- the other groups choose, ahead of the start's by more than one standard error
    kept := 'start';
    SELECT NULL::double precision AS loo_ari, NULL::double precision AS diff, NULL::double precision AS se,
           false AS holds INTO chk;
    IF groups > 0 THEN
        SELECT * INTO chk FROM dac_internal.dac_choice_check(scores);
        IF chk.holds THEN
            kept := 'tuned';
        END IF;
    END IF;
    IF kept = 'start' AND groups > 0 AND (best <> r0 OR best_merge <> m0) THEN
        RAISE NOTICE 'dac_tune %: the start''s resolution and scales are kept', model
            USING DETAIL = pg_catalog.format('The pair of best mean ARI (%s, %s) scores %s on these groups; made without each group in turn, the choice scores %s on it against the start''s %s, a lead of %s (standard error %s): it must lead by more than one standard error.',
                best, best_merge, pg_catalog.round(best_ari::numeric, 3), pg_catalog.round(chk.loo_ari::numeric, 3),
                pg_catalog.round(start_ari::numeric, 3), pg_catalog.round(chk.diff::numeric, 3), pg_catalog.round(chk.se::numeric, 3)),
                  HINT = 'Tune on more labelled groups: the standard error shrinks with their number.';
    END IF;
    IF kept = 'start' THEN
        best := r0;
        best_merge := m0;
    ELSIF groups < 10 THEN
        RAISE WARNING 'dac_tune %: the resolution and scales were chosen on % groups', model, groups
            USING DETAIL = 'Chosen on fewer than 10 groups, it can cluster other groups worse than the start''s.',
                  HINT = 'Tune on a table of 10 labelled groups or more, and compare with dac_evaluate on groups it did not see.';
    END IF;
    PERFORM @extschema@.dac_import(model,
        @extschema@.dac_weights_with_settings(base.weights,
            coalesce(base.config->'settings', '{}') ||
            pg_catalog.jsonb_build_object('graph_resolution', best, 'graph_merge', best_merge)),
        pg_catalog.jsonb_build_object('tuned_from', init, 'tuned_on', src, 'groups', groups,
                                      'tried', tried, 'graph_resolution', best, 'graph_merge', best_merge,
                                      'check', CASE WHEN groups > 0 THEN pg_catalog.jsonb_build_object(
                                          'start_ari', start_ari, 'left_out_ari', chk.loo_ari, 'lead', chk.diff,
                                          'se', chk.se, 'kept', kept) END));
    FOR graph_resolution, graph_merge, groups, ari, nmi, k_mae IN
        SELECT (t->>'graph_resolution')::double precision, (t->>'graph_merge')::double precision, groups,
               (t->>'ari')::double precision, (t->>'nmi')::double precision, (t->>'k_mae')::double precision
        FROM pg_catalog.jsonb_array_elements(tried) t
        ORDER BY (t->>'graph_resolution')::double precision, (t->>'graph_merge')::double precision DESC
    LOOP
        chosen := graph_resolution = best AND graph_merge = best_merge;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.dac_tune(text, regclass, jsonb) IS
'a model of the caller''s: another (options->>''init'', the default embedding model when absent) with its graph resolution and scales (dac.graph_merge: the start''s, or the other: 0 for one scale, from one scale the default share) chosen on a labelled table''s own groups, each clustered whole, and kept where each group scored by the pair the other groups choose leads the start''s by more than a standard error; one row per pair tried, with its mean ARI, NMI and k-MAE over the groups and which the model carries';
