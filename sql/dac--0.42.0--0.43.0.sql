-- dac 0.42.0 -> 0.43.0: every error a caller can mend names the fix in its
-- hint.  The six functions below are 0.42.0's, each RAISE of such a mistake
-- given a HINT, and dac_train's variables declared with schema-qualified
-- types; nothing else in them changed.
\echo Use "ALTER EXTENSION dac UPDATE TO '0.43.0'" to load this file. \quit

CREATE OR REPLACE FUNCTION dac_internal.dac_check_option_types(what text, options jsonb, ints text[], nums text[], bools text[], strs text[])
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
DECLARE
    k text;
    v jsonb;
BEGIN
    IF options IS NULL OR jsonb_typeof(options) <> 'object' THEN
        RAISE EXCEPTION '% options must be a JSON object', what
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass the options as a jsonb object, e.g. ''{"steps": 1000}''.';
    END IF;
    FOR k, v IN SELECT * FROM jsonb_each(options) LOOP
        IF k = ANY (ints) THEN
            IF jsonb_typeof(v) <> 'number' OR v::numeric <> trunc(v::numeric) THEN
                RAISE EXCEPTION 'option "%" must be an integer, not %', k, v
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'Write it as a JSON number without a fraction or quotes, e.g. 1000.';
            END IF;
        ELSIF k = ANY (nums) THEN
            IF jsonb_typeof(v) <> 'number' THEN
                RAISE EXCEPTION 'option "%" must be a number, not %', k, v
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'Write it as a JSON number without quotes, e.g. 0.001.';
            END IF;
        ELSIF k = ANY (bools) THEN
            IF jsonb_typeof(v) <> 'boolean' THEN
                RAISE EXCEPTION 'option "%" must be true or false, not %', k, v
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'Write it as JSON true or false, without quotes.';
            END IF;
        ELSIF k = ANY (strs) THEN
            IF jsonb_typeof(v) <> 'string' THEN
                RAISE EXCEPTION 'option "%" must be a string, not %', k, v
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'Write it as a JSON string, in double quotes.';
            END IF;
        ELSE
            RAISE EXCEPTION 'unknown option "%"', k
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'The options are ' || array_to_string(ints || nums || bools || strs, ', ') || '.';
        END IF;
    END LOOP;
END
$function$
;

CREATE OR REPLACE FUNCTION dac_internal.dac_evaluate_run(model text, source text, options jsonb, OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision, OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision, OUT oracle_ll double precision, OUT zero_shot_ari double precision, OUT zero_shot_nmi double precision, OUT zero_shot_k_mae double precision)
 RETURNS record
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
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
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Leave them out when the source is a generator.';
        END IF;
    ELSIF NOT o ? 'vector_column' OR NOT o ? 'label_column' THEN
        RAISE EXCEPTION 'options "vector_column" and "label_column" are required for a table source'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name the table''s columns, e.g. ''{"vector_column": "v", "label_column": "label"}''.';
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
$function$
;

CREATE OR REPLACE FUNCTION dac_internal.dac_models_guard()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.shipped THEN
        RAISE EXCEPTION 'model "%" is shipped with the extension and cannot be changed', OLD.name
            USING ERRCODE = 'insufficient_privilege',
                  HINT = format('Copy it under another name: SELECT dac_import(''my_model'', dac_export(%L));', OLD.name);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.shipped THEN
        RAISE EXCEPTION 'only the extension''s scripts add shipped models'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Leave shipped false: dac_import() adds a model of yours.';
    END IF;
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END
$function$
;

CREATE OR REPLACE FUNCTION dac_internal.dac_set_readers(model text, role name, share boolean)
 RETURNS void
 LANGUAGE plpgsql
 STRICT
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
DECLARE
    row_of record;
BEGIN
    IF EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name OPERATOR(pg_catalog.=) model AND m.shipped) THEN
        RAISE NOTICE 'model "%" is shipped with the extension: every role may use it already', model;
        RETURN;
    END IF;
    IF share AND role OPERATOR(pg_catalog.<>) 'public' AND NOT EXISTS (
           SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) role) THEN
        RAISE EXCEPTION 'role "%" does not exist', role USING ERRCODE = 'undefined_object',
                  HINT = 'Name an existing role, or public for every role.';
    END IF;
    UPDATE @extschema@.dac_models m
    SET readers = CASE WHEN share THEN pg_catalog.array_append(m.readers, role) ELSE pg_catalog.array_remove(m.readers, role) END,
        updated_at = pg_catalog.now()
    WHERE m.name OPERATOR(pg_catalog.=) model AND (role OPERATOR(pg_catalog.=) ANY (m.readers)) IS DISTINCT FROM share;
    IF FOUND THEN
        RETURN;
    END IF;
    SELECT m.shipped, dac_internal.dac_may_own(m.owner) AS mine INTO row_of
    FROM @extschema@.dac_models m WHERE m.name OPERATOR(pg_catalog.=) model;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'model "%" does not exist', model
            USING ERRCODE = 'undefined_object',
                  HINT = 'SELECT name FROM dac_models WHERE NOT shipped; lists the models this role may use.';
    ELSIF NOT row_of.mine THEN
        RAISE EXCEPTION 'model "%" belongs to another role', model
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Only its owner (or a member of the owner) can share it or take a share back.';
    END IF;
