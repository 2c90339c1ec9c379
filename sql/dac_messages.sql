-- Calls a new user gets wrong, and the messages that name the fix; vectors
-- of bigint[] cluster as integer[] ones do.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
\i sql/hint.psql
CREATE TABLE msg_pts AS SELECT set_id, ord, x FROM dac_generate('mog', 2, 60, 3, 4);

-- a vector as text or jsonb, or an untyped literal: cast it
SELECT pg_temp.hint($$SELECT dac_cluster(x::text) OVER () FROM msg_pts$$);
SELECT pg_temp.hint($$SELECT dac_cluster(to_jsonb(x)) OVER () FROM msg_pts$$);
SELECT pg_temp.hint($$SELECT dac_cluster('{1,2}') OVER ()$$);
-- and the casts the hints name work
SELECT count(*) = count(c) AS text_cast_clusters
FROM (SELECT dac_cluster(x::text::real[]) OVER (PARTITION BY set_id) AS c FROM msg_pts) s;
SELECT count(*) = count(c) AS jsonb_cast_clusters
FROM (SELECT dac_cluster(translate(to_jsonb(x)::text, '[]', '{}')::real[]) OVER (PARTITION BY set_id) AS c FROM msg_pts) s;
-- a count in the model's place: give it by name
SELECT pg_temp.hint($$SELECT dac_cluster(x, 3) OVER () FROM msg_pts$$);
SELECT pg_temp.hint($$SELECT dac_cluster(x::float8[], 3) OVER () FROM msg_pts$$);
SELECT count(DISTINCT c) AS k_by_name FROM (SELECT dac_cluster(x, k => 3) OVER () AS c FROM msg_pts WHERE set_id = 1) s;
-- a NULL model still means the default model
SELECT count(*) = count(c) AS null_model_clusters FROM (SELECT dac_cluster(x, NULL) OVER () AS c FROM msg_pts) s;

-- bigint[] vectors: the same ids as the same values in integer[], in every form
CREATE TABLE msg_int AS SELECT set_id, ord, (SELECT array_agg(round(v * 100)::int) FROM unnest(x) v) AS xi FROM msg_pts;
SELECT bool_and(a = b) AS window_same
FROM (SELECT dac_cluster(xi) OVER (PARTITION BY set_id ORDER BY ord) AS a,
             dac_cluster(xi::bigint[]) OVER (PARTITION BY set_id ORDER BY ord) AS b FROM msg_int) s;
SELECT bool_and(a = b) AS aggregate_same
FROM (SELECT dac_cluster_agg(xi ORDER BY ord) AS a, dac_cluster_agg(xi::bigint[] ORDER BY ord) AS b
      FROM msg_int GROUP BY set_id) s;
SELECT dac_cluster_ids(array_agg(xi ORDER BY ord)) = dac_cluster_ids(array_agg(xi::bigint[] ORDER BY ord)) AS ids_same
FROM msg_int WHERE set_id = 1;
SELECT dac_assign('{100,100}'::bigint[], dac_clustering(array_agg(xi::bigint[] ORDER BY ord))) >= 1 AS assigns
FROM msg_int WHERE set_id = 1;

-- points of the type point: the same ids as the same coordinates in real[]
SELECT bool_and(a = b) AS point_window_same
FROM (SELECT dac_cluster(x) OVER (PARTITION BY set_id ORDER BY ord) AS a,
             dac_cluster(point(x[1], x[2])) OVER (PARTITION BY set_id ORDER BY ord) AS b FROM msg_pts) s;
SELECT bool_and(a = b) AS point_aggregate_same
FROM (SELECT dac_cluster_agg(x ORDER BY ord) AS a, dac_cluster_agg(point(x[1], x[2]) ORDER BY ord) AS b
      FROM msg_pts GROUP BY set_id) s;
SELECT count(DISTINCT c) AS point_k FROM (SELECT dac_cluster(point(x[1], x[2]), k => 2) OVER () AS c FROM msg_pts WHERE set_id = 1) s;
SELECT pg_temp.hint($$SELECT dac_cluster(point(x[1], x[2]), 'mlf_fmnist') OVER () FROM msg_pts$$);
SELECT pg_temp.hint($$SELECT dac_cluster(point('NaN', 1)) OVER ()$$);
SELECT pg_temp.hint($$SELECT dac_cluster(point(1, 1), 2) OVER ()$$);

-- a vector a model cannot take, and labelings that do not line up: each error names the fix
SELECT pg_temp.hint($$SELECT dac_cluster(ARRAY[1, NULL]::real[]) OVER ()$$);
SELECT pg_temp.hint($$SELECT dac_cluster('{}'::real[]) OVER ()$$);
SELECT pg_temp.hint($$SELECT dac_cluster('{{1,2},{3,4}}'::real[]) OVER ()$$);
SELECT pg_temp.hint($$SELECT dac_cluster(ARRAY[1e300, 1]::float8[]) OVER ()$$);
SELECT pg_temp.hint($$SELECT dac_cluster(CASE WHEN i = 2 THEN ARRAY[1, 2, 3] ELSE ARRAY[i, i] END::real[]) OVER ()
                      FROM generate_series(1, 3) i$$);
