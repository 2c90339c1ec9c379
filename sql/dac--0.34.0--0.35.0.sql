-- dac 0.34.0 -> 0.35.0: a cluster's width given in the call; rings, moons
-- and bands found whole.
--
-- * The modes stage (the module; dac.mode_merge, default 0.1): after the
--   small clusters are absorbed, a path or a ring of 4 or more clusters of a
--   2-D Gaussian model whose Gaussians' mixture dips to no less than that
--   ratio between neighbours becomes one cluster.  No SQL object changes
--   for it: dac_pipeline lists it from the module's table.
-- * dac_cluster, dac_cluster_lonlat, dac_cluster_ids, dac_cluster_set,
--   dac_cluster_summary and dac_clustering take width => , a cluster's
--   width in the data's own units (metres for dac_cluster_lonlat), as
--   dac.cluster_width gives it; NULL (the default) leaves the setting.
-- * Each form's 0.34.0 signature, the same one without width, would make
--   every call that leaves width out ambiguous.  It moves to the schema
--   dac_internal, where a user's view or function made before this update
--   keeps calling it (by OID; its privileges go with it), and nothing else
--   does.  The new signature gets the old one's privileges.
-- * No table or shipped model changes.  Users' models, runs and checkpoints
--   are untouched; a call without width clusters as in 0.34.0 but where the
--   modes stage joins a chain of a 2-D group's pieces.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.35.0'" to load this file. \quit

DO $$
DECLARE
    f record;
    args text;
    sig text;
    g record;
BEGIN
    FOR f IN SELECT p.oid, p.proname, p.prokind, p.prosrc, p.probin, p.procost, p.prorows,
                    p.proretset, p.proacl, pg_catalog.pg_get_function_arguments(p.oid) AS args,
                    pg_catalog.pg_get_function_result(p.oid) AS result,
                    pg_catalog.obj_description(p.oid, 'pg_proc') AS note
             FROM pg_catalog.pg_proc p
             WHERE p.pronamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
               AND p.proname OPERATOR(pg_catalog.=) ANY (ARRAY['dac_cluster', 'dac_cluster_lonlat',
                   'dac_cluster_ids', 'dac_cluster_set', 'dac_cluster_summary', 'dac_clustering'])
               AND 'max_k' OPERATOR(pg_catalog.=) ANY (p.proargnames)
             ORDER BY p.oid
    LOOP
        -- the same arguments, width after max_k (before the OUT columns)
        args := pg_catalog.replace(f.args, 'max_k integer DEFAULT NULL::integer',
                                   'max_k integer DEFAULT NULL::integer, width double precision DEFAULT NULL::double precision');
        IF args OPERATOR(pg_catalog.=) f.args THEN
            RAISE EXCEPTION 'dac update: % has no max_k argument to follow', f.oid::pg_catalog.regprocedure;
        END IF;
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET SCHEMA dac_internal', f.oid::pg_catalog.regprocedure);
        EXECUTE pg_catalog.format('COMMENT ON FUNCTION %s IS %L', f.oid::pg_catalog.regprocedure,
                                  'dac 0.34.0''s signature of ' || f.proname || ', kept for views and functions made before 0.35.0; new calls get @extschema@.' || f.proname);
        EXECUTE pg_catalog.format('CREATE FUNCTION @extschema@.%I(%s) RETURNS %s AS %L, %L LANGUAGE c %s STABLE PARALLEL SAFE COST %s %s',
                                  f.proname, args, f.result, f.probin, f.prosrc,
                                  CASE WHEN f.prokind OPERATOR(pg_catalog.=) 'w' THEN 'WINDOW' ELSE '' END,
                                  f.procost,
                                  CASE WHEN f.proretset THEN 'ROWS ' || f.prorows ELSE '' END);
        -- the new signature: the old one's argument types, then width's
        sig := pg_catalog.format('@extschema@.%I(%s)', f.proname,
                                 (SELECT pg_catalog.string_agg(pg_catalog.format_type(t, NULL), ', ' ORDER BY i)
                                  FROM pg_catalog.unnest((SELECT p.proargtypes::pg_catalog.oid[] FROM pg_catalog.pg_proc p
                                                          WHERE p.oid OPERATOR(pg_catalog.=) f.oid)) WITH ORDINALITY AS a(t, i))
                                 || ', double precision');
        EXECUTE pg_catalog.format('COMMENT ON FUNCTION %s IS %L', sig,
                                  COALESCE(f.note, f.proname::pg_catalog.text) || '; width: a cluster''s width in the data''s own units (NULL: dac.cluster_width)');
        -- the privileges a DBA gave the 0.34.0 signature
        IF f.proacl IS NOT NULL THEN
            EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', sig);
            FOR g IN SELECT a.grantee, a.is_grantable FROM pg_catalog.aclexplode(f.proacl) a
                     WHERE a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
            LOOP
                EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s%s', sig,
                                          CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                                               ELSE g.grantee::pg_catalog.regrole::text END,
                                          CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
            END LOOP;
        END IF;
    END LOOP;
END $$;
