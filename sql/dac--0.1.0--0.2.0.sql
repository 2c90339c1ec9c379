/* dac--0.1.0--0.2.0.sql: safe in a shared database
 *
 * - every SQL and PL/pgSQL function runs with search_path = pg_catalog,
 *   pg_temp and names the extension's objects with their schema, so no
 *   object another role creates (an operator, a function) is ever resolved
 *   in place of a built-in one (the CVE-2018-1058 class);
 * - the internal helpers move to the schema dac_internal, not executable by
 *   PUBLIC;
 * - models and training runs have an owning role, enforced by row-level
 *   security on the catalogue tables: only the owner (a member of it, or a
 *   superuser) replaces, retrains, renames, shares or deletes a model and
 *   sees its runs and checkpoint; shipped models are usable by every role
 *   and changed by none (a trigger);
 * - the NOLOGIN role dac_user holds what clustering and training need;
 * - one training run per model at a time (a session-level advisory lock,
 *   which also tells dac_training_status which runs are alive).
 *
 * Models, runs and checkpoints made under 0.1.0 are kept; they belong to
 * the role that runs ALTER EXTENSION dac UPDATE (a superuser), which can
 * hand them over: UPDATE dac_models SET owner = 'alice' WHERE name = '...'.
 *
 * A later script that changes shipped rows disables the trigger
 * dac_models_guard around its UPDATE.
 */

\echo Use "ALTER EXTENSION dac UPDATE TO '0.2.0'" to load this file. \quit

-- This script runs as a superuser: nothing it runs (the DO blocks, the
-- policies and view it parses) may resolve to an object another role made
-- in the extension's schema.  CREATE/ALTER EXTENSION restores the caller's
-- search_path afterwards; every dac object below is schema-qualified.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

-- ------------------------------------------------------------------ roles and schema

-- Roles belong to the cluster, not to a database: made once, kept when the
-- extension is dropped (like a role made by hand).
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dac_user') THEN
        CREATE ROLE dac_user NOLOGIN;
        COMMENT ON ROLE dac_user IS 'members may cluster with dac, train their own models and use models shared with them';
    END IF;
END
$$;

CREATE SCHEMA dac_internal;
REVOKE ALL ON SCHEMA dac_internal FROM PUBLIC;
COMMENT ON SCHEMA dac_internal IS 'internal helpers of the dac extension; not for direct use';

ALTER FUNCTION @extschema@.dac_train_begin(bytea, bytea, text, jsonb) SET SCHEMA dac_internal;
ALTER FUNCTION @extschema@.dac_train_steps(integer) SET SCHEMA dac_internal;
ALTER FUNCTION @extschema@.dac_train_weights() SET SCHEMA dac_internal;
ALTER FUNCTION @extschema@.dac_train_state() SET SCHEMA dac_internal;
ALTER FUNCTION @extschema@.dac_train_end() SET SCHEMA dac_internal;
ALTER FUNCTION @extschema@.dac_check_option_types(text, jsonb, text[], text[], text[], text[]) SET SCHEMA dac_internal;
ALTER FUNCTION @extschema@.dac_evaluate_sets(text, text, integer, integer, integer, bigint, text, text, text) SET SCHEMA dac_internal;
ALTER FUNCTION @extschema@.dac_shipped_weights(text) SET SCHEMA dac_internal;
ALTER FUNCTION dac_internal.dac_check_option_types(text, jsonb, text[], text[], text[], text[])
    SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION dac_internal.dac_resolve_source(source text, what text)
RETURNS text AS 'MODULE_PATHNAME', 'dac_resolve_source_sql' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dac_internal.dac_resolve_source(text, text) IS
'internal: ''mog'', ''warped_mog'', or the schema-qualified, quoted name of the table the caller''s search_path finds';

