-- dac 0.29.0 -> 0.30.0: a table's trained model kept only where it beats
-- its start on groups it did not train on; dac_evaluate scores a table's
-- own groups and the default model beside.
--
-- * dac_train on a table with a group column of 10 groups or more
--   ("validate"): a fifth of the groups are held out whole, and a fifth of
--   the label values (5 or more) out of every group (in place of a fifth of
--   the labels within groups and 15% of the other rows); the trained model
--   and its start cluster each held-out group whole, as dac_cluster
--   clusters a partition: groups it never saw, with classes it never
--   learnt.  validation->'held_out_groups' and ->'scored_on' say so.
-- * Every validated run keeps the trained weights only when they are
--   ahead of the start's on ARI by more than the paired standard error
--   (0.29.0 kept them unless the start was ahead by more than that);
--   validation->'trained_minus_start' replaces ->'start_minus_trained'.
-- * dac_evaluate: given a "group_column" and none of "sets", "n_max",
--   "k_max" or "seed", it scores the table's own groups, each whole
--   ("whole_groups" now defaults to that); new columns zero_shot_ari,
--   zero_shot_nmi and zero_shot_k_mae score, on the same sets, the model
--   dac_cluster picks naming none (NULL where none takes the width).
--   dac_evaluate is dropped and created again (its columns changed): a
--   view or function of a user's that depends on it must be dropped first.
-- * Users' models, runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.30.0'" to load this file. \quit

-- ------------------------------------------------------------------ evaluation

DROP FUNCTION @extschema@.dac_evaluate(text, text, jsonb);
DROP FUNCTION dac_internal.dac_evaluate_run(text, text, jsonb);
DROP FUNCTION dac_internal.dac_evaluate_groups(text, text, text, text, text);
DROP FUNCTION dac_internal.dac_evaluate_sets(text, text, integer, integer, integer, bigint, text, text, text);

