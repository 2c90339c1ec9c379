-- dac 0.25.0 -> 0.26.0: the hostile-role review of 0.25.0.
--
-- * No member of dac_user holds a table privilege that lets it take a lock
--   other roles wait on: UPDATE is granted on the columns a user changes
--   (LOCK TABLE beyond ROW EXCLUSIVE needs UPDATE, DELETE or TRUNCATE on the
--   whole table), and DELETE goes: dac_drop_model(name) deletes a model of
--   the caller's, with its checkpoint and the caller's runs of it.
-- * Only the caller, or a role the caller is a member of, may own what the
--   caller writes: never 'public' nor dac_user (dac_internal.dac_may_own).
--   A row owned by 'public' or dac_user (none can be made any more) is seen
--   by no role but superusers, and a model owned by one cannot be trained.
-- * In the module, with no SQL object: a model in use by a statement stays
--   alive when the statement's own functions replace its row; the model
--   cache counts against dac.memory_limit; dac_match_ids, dac_ari and
--   dac_nmi take time linear in their input whatever its values, checked
--   against dac.memory_limit and cancellable; a table source is read a batch
--   at a time, each counted against dac.memory_limit.
-- * Users' models, runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.26.0'" to load this file. \quit

-- ------------------------------------------------------------------ who may own a row

CREATE FUNCTION dac_internal.dac_may_own(owner name)
RETURNS boolean
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT owner OPERATOR(pg_catalog.<>) ALL (ARRAY['public', 'dac_user']::name[]) AND EXISTS (
        SELECT 1 FROM pg_catalog.pg_roles r
        WHERE r.rolname OPERATOR(pg_catalog.=) owner AND pg_catalog.pg_has_role(r.oid, 'MEMBER'))
$$;
COMMENT ON FUNCTION dac_internal.dac_may_own(name) IS
'internal: whether the current role may own (write) a row owned by this role: it or a role it is a member of, never public or dac_user';
REVOKE ALL ON FUNCTION dac_internal.dac_may_own(name) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_may_own(name) TO dac_user;

ALTER POLICY dac_models_use ON @extschema@.dac_models
    USING (shipped OR dac_internal.dac_may_own(owner) OR dac_internal.dac_member_of(readers));
ALTER POLICY dac_models_add ON @extschema@.dac_models
    WITH CHECK (NOT shipped AND dac_internal.dac_may_own(owner));
ALTER POLICY dac_models_change ON @extschema@.dac_models
    USING (NOT shipped AND dac_internal.dac_may_own(owner))
    WITH CHECK (NOT shipped AND dac_internal.dac_may_own(owner));
ALTER POLICY dac_models_drop ON @extschema@.dac_models
    USING (NOT shipped AND dac_internal.dac_may_own(owner));

ALTER POLICY dac_training_runs_owner ON @extschema@.dac_training_runs
    USING (dac_internal.dac_may_own(owner))
    WITH CHECK (dac_internal.dac_may_own(owner)
                AND (owner OPERATOR(pg_catalog.=) CURRENT_USER
                     OR owner OPERATOR(pg_catalog.=) dac_internal.dac_model_owner(model)));

ALTER POLICY dac_checkpoints_owner ON @extschema@.dac_checkpoints
    USING (EXISTS (SELECT 1 FROM @extschema@.dac_models m
                   WHERE m.name OPERATOR(pg_catalog.=) model AND NOT m.shipped
                     AND dac_internal.dac_may_own(m.owner)))
    WITH CHECK (EXISTS (SELECT 1 FROM @extschema@.dac_models m
                        WHERE m.name OPERATOR(pg_catalog.=) model AND NOT m.shipped
                          AND dac_internal.dac_may_own(m.owner)));

CREATE OR REPLACE FUNCTION dac_internal.dac_require_owned(model text)
RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name OPERATOR(pg_catalog.=) model
                   AND NOT m.shipped AND dac_internal.dac_may_own(m.owner)) THEN
        RAISE EXCEPTION 'model "%" does not exist or does not belong to this role', model
            USING ERRCODE = 'insufficient_privilege';
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION @extschema@.dac_import(name text, weights bytea, metrics jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
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
    IF owner_of IS NOT NULL AND NOT dac_internal.dac_may_own(owner_of) THEN
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

-- ------------------------------------------------------------------ no lock others wait on

REVOKE UPDATE, DELETE ON @extschema@.dac_models, @extschema@.dac_training_runs,
    @extschema@.dac_training_log, @extschema@.dac_checkpoints FROM dac_user;
GRANT UPDATE (name, config, weights, version, metrics, created_at, updated_at, owner, readers)
    ON @extschema@.dac_models TO dac_user;
GRANT UPDATE (model, source, options, status, step, total_steps, last_loss, steps_per_second,
              started_at, updated_at, finished_at, error, pid, backend_start, owner, validation)
    ON @extschema@.dac_training_runs TO dac_user;
GRANT UPDATE (model, run_id, step, total_steps, source, options, state, updated_at)
    ON @extschema@.dac_checkpoints TO dac_user;

CREATE FUNCTION @extschema@.dac_drop_model(model text)
RETURNS void AS 'MODULE_PATHNAME', 'dac_drop_model_sql' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@.dac_drop_model(text) IS
'deletes a model of the caller''s, its checkpoint, and the caller''s training runs of it';
REVOKE ALL ON FUNCTION @extschema@.dac_drop_model(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.dac_drop_model(text) TO dac_user;