CREATE FUNCTION dac_internal.dac_train_lock(model text)
RETURNS boolean AS 'MODULE_PATHNAME', 'dac_train_lock' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION dac_internal.dac_train_lock(text) IS
'internal: takes this session''s training lock of a model without waiting (false: another session trains it); released by dac_train_end or an abort';

CREATE FUNCTION dac_internal.dac_train_lock_key(model text)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_train_lock_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dac_internal.dac_train_lock_key(text) IS
'internal: the advisory lock key (second of two; the first is 1145127681) of a model''s training';

-- The backend that trains a model now, from pg_locks (readable by every
-- role, unlike pg_stat_activity.state for other roles' backends); NULL if none.
CREATE FUNCTION dac_internal.dac_training_pid(model text)
RETURNS integer
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT l.pid FROM pg_catalog.pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
      AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
      AND l.classid = 1145127681::pg_catalog.oid
      AND l.objid = ((dac_internal.dac_train_lock_key(model)::bigint + 4294967296) % 4294967296)::pg_catalog.oid
    LIMIT 1
$$;
COMMENT ON FUNCTION dac_internal.dac_training_pid(text) IS
'internal: the process that holds a model''s training lock, or NULL';

-- Whether the current role is, or is a member of, any of the roles; the
-- name "public" stands for every role.  Roles that no longer exist match
-- nobody (pg_has_role would raise an error for them).
CREATE FUNCTION dac_internal.dac_member_of(roles name[])
RETURNS boolean
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'public'::name = ANY (roles) OR EXISTS (
        SELECT 1 FROM pg_catalog.pg_roles r
        WHERE r.rolname = ANY (roles) AND pg_catalog.pg_has_role(r.oid, 'MEMBER'))
$$;
COMMENT ON FUNCTION dac_internal.dac_member_of(name[]) IS
'internal: the current role is one of the roles or a member of one ("public": any role); used by the row-level security policies';

-- ------------------------------------------------------------------ ownership

ALTER TABLE @extschema@.dac_models
    ADD COLUMN owner name NOT NULL DEFAULT CURRENT_USER,
    ADD COLUMN readers name[] NOT NULL DEFAULT '{}';
COMMENT ON COLUMN @extschema@.dac_models.owner IS
'the role that owns the model: it (a member of it, or a superuser) alone replaces, retrains, renames, shares or deletes it';
COMMENT ON COLUMN @extschema@.dac_models.readers IS
'roles besides the owner''s members that may use the model ("public": every role); dac_share_model adds one';

-- a run belongs to its model's owner
ALTER TABLE @extschema@.dac_training_runs ADD COLUMN owner name NOT NULL DEFAULT CURRENT_USER;
COMMENT ON COLUMN @extschema@.dac_training_runs.owner IS
'the owner of the model trained: its members see the run';

-- the owner of a model may rename it: its checkpoint follows
CREATE FUNCTION dac_internal.dac_models_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.shipped THEN
        RAISE EXCEPTION 'model "%" is shipped with the extension and cannot be changed', OLD.name
            USING ERRCODE = 'insufficient_privilege',
                  HINT = format('Copy it under another name: SELECT dac_import(''my_model'', dac_export(%L));', OLD.name);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.shipped THEN
        RAISE EXCEPTION 'only the extension''s scripts add shipped models'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END
$$;
COMMENT ON FUNCTION dac_internal.dac_models_guard() IS
'internal: keeps shipped models as the extension installed them, whoever asks (superusers too)';
CREATE TRIGGER dac_models_guard BEFORE INSERT OR UPDATE OR DELETE ON @extschema@.dac_models
    FOR EACH ROW EXECUTE FUNCTION dac_internal.dac_models_guard();

ALTER TABLE @extschema@.dac_models ENABLE ROW LEVEL SECURITY;
CREATE POLICY dac_models_use ON @extschema@.dac_models FOR SELECT
    USING (shipped OR dac_internal.dac_member_of(ARRAY[owner]) OR dac_internal.dac_member_of(readers));
CREATE POLICY dac_models_add ON @extschema@.dac_models FOR INSERT
    WITH CHECK (NOT shipped AND dac_internal.dac_member_of(ARRAY[owner]));
CREATE POLICY dac_models_change ON @extschema@.dac_models FOR UPDATE
    USING (NOT shipped AND dac_internal.dac_member_of(ARRAY[owner]))
    WITH CHECK (NOT shipped AND dac_internal.dac_member_of(ARRAY[owner]));
CREATE POLICY dac_models_drop ON @extschema@.dac_models FOR DELETE
    USING (NOT shipped AND dac_internal.dac_member_of(ARRAY[owner]));

ALTER TABLE @extschema@.dac_training_runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY dac_training_runs_owner ON @extschema@.dac_training_runs
    USING (dac_internal.dac_member_of(ARRAY[owner]))
    WITH CHECK (dac_internal.dac_member_of(ARRAY[owner]));

ALTER TABLE @extschema@.dac_training_log ENABLE ROW LEVEL SECURITY;
CREATE POLICY dac_training_log_owner ON @extschema@.dac_training_log
    USING (EXISTS (SELECT 1 FROM @extschema@.dac_training_runs r WHERE r.run_id = dac_training_log.run_id))
    WITH CHECK (EXISTS (SELECT 1 FROM @extschema@.dac_training_runs r WHERE r.run_id = dac_training_log.run_id));

ALTER TABLE @extschema@.dac_checkpoints ENABLE ROW LEVEL SECURITY;
CREATE POLICY dac_checkpoints_owner ON @extschema@.dac_checkpoints
    USING (EXISTS (SELECT 1 FROM @extschema@.dac_models m
                   WHERE m.name = dac_checkpoints.model AND NOT m.shipped
                     AND dac_internal.dac_member_of(ARRAY[m.owner])))
    WITH CHECK (EXISTS (SELECT 1 FROM @extschema@.dac_models m
                        WHERE m.name = dac_checkpoints.model AND NOT m.shipped
                          AND dac_internal.dac_member_of(ARRAY[m.owner])));

-- Who owns a model of this name, whether or not this role may see it (model
-- names are one namespace): NULL if there is none.
CREATE FUNCTION dac_internal.dac_model_owner(model text)
RETURNS name
LANGUAGE sql STABLE STRICT SECURITY DEFINER PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT m.owner FROM @extschema@.dac_models m WHERE m.name = model
$$;
COMMENT ON FUNCTION dac_internal.dac_model_owner(text) IS
'internal: the owner of the model of that name, visible or not (names are unique across roles)';

-- 0.1.0 stored a checkpoint's table as to_regclass()::text, relative to the
-- trainer's search_path (unknown now: qualified if it was off the path); resume
-- compares schema-qualified names now.  An unqualified name is looked up in
-- the extension's schema, then in public.
UPDATE @extschema@.dac_checkpoints c
SET source = pg_catalog.format('%I.%I', n.nspname, cl.relname)
FROM pg_catalog.pg_class cl JOIN pg_catalog.pg_namespace n ON n.oid = cl.relnamespace
WHERE c.source NOT IN ('mog', 'warped_mog')
  AND cl.oid = coalesce(pg_catalog.to_regclass(c.source),
                        pg_catalog.to_regclass(pg_catalog.quote_ident('@extschema@') || '.' || c.source),
                        pg_catalog.to_regclass('public.' || c.source));

-- ------------------------------------------------------------------ functions, pinned

CREATE OR REPLACE FUNCTION @extschema@.dac_import(name text, weights bytea, metrics jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    info jsonb;
    owner_of name;
    v bigint;
BEGIN
    IF name IS NULL OR weights IS NULL THEN
        RAISE EXCEPTION 'model name and weights must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    info := @extschema@.dac_weights_info(weights);   -- rejects a malformed file
    owner_of := dac_internal.dac_model_owner(name);
    IF EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name = dac_import.name AND m.shipped) THEN
        RAISE EXCEPTION 'model "%" is shipped with the extension and cannot be replaced', name
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Import the weights under another name.';
    END IF;
    IF owner_of IS NOT NULL AND NOT dac_internal.dac_member_of(ARRAY[owner_of]) THEN
        RAISE EXCEPTION 'model "%" belongs to another role', name
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Only its owner (or a member of the owner) can replace it; import under another name.';
    END IF;
    INSERT INTO @extschema@.dac_models AS m (name, config, weights, metrics)
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

CREATE OR REPLACE FUNCTION @extschema@.dac_export(name text)
RETURNS bytea
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    w bytea;
BEGIN
    SELECT m.weights INTO w FROM @extschema@.dac_models m WHERE m.name = dac_export.name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'model "%" does not exist', name
            USING ERRCODE = 'undefined_object',
                  HINT = 'The models are the rows of dac_models this role may use.';
    END IF;
    RETURN w;
END
$$;

-- Raises 42501 unless the model exists, is not shipped and belongs to (a
-- role of) the current role.
CREATE FUNCTION dac_internal.dac_require_owned(model text)
RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name = model
                   AND NOT m.shipped AND dac_internal.dac_member_of(ARRAY[m.owner])) THEN
        RAISE EXCEPTION 'model "%" does not exist or does not belong to this role', model
            USING ERRCODE = 'insufficient_privilege';
    END IF;
