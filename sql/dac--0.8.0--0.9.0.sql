-- dac 0.8.0 -> 0.9.0: 2-D points in any units.
--
-- * The shipped 2-D models (mlf_mog2d, af_mog2d, mlf64_mog2d, mlf_small2d,
--   mlf_fast2d, mlf_warped2d) take points in any units and origin: their
--   configuration says "input": "scaled" with the cluster width they were
--   trained at ("unit_width"), and each set is centred and scaled to it in
--   double precision before the network sees it (src/core/frame.h).  The
--   network weights are the same as 0.8.0's, in a file whose configuration
--   says so; the version of each row whose bytes change goes up by one, so
--   cached copies are read again.  A model a user trained
--   or fine-tuned before keeps its configuration and its behaviour.
-- * DROP EXTENSION dac stops while user models exist (event trigger
--   dac_guard_drop), unless the session sets dac.drop_models = on.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.9.0'" to load this file. \quit

ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
   SET weights = f.w, config = @extschema@.dac_weights_info(f.w) -> 'config',
       version = m.version + (m.weights IS DISTINCT FROM f.w)::integer, updated_at = pg_catalog.now()
  FROM (SELECT n AS name, dac_internal.dac_shipped_weights(n OPERATOR(pg_catalog.||) '.safetensors') AS w
          FROM pg_catalog.unnest(ARRAY['mlf_mog2d', 'af_mog2d', 'mlf64_mog2d', 'mlf_small2d',
                                       'mlf_fast2d', 'mlf_warped2d']) AS n) f
 WHERE m.name OPERATOR(pg_catalog.=) f.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;

-- ------------------------------------------------------------------ DROP EXTENSION guard
--
-- DROP EXTENSION dac deleted every user's models, runs and checkpoints
-- without a word.  It now stops while user models exist, unless the session
-- says so (SET dac.drop_models = on); export or dump them first.

CREATE FUNCTION dac_internal.dac_guard_drop()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
BEGIN
    -- only a DROP EXTENSION that names dac (alone or in a list)
    IF pg_catalog.current_query() OPERATOR(pg_catalog.!~*)
       '\mdrop\s+extension\s+(if\s+exists\s+)?([[:alnum:]_"]+\s*,\s*)*"?dac"?(\s|,|;|$)' THEN
        RETURN;
    END IF;
    IF pg_catalog.lower(coalesce(pg_catalog.current_setting('dac.drop_models', true), ''))
       OPERATOR(pg_catalog.=) ANY (ARRAY['on', 'true', 'yes', '1']) THEN
        RETURN;
    END IF;
    SELECT pg_catalog.count(*) INTO n FROM @extschema@.dac_models m WHERE NOT m.shipped;
    IF n OPERATOR(pg_catalog.>) 0 THEN
        RAISE EXCEPTION 'cannot drop extension dac: it would delete % user model(s) with their runs and checkpoints', n
            USING ERRCODE = 'dependent_objects_still_exist',
                  HINT = 'Keep them first (pg_dump, or SELECT name, dac_export(name) FROM dac_models WHERE NOT shipped), then SET dac.drop_models = on in this session to drop them with the extension.';
    END IF;
END
$$;
REVOKE ALL ON FUNCTION dac_internal.dac_guard_drop() FROM PUBLIC;
COMMENT ON FUNCTION dac_internal.dac_guard_drop() IS
'internal: refuses DROP EXTENSION dac while user models exist, unless dac.drop_models is on';
CREATE EVENT TRIGGER dac_guard_drop ON ddl_command_start WHEN TAG IN ('DROP EXTENSION')
    EXECUTE FUNCTION dac_internal.dac_guard_drop();
