-- dac 0.7.0 -> 0.8.0: the hostile-role review of 0.7.0.
--
-- * The training lock is no longer one any SQL caller can take: dac_train
--   locks a tag no advisory-lock function reaches (pg_locks.objsubid 17475,
--   a 64-bit hash of the name in classid and objid).  dac_training_pid reads
--   that lock (dac_internal.dac_train_lock_id); dac_train_lock_key goes.
-- * Runs: a role may record a run only as itself or as the owner of the
--   model it names, never as dac_user (which every user is a member of, so
--   a planted row showed in everyone's dac_training_status); no model may be
--   handed to dac_user either.
-- * In the module, with no SQL object: a call that names no model uses only
--   shipped models and the caller's own (dac.default_model and the small-
--   and large-group pairs); dac_filter normalises a normalising model's set;
--   every size is checked against dac.memory_limit before allocating;
--   dac.memory_limit and dac.blas_threads are the superuser's (GRANT SET ON
--   PARAMETER hands them to a role).

\echo Use "ALTER EXTENSION dac UPDATE TO '0.8.0'" to load this file. \quit

-- ------------------------------------------------------------------ the training lock

CREATE FUNCTION dac_internal.dac_train_lock_id(model text)
RETURNS bigint AS 'MODULE_PATHNAME', 'dac_train_lock_id' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dac_internal.dac_train_lock_id(text) IS
'internal: the 64-bit key of a model''s training lock (pg_locks: classid its high 32 bits, objid its low ones, objsubid 17475)';

CREATE OR REPLACE FUNCTION dac_internal.dac_training_pid(model text)
RETURNS integer
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT l.pid FROM pg_catalog.pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 17475
      AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
      AND l.classid = ((dac_internal.dac_train_lock_id(model) OPERATOR(pg_catalog.>>) 32)
                       OPERATOR(pg_catalog.&) 4294967295)::pg_catalog.oid
      AND l.objid = (dac_internal.dac_train_lock_id(model) OPERATOR(pg_catalog.&) 4294967295)::pg_catalog.oid
    LIMIT 1
$$;

DROP FUNCTION dac_internal.dac_train_lock_key(text);

REVOKE ALL ON FUNCTION dac_internal.dac_train_lock_id(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_train_lock_id(text) TO dac_user;

-- ------------------------------------------------------------------ who a row may name

ALTER POLICY dac_training_runs_owner ON @extschema@.dac_training_runs
    USING (dac_internal.dac_member_of(ARRAY[owner]))
    WITH CHECK (owner OPERATOR(pg_catalog.=) CURRENT_USER
                OR (owner OPERATOR(pg_catalog.<>) 'dac_user'
                    AND owner OPERATOR(pg_catalog.=) dac_internal.dac_model_owner(model)
                    AND dac_internal.dac_member_of(ARRAY[owner])));

ALTER POLICY dac_models_add ON @extschema@.dac_models
    WITH CHECK (NOT shipped AND owner OPERATOR(pg_catalog.<>) 'dac_user'
                AND dac_internal.dac_member_of(ARRAY[owner]));
ALTER POLICY dac_models_change ON @extschema@.dac_models
    USING (NOT shipped AND dac_internal.dac_member_of(ARRAY[owner]))
    WITH CHECK (NOT shipped AND owner OPERATOR(pg_catalog.<>) 'dac_user'
                AND dac_internal.dac_member_of(ARRAY[owner]));

-- ------------------------------------------------------------------ evaluation on the user's groups

CREATE FUNCTION dac_internal.dac_evaluate_groups(model text, source text, vector_column text,
    label_column text, group_column text,
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision)
RETURNS record AS 'MODULE_PATHNAME', 'dac_evaluate_groups' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dac_internal.dac_evaluate_groups(text, text, text, text, text) IS
'internal: the work of dac_evaluate with "whole_groups": each group of the table one set, as it is';
REVOKE ALL ON FUNCTION dac_internal.dac_evaluate_groups(text, text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_evaluate_groups(text, text, text, text, text) TO dac_user;

-- The work of dac_evaluate: "whole_groups" scores the table's groups as they are.
CREATE OR REPLACE FUNCTION dac_internal.dac_evaluate_run(model text, source text, options jsonb,
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision)
RETURNS record
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o jsonb := '{"sets": 100, "n_max": 1000, "k_max": 4, "seed": 1, "whole_groups": false}';
    k text;
    v jsonb;
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
    IF (o->>'whole_groups')::boolean THEN
        IF NOT o ? 'group_column' THEN
            RAISE EXCEPTION 'option "whole_groups" needs a table source with a "group_column"'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Name the column that holds each row''s group; each group is then clustered whole, as it is.';
        END IF;
        IF options ?| ARRAY['sets', 'n_max', 'k_max', 'seed'] THEN
            RAISE EXCEPTION 'options "sets", "n_max", "k_max" and "seed" do not apply with "whole_groups"'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Each group of the table is one set, as it is.';
        END IF;
        SELECT * INTO sets, ari, nmi, k_mae, ll, seconds_per_set, gflop_per_set, oracle_ll
        FROM dac_internal.dac_evaluate_groups(model, source, o->>'vector_column', o->>'label_column',
                                              o->>'group_column');
        RETURN;
    END IF;
    SELECT * INTO sets, ari, nmi, k_mae, ll, seconds_per_set, gflop_per_set, oracle_ll
    FROM dac_internal.dac_evaluate_sets(model, source, (o->>'sets')::int, (o->>'n_max')::int, (o->>'k_max')::int,
                                        (o->>'seed')::bigint, o->>'vector_column', o->>'label_column',
                                        o->>'group_column');
END
$$;