CREATE FUNCTION dac_internal.dac_evaluate_groups(model text, source text, vector_column text,
    label_column text, group_column text, zero_shot boolean,
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision)
RETURNS record AS 'MODULE_PATHNAME', 'dac_evaluate_groups' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dac_internal.dac_evaluate_groups(text, text, text, text, text, boolean) IS
'internal: the work of dac_evaluate with "whole_groups": each group of the table one set, as it is (zero_shot: each clustered by the model dac_cluster picks naming none)';
REVOKE ALL ON FUNCTION dac_internal.dac_evaluate_groups(text, text, text, text, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_evaluate_groups(text, text, text, text, text, boolean) TO dac_user;

CREATE FUNCTION dac_internal.dac_evaluate_sets(model text, source text, sets integer, n_max integer, k_max integer,
    seed bigint, vector_column text, label_column text, group_column text, zero_shot boolean,
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision)
RETURNS record AS 'MODULE_PATHNAME', 'dac_evaluate_sets' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dac_internal.dac_evaluate_sets(text, text, integer, integer, integer, bigint, text, text, text, boolean) IS
'internal: the work of dac_evaluate on drawn sets (zero_shot: each clustered by the model dac_cluster picks naming none)';
REVOKE ALL ON FUNCTION dac_internal.dac_evaluate_sets(text, text, integer, integer, integer, bigint, text, text, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_evaluate_sets(text, text, integer, integer, integer, bigint, text, text, text, boolean) TO dac_user;

-- The work of dac_evaluate: the model's scores and, on the same sets, the
-- default's.  "whole_groups" defaults to true when a group column is named
-- and no option draws sets.
CREATE FUNCTION dac_internal.dac_evaluate_run(model text, source text, options jsonb,
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision, OUT zero_shot_ari double precision, OUT zero_shot_nmi double precision,
    OUT zero_shot_k_mae double precision)
RETURNS record
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o jsonb := '{"sets": 100, "n_max": 1000, "k_max": 4, "seed": 1}';
    k text;
    v jsonb;
    whole boolean;
    z record;
BEGIN
    IF model IS NULL OR source IS NULL OR options IS NULL THEN
        RAISE EXCEPTION 'model, source and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    PERFORM dac_internal.dac_check_option_types('dac_evaluate', options,
        ARRAY['sets', 'n_max', 'k_max', 'seed'], '{}', ARRAY['whole_groups'],
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
        IF o ?| ARRAY['vector_column', 'label_column', 'group_column'] THEN
            RAISE EXCEPTION 'vector_column, label_column and group_column apply only to a table source'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    ELSIF NOT o ? 'vector_column' OR NOT o ? 'label_column' THEN
        RAISE EXCEPTION 'options "vector_column" and "label_column" are required for a table source'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- a table's own groups, as dac_cluster meets them, unless sets are asked for
    whole := coalesce((o->>'whole_groups')::boolean,
                      o ? 'group_column' AND NOT options ?| ARRAY['sets', 'n_max', 'k_max', 'seed']);
    IF whole THEN
        IF NOT o ? 'group_column' THEN
            RAISE EXCEPTION 'option "whole_groups" needs a table source with a "group_column"'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Name the column that holds each row''s group; each group is then clustered whole, as it is.';
        END IF;
        IF options ?| ARRAY['sets', 'n_max', 'k_max', 'seed'] THEN
            RAISE EXCEPTION 'options "sets", "n_max", "k_max" and "seed" do not apply with "whole_groups"'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Each group of the table is one set, as it is; "whole_groups": false draws sets instead.';
        END IF;
        SELECT * INTO sets, ari, nmi, k_mae, ll, seconds_per_set, gflop_per_set, oracle_ll
        FROM dac_internal.dac_evaluate_groups(model, source, o->>'vector_column', o->>'label_column',
                                              o->>'group_column', false);
        SELECT * INTO z FROM dac_internal.dac_evaluate_groups(model, source, o->>'vector_column',
                                              o->>'label_column', o->>'group_column', true);
    ELSE
        SELECT * INTO sets, ari, nmi, k_mae, ll, seconds_per_set, gflop_per_set, oracle_ll
        FROM dac_internal.dac_evaluate_sets(model, source, (o->>'sets')::int, (o->>'n_max')::int,
                                            (o->>'k_max')::int, (o->>'seed')::bigint, o->>'vector_column',
                                            o->>'label_column', o->>'group_column', false);
        SELECT * INTO z FROM dac_internal.dac_evaluate_sets(model, source, (o->>'sets')::int, (o->>'n_max')::int,
                                            (o->>'k_max')::int, (o->>'seed')::bigint, o->>'vector_column',
                                            o->>'label_column', o->>'group_column', true);
    END IF;
    zero_shot_ari := z.ari;
    zero_shot_nmi := z.nmi;
    zero_shot_k_mae := z.k_mae;
END
$$;
COMMENT ON FUNCTION dac_internal.dac_evaluate_run(text, text, jsonb) IS 'internal: the work of dac_evaluate';
REVOKE ALL ON FUNCTION dac_internal.dac_evaluate_run(text, text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_evaluate_run(text, text, jsonb) TO dac_user;

-- A table name is found with the caller's search_path, as any name the
-- caller writes; everything else runs pinned.  This body calls only
-- schema-qualified functions of exact argument types and no operator.
CREATE FUNCTION @extschema@.dac_evaluate(model text, source text, options jsonb DEFAULT '{}',
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision, OUT zero_shot_ari double precision, OUT zero_shot_nmi double precision,
    OUT zero_shot_k_mae double precision)
RETURNS record
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT * FROM dac_internal.dac_evaluate_run(model,
        dac_internal.dac_resolve_source(source, 'evaluation'::pg_catalog.text), options)
$$;
COMMENT ON FUNCTION @extschema@.dac_evaluate(text, text, jsonb) IS
'ARI, NMI, k-MAE, LL, seconds and GFLOP per set of a model on a labelled table''s own groups (given a group column), on sets drawn from it, or on sets of a generator; beside them the ARI, NMI and k-MAE of the model dac_cluster picks naming none, on the same sets';

-- ------------------------------------------------------------------ training

-- dac_train: its NOTICE says how the held-out part was scored and the
-- trained model's lead; the rest as in 0.23.0.
CREATE OR REPLACE PROCEDURE @extschema@.dac_train(model text, source text, options jsonb DEFAULT '{}')
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
    busy record;
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
    saved boolean;
    elapsed double precision := 0;
    rate double precision;
    log_from bigint[] := '{}';
    log_to bigint[] := '{}';
    log_loss double precision[] := '{}';
    log_sec double precision[] := '{}';
    arch_keys text[] := '{strategy,density,dim,dim_hidden,num_heads,num_inds,num_blocks,shared_blocks}';
    k text;
    val jsonb;
BEGIN
    -- a table name is found with the caller's search_path (a schema-qualified
    -- call of exact types, no operator), then everything runs pinned
    src := dac_internal.dac_resolve_source(source, 'training'::pg_catalog.text);
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    IF model IS NULL OR options IS NULL THEN
        RAISE EXCEPTION 'model, source and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;

    IF EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name = model AND m.shipped) THEN
        RAISE EXCEPTION 'model "%" is shipped with the extension and cannot be retrained in place', model
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Train a copy: SELECT dac_import(''my_model'', dac_export(''' || model || '''));';
    END IF;
    -- one run per model at a time; the lock goes with the session, and
    -- dac_train_lock refuses (42501) a model of another role's
    IF NOT dac_internal.dac_train_lock(model) THEN
        SELECT t.run_id, t.pid INTO busy FROM @extschema@.dac_training_runs t
        WHERE t.model = dac_train.model AND t.status = 'running' ORDER BY t.run_id DESC LIMIT 1;
        RAISE EXCEPTION 'model "%" is being trained by another session', model
            USING ERRCODE = 'lock_not_available',
                  DETAIL = CASE WHEN busy.run_id IS NOT NULL
                                THEN format('Run %s is running in process %s.', busy.run_id, busy.pid)
                                ELSE format('Process %s holds its training lock.', dac_internal.dac_training_pid(model)) END,
                  HINT = 'Wait for it to finish, or stop it with pg_cancel_backend().';
    END IF;

    -- this role's runs whose session ended or stopped them without saying so
    UPDATE @extschema@.dac_training_runs t
    SET status = 'interrupted', finished_at = clock_timestamp(),
        error = 'the session running it ended or stopped before finishing (last checkpoint: step ' || t.step || ')'
    WHERE t.status = 'running'
      AND dac_internal.dac_training_pid(t.model) IS DISTINCT FROM t.pid;
    UPDATE @extschema@.dac_training_runs t
    SET status = 'interrupted', finished_at = clock_timestamp(),
        error = 'the session running it stopped before finishing (last checkpoint: step ' || t.step || ')'
    WHERE t.status = 'running' AND t.model = dac_train.model;

    SELECT * INTO cur FROM @extschema@.dac_models m WHERE m.name = model;
    SELECT * INTO ck FROM @extschema@.dac_checkpoints c WHERE c.model = dac_train.model;
    resume := coalesce((options->>'resume')::boolean, false);
    IF resume THEN
        IF ck.model IS NULL THEN
            PERFORM dac_internal.dac_train_end();
            RAISE EXCEPTION 'model "%" has no checkpoint to resume from', model
                USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        IF ck.source <> src THEN
            PERFORM dac_internal.dac_train_end();
            RAISE EXCEPTION 'the checkpoint of "%" was trained on %, not %', model, ck.source, src
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        FOREACH k IN ARRAY arch_keys || '{seed,batch,n_max,k_max,mix_n_max,mix_k_max,mix_ratio,fixed_n,lr,clip,replace,validate,init_used,whiten}'::text[] LOOP
            IF options ? k AND options->k IS DISTINCT FROM ck.options->k THEN
                PERFORM dac_internal.dac_train_end();
                RAISE EXCEPTION 'option "%" cannot change when resuming (the checkpoint has %)', k, ck.options->k
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
        -- a 0.1.0 checkpoint of a table run holds "dim": 2, which tables refuse;
        -- one of 0.20.0 or before trained on every row, and goes on so; one
        -- of 0.21.0 or before does not whiten
        opts := @extschema@.dac_train_options(source,
            jsonb_build_object('validate', false, 'init_used', false, 'whiten', false) ||
            (ck.options - 'replace' - 'run_steps' - CASE WHEN src IN ('mog', 'warped_mog') THEN '' ELSE 'dim' END) || options);
        IF ck.step >= (opts->>'steps')::bigint THEN
            PERFORM dac_internal.dac_train_end();
            RAISE NOTICE 'dac_train %: already trained % of % steps; nothing to do', model, ck.step, opts->'steps';
            RETURN;
        END IF;
        w := cur.weights;
        st := ck.state;
    ELSE
        opts := @extschema@.dac_train_options(source, options - 'init_used');
        -- the run starts from "init" only as a new model (or one replaced):
        -- what "validate" compares the trained model with
        opts := opts || jsonb_build_object('init_used',
            opts ? 'init' AND (cur.name IS NULL OR (opts->>'replace')::boolean));
        IF cur.name IS NOT NULL AND NOT (opts->>'replace')::boolean THEN
            FOREACH k IN ARRAY arch_keys LOOP
                IF options ? k AND options->>k IS DISTINCT FROM
                   cur.config->>(CASE k WHEN 'dim' THEN 'dim_input' ELSE k END) THEN
                    PERFORM dac_internal.dac_train_end();
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

    INSERT INTO @extschema@.dac_training_runs (model, source, options, step, total_steps, backend_start, owner)
    VALUES (model, src, opts, CASE WHEN resume THEN ck.step ELSE 0 END, total,
            (SELECT a.backend_start FROM pg_catalog.pg_stat_activity a WHERE a.pid = pg_backend_pid()),
            coalesce(cur.owner, CURRENT_USER))
    RETURNING run_id INTO run;
    cfg := dac_internal.dac_train_begin(w, st, src, opts);
    IF cur.name IS NULL THEN
        INSERT INTO @extschema@.dac_models (name, config, weights, metrics)
        VALUES (model, cfg, dac_internal.dac_train_weights(), jsonb_build_object('trained_by', 'dac_train'));
    ELSIF w IS NULL THEN
        -- "replace": the new architecture's initial weights replace the old ones
        UPDATE @extschema@.dac_models
        SET weights = dac_internal.dac_train_weights(), config = cfg, version = version + 1, updated_at = clock_timestamp()
        WHERE name = model;
    END IF;
    IF NOT resume THEN
        -- a checkpoint at step 0: a run stopped at once can be resumed too
        INSERT INTO @extschema@.dac_checkpoints (model, run_id, step, total_steps, source, options, state, updated_at)
        VALUES (model, run, 0, total, src, opts, dac_internal.dac_train_state(), clock_timestamp())
        ON CONFLICT ON CONSTRAINT dac_checkpoints_pkey DO UPDATE
        SET run_id = excluded.run_id, step = excluded.step, total_steps = excluded.total_steps,
            source = excluded.source, options = excluded.options, state = excluded.state,
            updated_at = excluded.updated_at;
    END IF;
    -- the run row is visible from now on (and CALL inside a transaction block fails here, before training)
    COMMIT;
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

    at_step := CASE WHEN resume THEN ck.step ELSE 0 END;
    start_step := at_step;
    RAISE NOTICE 'dac_train %: run %, % steps of % sets (n_max %, k_max %) from %, starting at step %',
        model, run, total, opts->'batch', opts->'n_max', opts->'k_max', src, at_step;
    WHILE at_step < stop_at LOOP
        chunk := least(log_every - at_step % log_every, every - at_step % every, stop_at - at_step);
        failed := NULL;
        saved := false;
        -- the steps and the checkpoint's writes in one block: a cancel that
        -- lands in either is recorded (only COMMIT stays outside)
        BEGIN
            r := dac_internal.dac_train_steps(chunk);
            log_from := log_from || at_step;
            log_to := log_to || r.step;
            log_loss := log_loss || r.loss;
            log_sec := log_sec || r.seconds;
            elapsed := elapsed + r.seconds;
            at_step := r.step;
            rate := (at_step - start_step) / greatest(elapsed, 1e-9);
            RAISE NOTICE 'dac_train %: step %/%  loss %  % steps/s  % s left', model, at_step, total,
                round(r.loss::numeric, 4), round(rate::numeric, 2), round(((total - at_step) / rate)::numeric);
            -- the last step: the held-out rows choose between the trained model and its start
            IF at_step = total AND (opts->>'validate')::boolean THEN
                -- the start only while this role can still read it (dropped since: scored alone)
                val := dac_internal.dac_train_validate(
                    CASE WHEN (opts->>'init_used')::boolean AND EXISTS (
                              SELECT 1 FROM @extschema@.dac_models m WHERE m.name = opts->>'init')
                         THEN opts->>'init' END);
                IF val ? 'config' THEN
                    cfg := val->'config';     -- the model now carries its whitening map
                END IF;
                IF jsonb_typeof(val->'whiten') = 'object' AND val->'whiten' ? 'ridges' THEN
                    -- 0.23.0: scored on the new rows of the trained labels, every held-out row guarding
                    RAISE NOTICE 'dac_train %: a map from the table''s labels (best: %), ARI % ± % against none on sets of %: %',
                        model, val->'whiten'->>'best', val->'whiten'->'map_minus_without'->'ari',
                        val->'whiten'->'map_minus_without'->'se', (val->'whiten'->>'scored_on') ||
                        CASE WHEN val->'whiten' ? 'every_held_out_row'
                             THEN format(', %s ± %s on sets of every held-out row',
                                         val->'whiten'->'every_held_out_row'->'map_minus_without'->'ari',
                                         val->'whiten'->'every_held_out_row'->'map_minus_without'->'se')
                             ELSE '' END,
                        CASE WHEN (val->'whiten'->>'kept')::boolean THEN 'kept' ELSE 'not kept' END;
                ELSIF val->'whiten' ? 'skipped' THEN
                    RAISE NOTICE 'dac_train %: not whitened: %', model, val->'whiten'->>'skipped';
                END IF;
                IF NOT val ? 'trained' THEN
                    RAISE NOTICE 'dac_train %: not validated: % rows are too few to hold any out', model, val->'rows';
                ELSIF jsonb_typeof(val->'start') = 'object' THEN
                    RAISE NOTICE 'dac_train %: on %, ARI % trained, % from "%" (trained − start % ± %): kept the %',
                        model, CASE WHEN val ? 'held_out_groups'
                                    THEN format('%s held-out groups, each whole', val->'sets')
                                    ELSE format('%s sets of %s held-out rows', val->'sets', val->'held_out_rows') END,
                        val->'trained'->'ari', val->'start'->'ari', opts->>'init',
                        val->'trained_minus_start'->'ari', val->'trained_minus_start'->'se',
                        CASE val->>'kept' WHEN 'start' THEN format('weights of "%s"', opts->>'init')
                                          ELSE 'trained weights' END;
                ELSE
                    RAISE NOTICE 'dac_train %: on %, ARI % and NMI %',
                        model, CASE WHEN val ? 'held_out_groups'
                                    THEN format('%s held-out groups, each whole', val->'sets')
                                    ELSE format('%s sets of %s held-out rows', val->'sets', val->'held_out_rows') END,
                        val->'trained'->'ari', val->'trained'->'nmi';
                END IF;
            END IF;
            IF at_step % every = 0 OR at_step = stop_at THEN
                UPDATE @extschema@.dac_models
                SET weights = dac_internal.dac_train_weights(), config = cfg, version = version + 1, updated_at = clock_timestamp()
                WHERE name = model;
                INSERT INTO @extschema@.dac_checkpoints (model, run_id, step, total_steps, source, options, state, updated_at)
                VALUES (model, run, at_step, total, src, opts, dac_internal.dac_train_state(), clock_timestamp())
                ON CONFLICT ON CONSTRAINT dac_checkpoints_pkey DO UPDATE
                SET run_id = excluded.run_id, step = excluded.step, total_steps = excluded.total_steps,
                    source = excluded.source, options = excluded.options, state = excluded.state,
                    updated_at = excluded.updated_at;
                INSERT INTO @extschema@.dac_training_log (run_id, step_from, step_to, loss, seconds)
                SELECT run, f, t, l, s FROM unnest(log_from, log_to, log_loss, log_sec) AS u(f, t, l, s);
                UPDATE @extschema@.dac_training_runs
                SET step = at_step, last_loss = r.loss, steps_per_second = rate, updated_at = clock_timestamp(),
                    validation = coalesce(val, validation),
                    status = CASE WHEN at_step = total THEN 'finished'
                                  WHEN at_step = stop_at THEN 'paused' ELSE 'running' END,
                    finished_at = CASE WHEN at_step = stop_at THEN clock_timestamp() END
                WHERE run_id = run;
                saved := true;
            END IF;
        EXCEPTION
            WHEN query_canceled THEN
                failed := 'cancelled'; msg := SQLERRM; code := SQLSTATE;
            WHEN OTHERS THEN
                failed := 'failed'; msg := SQLERRM; code := SQLSTATE;
        END;
        IF failed IS NOT NULL THEN
            PERFORM dac_internal.dac_train_end();
            UPDATE @extschema@.dac_training_runs
            SET status = failed, error = msg, finished_at = clock_timestamp(), updated_at = clock_timestamp()
            WHERE run_id = run;
            COMMIT;
            PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
            RAISE EXCEPTION USING ERRCODE = code, MESSAGE = msg,
                DETAIL = format('dac_train run %s %s after step %s.', run, failed,
                                (SELECT t.step FROM @extschema@.dac_training_runs t WHERE t.run_id = run)),
                HINT = 'The last checkpoint is kept: CALL dac_train(model, source, ''{"resume": true}'') continues from it.';
        END IF;
        IF saved THEN
            log_from := '{}'; log_to := '{}'; log_loss := '{}'; log_sec := '{}';
            COMMIT;
            PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        END IF;
    END LOOP;
    PERFORM dac_internal.dac_train_end();
END
$$;
