-- dac_security: what keeps the extension safe in a shared database, as the
-- catalogue shows it, and the error paths of ownership, sharing, shipped
-- models, the training lock and the size limits.  (test/security.sh runs
-- the same as real roles, several sessions and hostile objects.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
\i sql/err.psql

-- ---------------------------------------------------------------- search_path
-- every SQL and PL/pgSQL function of the extension pins search_path, but two:
-- dac_train (a procedure that COMMITs cannot have SET; it pins in its body)
-- and dac_evaluate (resolves the caller's table name, then calls pinned code)
SELECT p.oid::regprocedure AS not_pinned_by_set
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dac'
JOIN pg_language l ON l.oid = p.prolang
WHERE l.lanname IN ('sql', 'plpgsql')
  AND NOT coalesce(p.proconfig @> ARRAY['search_path=pg_catalog, pg_temp'], false)
ORDER BY 1::text;
SELECT prosrc ~ '^\s*DECLARE.*BEGIN\s+--[^\n]*\n[^\n]*\n\s*src := dac_internal\.dac_resolve_source\(source, ''training''::pg_catalog\.text\);\s+PERFORM pg_catalog\.set_config\(''search_path'', ''pg_catalog, pg_temp'', true\);' AS train_pins_first,
       regexp_count(prosrc, 'COMMIT;') AS commits,
       regexp_count(prosrc, 'COMMIT;\s+PERFORM pg_catalog\.set_config\(''search_path'', ''pg_catalog, pg_temp'', true\);') AS repinned_commits
FROM pg_proc WHERE proname = 'dac_train';

-- ---------------------------------------------------------------- privileges
SELECT p.oid::regprocedure AS internal_executable_by_public
FROM pg_proc p WHERE p.pronamespace = 'dac_internal'::regnamespace
  AND has_function_privilege('public', p.oid, 'EXECUTE')
  AND obj_description(p.oid, 'pg_proc') NOT LIKE 'dac 0.34.0''s signature of %';
-- 0.34.0's clustering signatures stay executable for the views that call
-- them; each runs the C function of a public form and nothing else
SELECT count(*) AS kept_signatures,
       bool_and(EXISTS (SELECT 1 FROM pg_proc q WHERE q.pronamespace = 'public'::regnamespace
                        AND q.proname = p.proname AND q.prosrc = p.prosrc AND q.probin = p.probin
                        AND q.pronargs = p.pronargs + 1)) AS each_as_a_public_form
FROM pg_proc p WHERE p.pronamespace = 'dac_internal'::regnamespace
  AND obj_description(p.oid, 'pg_proc') LIKE 'dac 0.34.0''s signature of %';
SELECT rolname, rolcanlogin, rolsuper FROM pg_roles WHERE rolname = 'dac_user';
SELECT c.relname, c.relrowsecurity, has_table_privilege('dac_user', c.oid, 'SELECT, INSERT, UPDATE, DELETE') AS dac_user_rw,
       has_table_privilege('public', c.oid, 'SELECT') AS public_reads
FROM pg_class c WHERE c.relname IN ('dac_models', 'dac_training_runs', 'dac_training_log', 'dac_checkpoints')
ORDER BY 1;
SELECT tablename, policyname, cmd FROM pg_policies WHERE tablename LIKE 'dac%' ORDER BY 1, 2;
SELECT reloptions FROM pg_class WHERE relname = 'dac_training_status';

-- ---------------------------------------------------------------- ownership and sharing
SELECT dac_import('sec_m', dac_export('mlf_mog2d')) AS version;
SELECT owner = current_user AS mine, readers FROM dac_models WHERE name = 'sec_m';
SELECT pg_temp.err($$SELECT dac_share_model('sec_m', 'no_such_role_x')$$);
SELECT pg_temp.err($$SELECT dac_share_model('no_such_model', 'public')$$);
-- a shipped model needs no sharing: a NOTICE (dac_messages), no error, nothing changed
SELECT pg_temp.err($$SELECT dac_share_model('mlf_mog2d', 'public')$$), (SELECT readers FROM dac_models WHERE name = 'mlf_mog2d') AS shipped_readers;
SELECT dac_share_model('sec_m', 'public'), dac_share_model('sec_m', 'public');
SELECT readers FROM dac_models WHERE name = 'sec_m';
SELECT dac_unshare_model('sec_m', 'public');
SELECT readers FROM dac_models WHERE name = 'sec_m';
-- shipped models: no one changes them, through the API or SQL
SELECT pg_temp.err($$SELECT dac_import('mlf_mog2d', dac_export('af_mog2d'))$$);
SELECT pg_temp.err($$UPDATE dac_models SET weights = weights WHERE name = 'mlf_mog2d'$$);
SELECT pg_temp.err($$DELETE FROM dac_models WHERE name = 'af_mog2d'$$);
SELECT pg_temp.err($$UPDATE dac_models SET shipped = true WHERE name = 'sec_m'$$);
SELECT pg_temp.err($$INSERT INTO dac_models (name, config, weights, shipped) SELECT 'sec_s', config, weights, true FROM dac_models WHERE name = 'sec_m'$$);
SELECT pg_temp.err($$CALL dac_train('mlf_mog2d', 'mog', '{"steps": 1}')$$);
SELECT count(*) AS shipped_models FROM dac_models WHERE shipped;
DELETE FROM dac_models WHERE name = 'sec_m';

-- ---------------------------------------------------------------- the training lock
SELECT dac_internal.dac_train_lock('sec_lock') AS locked;
SELECT dac_internal.dac_training_pid('sec_lock') = pg_backend_pid() AS held_by_me;
SELECT dac_internal.dac_train_end();
SELECT dac_internal.dac_training_pid('sec_lock') IS NULL AS released;
-- an error in the transaction that took the lock releases it
BEGIN;
SELECT dac_internal.dac_train_lock('sec_lock') AS locked;
SELECT 1 / 0;
ROLLBACK;
SELECT dac_internal.dac_training_pid('sec_lock') IS NULL AS released_by_abort;
-- the lock in pg_locks: the one pg_advisory_lock(1145127681, key) takes, keyed by the model
SELECT dac_internal.dac_train_lock('sec_lock') AS locked;
-- a tag no advisory-lock function takes (objsubid 17475, not 1 or 2), keyed
-- by a 64-bit hash of the name: classid its high half, objid its low one
SELECT l.objsubid, l.mode,
       l.classid::bigint = (dac_internal.dac_train_lock_id('sec_lock') >> 32) & 4294967295 AS classid_is_key,
       l.objid::bigint = dac_internal.dac_train_lock_id('sec_lock') & 4294967295 AS objid_is_key
FROM pg_locks l WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid();
-- the advisory-lock functions on the same numbers take other tags
SELECT pg_try_advisory_lock(((dac_internal.dac_train_lock_id('sec_lock') >> 32) & 4294967295)::int8::bit(32)::int4,
                            (dac_internal.dac_train_lock_id('sec_lock') & 4294967295)::int8::bit(32)::int4) AS int_pair_lock,
       pg_try_advisory_lock(dac_internal.dac_train_lock_id('sec_lock')) AS bigint_lock;
SELECT count(*) AS dac_locks FROM pg_locks l
WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.objsubid = 17475;
SELECT pg_advisory_unlock(((dac_internal.dac_train_lock_id('sec_lock') >> 32) & 4294967295)::int8::bit(32)::int4,
                          (dac_internal.dac_train_lock_id('sec_lock') & 4294967295)::int8::bit(32)::int4) AND
       pg_advisory_unlock(dac_internal.dac_train_lock_id('sec_lock')) AS unlocked;
SELECT dac_internal.dac_train_end();
SELECT dac_internal.dac_train_lock_id('a') <> dac_internal.dac_train_lock_id('b') AS distinct_keys;
-- a source is resolved to a quoted, schema-qualified name or refused
CREATE TABLE "Odd Name" (v real[], l int);
SELECT dac_internal.dac_resolve_source('"Odd Name"', 'training'), dac_internal.dac_resolve_source('mog', 'training');
SELECT pg_temp.err($$SELECT dac_internal.dac_resolve_source('no_table; DROP TABLE x', 'training')$$);
SELECT pg_temp.err($$SELECT dac_internal.dac_resolve_source('missing_table', 'evaluation')$$);
DROP TABLE "Odd Name";

-- ---------------------------------------------------------------- size limits and hostile values
-- 4,097 tensors, more than the limit
SELECT pg_temp.err(format($q$SELECT dac_weights_info(%L::bytea)$q$,
  (SELECT (SELECT string_agg(set_byte('\x00'::bytea, 0, ((octet_length(j)::bigint >> (8*i)) & 255)::int), ''::bytea ORDER BY i)
           FROM generate_series(0, 7) i) || j || decode(repeat('0000803f', 4097), 'hex')
   FROM (SELECT convert_to('{' || string_agg(format('"t%s":{"dtype":"F32","shape":[1],"data_offsets":[%s,%s]}', g, 4*g, 4*g + 4), ',') || '}', 'UTF8') AS j
         FROM generate_series(0, 4096) g) h)));
-- a header length over 4 MiB
SELECT pg_temp.err($$SELECT dac_weights_info('\x0100400000000000'::bytea || convert_to(repeat(' ', 4194305), 'UTF8'))$$);
-- a duplicate key among many
SELECT pg_temp.err(format($q$SELECT dac_weights_info(%L::bytea)$q$,
  (SELECT (SELECT string_agg(set_byte('\x00'::bytea, 0, ((octet_length(j)::bigint >> (8*i)) & 255)::int), ''::bytea ORDER BY i)
           FROM generate_series(0, 7) i) || j
   FROM (SELECT convert_to('{"__metadata__":{' || string_agg(format('"k%s":"v"', g % 19999), ',') || '}}', 'UTF8') AS j
         FROM generate_series(0, 19999) g) h)));
-- labels: many distinct ones, and the memory limit
SELECT dac_ari(array_agg(g), array_agg(1000000 - g)) AS ari, dac_nmi(array_agg(g), array_agg(-g)) AS nmi
FROM generate_series(1, 100000) g;
SET dac.memory_limit = '1MB';
SELECT pg_temp.err($$SELECT dac_ari(array_agg(g), array_agg(g)) FROM generate_series(1, 25000) g$$);
RESET dac.memory_limit;
-- values far beyond any the model was trained on: a 2-D model takes any
-- units (0.9.0), so points at 1e18 cluster as the same points at 1 do (the
-- error a raw model gives on an output that overflows: test_hostile.c)
SELECT (SELECT array_agg(cluster ORDER BY ord) FROM dac_cluster_set((SELECT array_agg(ARRAY[x[1] * 1e18, x[2] * 1e18] ORDER BY ord)
                                                                    FROM dac_generate('mog', 1, 300, 4, 3))::real[]))
     = (SELECT array_agg(cluster ORDER BY ord) FROM dac_cluster_set((SELECT array_agg(x ORDER BY ord) FROM dac_generate('mog', 1, 300, 4, 3))))
       AS same_ids_at_1e18;

-- ---------------------------------------------------------------- an abort frees the trainer
-- (a cancel that lands outside dac_train's exception blocks, in a COMMIT say,
-- once left the trainer allocated and the run's lock held)
BEGIN;
SELECT dac_internal.dac_train_begin(NULL, NULL, 'mog', dac_train_options('mog',
    '{"steps": 2, "batch": 1, "n_max": 20, "dim_hidden": 8, "num_heads": 2, "num_inds": 2}')) IS NOT NULL AS begun;
SELECT 1 / 0;
ROLLBACK;
SELECT pg_temp.err($$SELECT dac_internal.dac_train_steps(1)$$) AS after_abort;

-- ---------------------------------------------------------------- 0.7.0's review
-- dac_filter on a normalising model: points of any width are normalised as
-- a clustering normalises them (0.7.0 read 32 floats a point past the 9
-- given, echoing that memory in an error, or crashed on 1-wide points)
SELECT count(*) AS rows, bool_and(prob BETWEEN 0 AND 1) AS probabilities
FROM dac_filter('{{1,2,3},{4,5,6},{7,8,9}}'::real[], 'mlf_embed');
SELECT count(*) AS rows, bool_and(prob BETWEEN 0 AND 1) AS probabilities
FROM dac_filter((SELECT array_agg(ARRAY[(g % 7)::real]) FROM generate_series(1, 2000) g));
-- the same set scaled and shifted gives the same pass
SELECT max(abs(a.prob - b.prob)) < 1e-3 AS same_pass
FROM dac_filter((SELECT array_agg(ARRAY[g % 5, (g * 7) % 11, g % 3]::real[] ORDER BY g) FROM generate_series(1, 60) g), 'mlf_embed') a
JOIN dac_filter((SELECT array_agg(ARRAY[1000 * (g % 5) + 7, 1000 * ((g * 7) % 11) - 3, 1000 * (g % 3)]::real[] ORDER BY g)
                 FROM generate_series(1, 60) g), 'mlf_embed') b USING (ord);
-- a raw 2-D model still takes 2-D points only
SELECT pg_temp.err($$SELECT * FROM dac_filter('{{1,2,3},{4,5,6}}'::real[], 'mlf_mog2d')$$);
-- sizes claimed by a kept clustering are checked against the values it holds
SELECT pg_temp.err(format($q$SELECT dac_assign('{1}'::real[], %L::jsonb)$q$,
  '{"dac_clustering": 1, "dim": 1000000, "n": 100, "noise": 0, "density": "none", "clusters": [' ||
  (SELECT string_agg(format('{"id": %s, "size": 1, "mean": [0], "stddev": [1]}', g), ',') FROM generate_series(1, 100) g) || ']}'));
-- the embed generator's tables count against dac.memory_limit
SET dac.memory_limit = '1MB';
SELECT pg_temp.err($$SELECT count(*) FROM dac_generate('embed', 1, 4, 2000, 1, 4096)$$);
RESET dac.memory_limit;
-- a training whose set normalisation needs 768 x 768 matrices counts them
SET dac.memory_limit = '8MB';
SELECT pg_temp.err($$SELECT dac_internal.dac_train_begin(NULL, NULL, 'embed', dac_train_options('embed',
    '{"dim": 768, "steps": 1, "batch": 1, "n_max": 8, "dim_hidden": 8, "num_heads": 1, "num_inds": 2, "num_blocks": 1}'))$$);
-- as does a fresh architecture's parameter buffer
SELECT pg_temp.err($$SELECT dac_internal.dac_train_begin(NULL, NULL, 'mog', dac_train_options('mog',
    '{"steps": 1, "batch": 1, "n_max": 8, "dim_hidden": 1024, "num_blocks": 16, "shared_blocks": false}'))$$);
RESET dac.memory_limit;
SELECT dac_internal.dac_train_end();
-- the settings that bound a backend's memory and cores are the superuser's
SELECT name, context FROM pg_settings WHERE name IN ('dac.memory_limit', 'dac.blas_threads') ORDER BY name;
-- a run or a model may be owned only by a role the writer is a member of,
-- never dac_user (every user is a member of it) nor public
SELECT pg_get_expr(p.polwithcheck, p.polrelid) ~ 'dac_may_own' AS runs_checked_by_may_own
FROM pg_policy p WHERE p.polname = 'dac_training_runs_owner';
SELECT dac_internal.dac_may_own('dac_user') AS dac_user, dac_internal.dac_may_own('public') AS public,
       dac_internal.dac_may_own(current_user) AS me, dac_internal.dac_may_own('no_such_role_x') AS missing;

-- ---------------------------------------------------------------- no lock others wait on
-- dac_user may update the columns a user changes, but holds neither UPDATE nor
-- DELETE on a whole table (LOCK TABLE beyond ROW EXCLUSIVE needs one of them)
SELECT c.relname, has_table_privilege('dac_user', c.oid, 'UPDATE') AS table_update,
       has_table_privilege('dac_user', c.oid, 'DELETE') AS table_delete,
       has_table_privilege('dac_user', c.oid, 'TRUNCATE') AS table_truncate,
       has_any_column_privilege('dac_user', c.oid, 'UPDATE') AS column_update
FROM pg_class c WHERE c.relname IN ('dac_models', 'dac_training_runs', 'dac_training_log', 'dac_checkpoints')
ORDER BY 1;
SELECT has_column_privilege('dac_user', 'dac_models', 'shipped', 'UPDATE') AS may_set_shipped;
-- dac_drop_model: a model of the caller's goes with its checkpoint and runs
SELECT pg_temp.err($$SELECT dac_drop_model('no_such_model')$$);
SELECT pg_temp.err($$SELECT dac_drop_model('mlf_mog2d')$$);
CALL dac_train('sec_drop', 'mog', '{"steps": 2, "batch": 1, "n_max": 20, "dim_hidden": 8, "num_heads": 2, "num_inds": 2}');
SELECT (SELECT count(*) FROM dac_models WHERE name = 'sec_drop') AS models,
       (SELECT count(*) FROM dac_training_runs WHERE model = 'sec_drop') AS runs,
       (SELECT count(*) FROM dac_checkpoints WHERE model = 'sec_drop') AS checkpoints;
SELECT dac_drop_model('sec_drop');
SELECT (SELECT count(*) FROM dac_models WHERE name = 'sec_drop') AS models,
       (SELECT count(*) FROM dac_training_runs WHERE model = 'sec_drop') AS runs,
       (SELECT count(*) FROM dac_checkpoints WHERE model = 'sec_drop') AS checkpoints;
SELECT pg_temp.err($$SELECT dac_drop_model('sec_drop')$$);
-- a model being trained is not dropped under its run
SELECT dac_import('sec_busy', dac_export('mlf_mog2d')) AS version;
SELECT dac_internal.dac_train_lock('sec_busy') AS locked;
SELECT pg_temp.err($$SELECT dac_drop_model('sec_busy')$$);
SELECT dac_internal.dac_train_end();
SELECT dac_drop_model('sec_busy');

-- ---------------------------------------------------------------- a model replaced under its caller
-- the rows' own function replaces the model the window function and the
-- aggregate use and looks it up again: they go on with the version they took
CREATE FUNCTION pg_temp.swap(x real[], i int, at int) RETURNS real[] LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF i = at THEN
    UPDATE dac_models SET weights = (SELECT weights FROM dac_models WHERE name = 'mlf_fast2d'),
           config = (SELECT config FROM dac_models WHERE name = 'mlf_fast2d') WHERE name = 'sec_swap';
    PERFORM dac_cluster_ids('{{0,0}}'::real[], 'sec_swap');
  END IF;
  RETURN x;
END $$;
SELECT dac_import('sec_swap', dac_export('mlf_mog2d')) AS version;
SELECT count(c) AS clustered FROM (SELECT dac_cluster(pg_temp.swap(ARRAY[g, g % 7]::real[], g, 100), 'sec_swap')
    OVER (ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) c FROM generate_series(1, 100) g) s;
SELECT version FROM dac_models WHERE name = 'sec_swap';
SELECT cardinality(dac_cluster_agg(pg_temp.swap(ARRAY[g, g % 7]::real[], g, 2), 'sec_swap')) AS clustered
FROM generate_series(1, 100) g;
SELECT dac_drop_model('sec_swap');
-- ids matched and labels compared whatever their values
SELECT dac_match_ids('{1,1,2,2,3,NULL}'::int[], ARRAY[2147483646, 2147483646, -2147483648, NULL, -2147483648, 5]) AS matched;
SELECT pg_temp.err($$SELECT dac_match_ids('{1,2}'::int[], ARRAY[2147483647, NULL])$$);
SELECT dac_match_ids('[0:2]={2,2,1}'::int[], '{7,7,NULL}'::int[]) AS lower_bound_one;
SELECT dac_ari(ARRAY[-2147483648, -2147483648, 2147483647, 0], ARRAY[5, 5, 9, 9]) AS ari,
       round(dac_nmi(ARRAY[-2147483648, -2147483648, 2147483647, 0], ARRAY[5, 5, 9, 9])::numeric, 6) AS nmi;
SET dac.memory_limit = '1MB';
SELECT pg_temp.err($$SELECT dac_match_ids(array_agg(g), array_agg(g)) FROM generate_series(1, 25000) g$$);
RESET dac.memory_limit;
