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