SELECT pg_temp.hint($$SELECT * FROM dac_filter(ARRAY[[1, 2], [3, 4]]::real[], anchor => 1)$$);
SELECT pg_temp.hint($$SELECT dac_ari(ARRAY[1, 1, 2], ARRAY[1, 2])$$);
SELECT pg_temp.hint($$SELECT dac_ari(ARRAY[1, NULL], ARRAY[1, 2])$$);
SELECT pg_temp.hint($$SELECT dac_match_ids(ARRAY[0, 1], ARRAY[1, 2])$$);
SET dac.default_model = '';
SELECT pg_temp.hint($$SELECT dac_cluster(ARRAY[1, 2]::real[]) OVER ()$$);
RESET dac.default_model;
-- the PL/pgSQL functions' mistakes too: training options of the wrong kind, and
-- every RAISE of the extension's own functions gives a hint unless its
-- message says what the value must be (no rows)
SELECT pg_temp.hint($$SELECT dac_train_options('mog', '{"steps": "many"}')$$);
SELECT pg_temp.hint($$SELECT dac_train_options('mog', '{"image_latent": 16}')$$);
SELECT p.proname, r[1] AS message_without_hint
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
     AND d.refclassid = 'pg_extension'::regclass AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dac'),
     regexp_matches(p.prosrc, $re$RAISE EXCEPTION '((?:[^']|'')*)'((?:[^;']|'(?:[^']|'')*')*);$re$, 'g') r
WHERE r[2] !~ 'HINT' AND r[1] !~ 'must be|must not be NULL'
ORDER BY 1, 2;

-- over dac.memory_limit: a role that may raise it is told to; one that may not is told whom to ask
CREATE ROLE msg_plain;
CREATE ROLE msg_granted;
GRANT dac_user TO msg_plain, msg_granted;
GRANT SELECT ON msg_pts TO msg_plain, msg_granted;
GRANT SET ON PARAMETER dac.memory_limit TO msg_granted;
SET dac.memory_limit = '1MB';
SET ROLE msg_plain;
SELECT pg_temp.hint($$SELECT dac_cluster(x, 'mlf_embed') OVER () FROM msg_pts$$);
RESET ROLE;
SET ROLE msg_granted;
SELECT pg_temp.hint($$SELECT dac_cluster(x, 'mlf_embed') OVER () FROM msg_pts$$);
RESET ROLE;
RESET dac.memory_limit;
-- sharing and handing a model over: each refusal says why and what works,
-- and its CONTEXT quotes no query of dac's
CREATE FUNCTION pg_temp.context_quotes_query(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    c text;
BEGIN
    EXECUTE q;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS c = PG_EXCEPTION_CONTEXT;
    -- one quoted statement is this function's own EXECUTE of q; any other is dac's
    RETURN pg_catalog.array_length(pg_catalog.string_to_array(c, 'SQL statement "'), 1) - 1 > 1;
END $$;
CREATE ROLE msg_other;
GRANT dac_user TO msg_other;
SET ROLE msg_plain;
SELECT dac_import('msg_m', dac_export('mlf_mog2d')) > 0 AS imported;
SELECT pg_temp.hint($$SELECT dac_share_model('msg_m', 'msg_other')$$);
SET client_min_messages = notice;
SELECT pg_temp.hint($$SELECT dac_share_model('mlf_mog2d', 'msg_other')$$);
SET client_min_messages = warning;
SELECT pg_temp.hint($$SELECT dac_share_model('msg_none', 'msg_other')$$);
SELECT pg_temp.hint($$UPDATE dac_models SET owner = 'msg_other' WHERE name = 'msg_m'$$);
SELECT pg_temp.hint($$UPDATE dac_models SET owner = 'public' WHERE name = 'msg_m'$$);
SELECT pg_temp.hint($$INSERT INTO dac_models (name, config, weights, owner)
                      SELECT 'msg_forged', config, weights, 'msg_other' FROM dac_models WHERE name = 'mlf_mog2d'$$);
RESET ROLE;
SET ROLE msg_other;
SELECT pg_temp.hint($$SELECT dac_share_model('msg_m', 'msg_granted')$$);
SELECT pg_temp.hint($$SELECT dac_unshare_model('msg_m', 'msg_other')$$);
SELECT pg_temp.context_quotes_query($$SELECT dac_share_model('msg_m', 'msg_granted')$$) AS share_context_quotes,
       pg_temp.context_quotes_query($$SELECT dac_unshare_model('msg_none', 'msg_other')$$) AS unshare_context_quotes;
RESET ROLE;
-- a superuser is not checked (a restore keeps every row): it hands the model over
UPDATE dac_models SET owner = 'msg_other' WHERE name = 'msg_m';
SELECT owner FROM dac_models WHERE name = 'msg_m';
SELECT dac_drop_model('msg_m');
-- nor a BYPASSRLS role, which row-level security does not check either
CREATE ROLE msg_bypass BYPASSRLS;
GRANT dac_user TO msg_bypass;
SET ROLE msg_bypass;
SELECT dac_import('msg_b', dac_export('mlf_mog2d')) > 0 AS imported;
SELECT pg_temp.hint($$UPDATE dac_models SET owner = 'msg_other' WHERE name = 'msg_b'$$);
RESET ROLE;
SELECT owner FROM dac_models WHERE name = 'msg_b';
SELECT dac_drop_model('msg_b');
DROP ROLE msg_bypass;
DROP ROLE msg_other;
REVOKE SET ON PARAMETER dac.memory_limit FROM msg_granted;
REVOKE SELECT ON msg_pts FROM msg_plain, msg_granted;
DROP ROLE msg_plain;
DROP ROLE msg_granted;