END
$function$
;

-- dac_train commits between chunks of steps, and a procedure that commits
-- cannot carry SET search_path: it pins the path itself, right after finding
-- the caller's table with the caller's path, and again after each COMMIT.
-- Its variables' types are schema-qualified, as they are read before the pin.
CREATE OR REPLACE PROCEDURE @extschema@.dac_train(IN model text, IN source text, IN options jsonb DEFAULT '{}'::jsonb)
 LANGUAGE plpgsql
AS $procedure$
DECLARE
    src pg_catalog.text;
    opts pg_catalog.jsonb;
    cur @extschema@.dac_models;
    ck @extschema@.dac_checkpoints;
    resume pg_catalog.bool;
    w pg_catalog.bytea;
    st pg_catalog.bytea;
    cfg pg_catalog.jsonb;
    run pg_catalog.int8;
    busy record;
    r record;
    total pg_catalog.int8;
    every pg_catalog.int8;
    log_every pg_catalog.int8;
    at_step pg_catalog.int8;
    start_step pg_catalog.int8;
    stop_at pg_catalog.int8;
    chunk pg_catalog.int4;
    failed pg_catalog.text;
    msg pg_catalog.text;
    code pg_catalog.text;
    saved pg_catalog.bool;
    elapsed pg_catalog.float8 := 0;
    rate pg_catalog.float8;
    log_from pg_catalog.int8[] := '{}';
    log_to pg_catalog.int8[] := '{}';
    log_loss pg_catalog.float8[] := '{}';
    log_sec pg_catalog.float8[] := '{}';
    arch_keys pg_catalog.text[] := '{strategy,density,dim,dim_hidden,num_heads,num_inds,num_blocks,shared_blocks}';
    k pg_catalog.text;
    val pg_catalog.jsonb;
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
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Leave "resume" out to train from the start.';
        END IF;
        IF ck.source <> src THEN
            PERFORM dac_internal.dac_train_end();
            RAISE EXCEPTION 'the checkpoint of "%" was trained on %, not %', model, ck.source, src
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Resume on the checkpoint''s source, or leave "resume" out to train from the start.';
        END IF;
        FOREACH k IN ARRAY arch_keys || '{seed,batch,n_max,k_max,mix_n_max,mix_k_max,mix_ratio,fixed_n,lr,clip,replace,validate,init_used,whiten}'::text[] LOOP
            IF options ? k AND options->k IS DISTINCT FROM ck.options->k THEN
                PERFORM dac_internal.dac_train_end();
                RAISE EXCEPTION 'option "%" cannot change when resuming (the checkpoint has %)', k, ck.options->k
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'Resume with the checkpoint''s value, or leave "resume" out to train from the start.';
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
$procedure$
;

CREATE OR REPLACE FUNCTION @extschema@.dac_train_options(source text, options jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
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
    bools text[] := ARRAY['shared_blocks', 'resume', 'replace', 'fixed_n', 'init_default', 'validate', 'init_used', 'whiten'];
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
        'shared_blocks', true, 'fixed_n', false, 'resume', false, 'replace', false,
        'validate', NOT generated) || defaults || options;
    -- "whiten" (0.22.0): a validated run on a table of vectors may attach the
    -- table's within-label whitening to a set-normalised model
    o := jsonb_build_object('whiten', (o->>'validate')::boolean AND o->>'input' = 'setnorm'
                                      AND o->>'density' IS DISTINCT FROM 'ns') || o;
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
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Leave them out, or add "density": "maf".';
    END IF;
    IF o->>'density' IS DISTINCT FROM 'ns' AND options ?| ARRAY['image_filters', 'image_latent'] THEN
        RAISE EXCEPTION 'options "image_filters" and "image_latent" apply only to "density": "ns"'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Leave them out, or add "density": "ns".';
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
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Leave "strategy" and "input" out with "density": "ns".';
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
    IF generated AND (o->>'validate')::boolean THEN
        RAISE EXCEPTION 'option "validate" applies only to a table source, not "%"', source
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Generated sets are new at every step; dac_evaluate scores a model on them.';
    END IF;
    IF (o->>'whiten')::boolean AND NOT (o->>'validate')::boolean THEN
        RAISE EXCEPTION 'option "whiten" needs "validate"'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The held-out rows choose the whitening''s ridge, and whether to keep it at all.';
    END IF;
    IF (o->>'whiten')::boolean AND (o->>'input' <> 'setnorm' OR o->>'density' = 'ns') THEN
        RAISE EXCEPTION 'option "whiten" applies only to a model whose input is "setnorm"'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Leave "whiten" out, or add "input": "setnorm".';
    END IF;
    IF generated THEN
        FOREACH k IN ARRAY ARRAY['vector_column', 'label_column', 'group_column'] LOOP
            IF o ? k THEN
                RAISE EXCEPTION 'option "%" applies only to a table source, not "%"', k, source
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'Leave it out when the source is a generator.';
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
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'Name the table''s columns, e.g. ''{"vector_column": "v", "label_column": "label"}''.';
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
$function$
;

