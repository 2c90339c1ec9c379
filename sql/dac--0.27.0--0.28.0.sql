-- dac 0.27.0 -> 0.28.0: messages that name the fix where ownership and
-- sharing refuse.
--
-- * dac_share_model and dac_unshare_model say why they refuse (a model of
--   another role, 42501, or none this role can see, 42704) with a hint; a
--   shipped model needs no sharing (a NOTICE, for superusers too: it was
--   the guard's "cannot be changed"); their errors no longer show an
--   internal query in CONTEXT (both are now SQL functions over one
--   internal function, dac_internal.dac_set_readers, which replaces
--   dac_internal.dac_require_owned).
-- * A model handed to a role this role is not a member of (UPDATE dac_models
--   SET owner), or added in another role's name, is refused by a trigger of
--   dac's (dac_models_owner) with a message and a hint (it was row-level
--   security's raw "new row violates row-level security policy").  public
--   and dac_user never own a model.  Superusers and BYPASSRLS roles are not
--   checked, as row-level security does not check them.
-- * No clustering changes; users' models, runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.28.0'" to load this file. \quit

-- Who may own a model row, said plainly before row-level security refuses
-- it (as RLS would: superusers and BYPASSRLS roles are not checked, so a
-- restore keeps every row).  A trigger of its own beside dac_models_guard
-- (shipped models), which fires first (triggers fire by name).
CREATE FUNCTION dac_internal.dac_models_owner_check()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.shipped OR EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                              WHERE r.rolname OPERATOR(pg_catalog.=) current_user AND (r.rolsuper OR r.rolbypassrls)) THEN
        RETURN NEW;
    END IF;
    IF NEW.owner OPERATOR(pg_catalog.=) ANY (ARRAY['public', 'dac_user']::name[]) THEN
        RAISE EXCEPTION 'a model cannot be owned by "%"', NEW.owner
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Every role is a member of public and dac_user.',
                  HINT = format('To let every role use it, share it: SELECT dac_share_model(%L, ''public'');', NEW.name);
    END IF;
    IF TG_OP = 'INSERT' AND NOT dac_internal.dac_may_own(NEW.owner) THEN
        RAISE EXCEPTION 'this role cannot add a model owned by role "%"', NEW.owner
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Add models of your own with dac_import(name, file); the role that adds one owns it.';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.owner IS DISTINCT FROM OLD.owner AND NOT dac_internal.dac_may_own(NEW.owner) THEN
        RAISE EXCEPTION 'model "%" cannot be handed to role "%"', OLD.name, NEW.owner
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'A model can be handed only to a role this role is a member of.',
                  HINT = format('Let that role use it instead: SELECT dac_share_model(%L, %L); or ask a superuser to hand it over.',
                                OLD.name, NEW.owner);
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION dac_internal.dac_models_owner_check() IS
'internal: refuses, with a hint, a model row owned by a role the writer may not own (before row-level security would)';
REVOKE ALL ON FUNCTION dac_internal.dac_models_owner_check() FROM PUBLIC;
CREATE TRIGGER dac_models_owner BEFORE INSERT OR UPDATE ON @extschema@.dac_models
    FOR EACH ROW EXECUTE FUNCTION dac_internal.dac_models_owner_check();

-- dac_share_model and dac_unshare_model, one function: a shipped model
-- needs no sharing (a NOTICE); the role to share with must exist; then
-- the owner's row changes, and when none did, a model this role sees but
-- does not own belongs to another role (42501) and one it cannot see does
-- not exist for it (42704, as for every other use).  Run as the caller, so
-- that row-level security decides what it sees and changes; the public
-- functions are SQL functions, so that no error's CONTEXT quotes a query.
DROP FUNCTION dac_internal.dac_require_owned(text);
CREATE FUNCTION dac_internal.dac_set_readers(model text, role name, share boolean)
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    row_of record;
BEGIN
    IF EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name OPERATOR(pg_catalog.=) model AND m.shipped) THEN
        RAISE NOTICE 'model "%" is shipped with the extension: every role may use it already', model;
        RETURN;
    END IF;
    IF share AND role OPERATOR(pg_catalog.<>) 'public' AND NOT EXISTS (
           SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) role) THEN
        RAISE EXCEPTION 'role "%" does not exist', role USING ERRCODE = 'undefined_object';
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
$$;
COMMENT ON FUNCTION dac_internal.dac_set_readers(text, name, boolean) IS
'internal: dac_share_model (share true) and dac_unshare_model (false), as the caller';
REVOKE ALL ON FUNCTION dac_internal.dac_set_readers(text, name, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_set_readers(text, name, boolean) TO dac_user;

CREATE OR REPLACE FUNCTION @extschema@.dac_share_model(model text, role name)
RETURNS void
LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dac_internal.dac_set_readers(model, role, true) $$;

CREATE OR REPLACE FUNCTION @extschema@.dac_unshare_model(model text, role name)
RETURNS void
LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dac_internal.dac_set_readers(model, role, false) $$;