END
$$;
COMMENT ON FUNCTION dac_internal.dac_require_owned(text) IS
'internal: raises 42501 unless the current role owns the model (used by dac_share_model, dac_unshare_model)';

CREATE FUNCTION @extschema@.dac_share_model(model text, role name)
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF role <> 'public' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = role) THEN
        RAISE EXCEPTION 'role "%" does not exist', role USING ERRCODE = 'undefined_object';
    END IF;
    UPDATE @extschema@.dac_models m SET readers = pg_catalog.array_append(m.readers, role), updated_at = now()
    WHERE m.name = model AND NOT role = ANY (m.readers);
    IF NOT FOUND THEN
        PERFORM dac_internal.dac_require_owned(model);
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.dac_share_model(text, name) IS
'lets a role (and its members; "public": every role) use a model of this role''s';

CREATE FUNCTION @extschema@.dac_unshare_model(model text, role name)
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    UPDATE @extschema@.dac_models m SET readers = pg_catalog.array_remove(m.readers, role), updated_at = now()
    WHERE m.name = model AND role = ANY (m.readers);
    IF NOT FOUND THEN
        PERFORM dac_internal.dac_require_owned(model);
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.dac_unshare_model(text, name) IS
'takes back dac_share_model';

CREATE OR REPLACE FUNCTION @extschema@.dac_train_options(source text, options jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
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
    PERFORM dac_internal.dac_check_option_types('dac_train', options, ints, nums, bools, strs);
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
        o := o - 'dim';     -- the table's vectors say it
    END IF;
    RETURN o;
END
$$;

-- The work of dac_evaluate; source is already resolved (generator, or a
-- schema-qualified quoted table name).
CREATE FUNCTION dac_internal.dac_evaluate_run(model text, source text, options jsonb,
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
    IF source IN ('mog', 'warped_mog') THEN
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
COMMENT ON FUNCTION dac_internal.dac_evaluate_run(text, text, jsonb) IS 'internal: the work of dac_evaluate';

-- A table name is found with the caller's search_path, as any name the
-- caller writes; everything else runs pinned.  This body calls only
-- schema-qualified functions of exact argument types and no operator.
CREATE OR REPLACE FUNCTION @extschema@.dac_evaluate(model text, source text, options jsonb DEFAULT '{}',
    OUT sets integer, OUT ari double precision, OUT nmi double precision, OUT k_mae double precision,
    OUT ll double precision, OUT seconds_per_set double precision, OUT gflop_per_set double precision,
    OUT oracle_ll double precision)
RETURNS record
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT * FROM dac_internal.dac_evaluate_run(model,
        dac_internal.dac_resolve_source(source, 'evaluation'::pg_catalog.text), options)
$$;

-- ------------------------------------------------------------------ training

-- A procedure with a SET clause cannot COMMIT, so dac_train pins its
-- search_path itself: the first statement, and again after every COMMIT
-- (a transaction-local setting ends with its transaction).  Its DECLARE
-- section evaluates no operator or function.
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
        FOREACH k IN ARRAY arch_keys || '{seed,batch,n_max,k_max,mix_n_max,mix_k_max,mix_ratio,fixed_n,lr,clip,replace}'::text[] LOOP
            IF options ? k AND options->k IS DISTINCT FROM ck.options->k THEN
                PERFORM dac_internal.dac_train_end();
                RAISE EXCEPTION 'option "%" cannot change when resuming (the checkpoint has %)', k, ck.options->k
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
        -- a 0.1.0 checkpoint of a table run holds "dim": 2, which tables refuse
        opts := @extschema@.dac_train_options(source,
            (ck.options - 'replace' - 'run_steps' - CASE WHEN src IN ('mog', 'warped_mog') THEN '' ELSE 'dim' END) || options);
        IF ck.step >= (opts->>'steps')::bigint THEN
            PERFORM dac_internal.dac_train_end();
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

-- ------------------------------------------------------------------ status

CREATE OR REPLACE VIEW @extschema@.dac_training_status AS
SELECT r.run_id, r.model, r.source,
       CASE WHEN r.status = 'running' AND dac_internal.dac_training_pid(r.model) IS DISTINCT FROM r.pid
            THEN 'interrupted' ELSE r.status END AS status,
       r.step, r.total_steps, r.last_loss, r.steps_per_second, r.started_at, r.updated_at,
       r.finished_at, r.error, r.owner
FROM @extschema@.dac_training_runs r;
-- the reader's own rights and row-level security, not the view owner's
ALTER VIEW @extschema@.dac_training_status SET (security_invoker = true);
COMMENT ON VIEW @extschema@.dac_training_status IS
'dac_training_runs this role may see, with "interrupted" for runs whose session ended or stopped without saying so (killed backend, crash, cancel)';

-- ------------------------------------------------------------------ privileges

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA dac_internal FROM PUBLIC;
GRANT USAGE ON SCHEMA dac_internal TO dac_user;
GRANT EXECUTE ON FUNCTION
    dac_internal.dac_train_begin(bytea, bytea, text, jsonb),
    dac_internal.dac_train_steps(integer),
    dac_internal.dac_train_weights(),
    dac_internal.dac_train_state(),
    dac_internal.dac_train_end(),
    dac_internal.dac_train_lock(text),
    dac_internal.dac_resolve_source(text, text),
    dac_internal.dac_evaluate_run(text, text, jsonb),
    dac_internal.dac_train_lock_key(text),
    dac_internal.dac_training_pid(text),
    dac_internal.dac_check_option_types(text, jsonb, text[], text[], text[], text[]),
    dac_internal.dac_evaluate_sets(text, text, integer, integer, integer, bigint, text, text, text),
    dac_internal.dac_member_of(name[]),
    dac_internal.dac_model_owner(text),
    dac_internal.dac_require_owned(text)
TO dac_user;

DO $$
BEGIN
    EXECUTE pg_catalog.format('GRANT USAGE ON SCHEMA %I TO dac_user', '@extschema@');
END
$$;
GRANT SELECT, INSERT, UPDATE, DELETE ON @extschema@.dac_models, @extschema@.dac_training_runs,
    @extschema@.dac_training_log, @extschema@.dac_checkpoints TO dac_user;
GRANT USAGE ON SEQUENCE @extschema@.dac_training_runs_run_id_seq TO dac_user;
GRANT SELECT ON @extschema@.dac_training_status TO dac_user;
