-- dac_small: the cheaper model for small groups (dac.small_group_models,
-- dac.small_group_size) — which model a call that names none uses, in every
-- form, the settings' errors, and the fallbacks (a missing, hidden or
-- narrower small model leaves the default in place).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
\i sql/err.psql
SELECT dac_version() IS NOT NULL AS loaded;   -- loads the module and its settings

SHOW dac.small_group_models;
SHOW dac.small_group_size;
SELECT name, config->>'dim_hidden' AS width, config->>'num_inds' AS inducing_points, shipped
FROM dac_models WHERE name = 'mlf_small2d';

-- two groups: 33 points (small) and 140 points (over the default size of 100),
-- on which mlf_small2d and mlf_mog2d give different ids
CREATE TEMP TABLE pts AS
SELECT 1 AS g, ord AS id, label, x FROM dac_generate('mog', 1, 41, 3, 717)
UNION ALL
SELECT 2, ord, label, x FROM dac_generate('mog', 1, 151, 4, 755);
SELECT g, count(*) FROM pts GROUP BY g ORDER BY g;
CREATE TEMP TABLE sets AS SELECT g, array_agg(x ORDER BY id) AS m FROM pts GROUP BY g;

-- which model: dac_clustering names it
SELECT g, array_length(m, 1) AS n, dac_clustering(m)->>'model' AS model FROM sets ORDER BY g;
SET dac.small_group_size = 200;
SELECT g, dac_clustering(m)->>'model' AS model_size_200 FROM sets ORDER BY g;
SET dac.small_group_size = 0;
SELECT g, dac_clustering(m)->>'model' AS model_size_0 FROM sets ORDER BY g;
RESET dac.small_group_size;
SET dac.small_group_models = '';
SELECT g, dac_clustering(m)->>'model' AS model_no_mapping FROM sets ORDER BY g;
RESET dac.small_group_models;
-- a named model is used as named, whatever the group's size
SELECT g, dac_clustering(m, 'mlf_mog2d')->>'model' AS named FROM sets ORDER BY g;
-- the shipped fast model as the default: small groups get the small model too
SET dac.default_model = 'mlf_fast2d';
SELECT g, dac_clustering(m)->>'model' AS fast_default FROM sets ORDER BY g;
RESET dac.default_model;
-- dac.default_model changed: the mapping has no entry for it
SET dac.default_model = 'af_mog2d';
SELECT g, dac_clustering(m)->>'model' AS other_default FROM sets ORDER BY g;
SET dac.small_group_models = 'af_mog2d=mlf64_mog2d, mlf_mog2d=mlf_small2d';
SELECT g, dac_clustering(m)->>'model' AS own_mapping FROM sets ORDER BY g;
RESET dac.default_model;
RESET dac.small_group_models;

-- every form gives the small group the small model's ids, the large group the default's
SELECT g,
       bool_and(w IS NOT DISTINCT FROM CASE g WHEN 1 THEN ws ELSE wl END) AS window_same,
       bool_and(ws IS NOT DISTINCT FROM wl) AS models_agree
FROM (SELECT g, id,
             dac_cluster(x) OVER (PARTITION BY g) AS w,
             dac_cluster(x, 'mlf_small2d') OVER (PARTITION BY g) AS ws,
             dac_cluster(x, 'mlf_mog2d') OVER (PARTITION BY g) AS wl
      FROM pts) s
GROUP BY g ORDER BY g;
SELECT g,
       dac_cluster_agg(x ORDER BY id) = CASE g WHEN 1 THEN dac_cluster_agg(x, 'mlf_small2d' ORDER BY id)
                                               ELSE dac_cluster_agg(x, 'mlf_mog2d' ORDER BY id) END AS agg_same
FROM pts GROUP BY g ORDER BY g;
SELECT g, dac_cluster_ids(m) = dac_cluster_ids(m, CASE g WHEN 1 THEN 'mlf_small2d' ELSE 'mlf_mog2d' END) AS ids_same,
       (SELECT array_agg(cluster ORDER BY ord) FROM dac_cluster_set(m)) = dac_cluster_ids(m) AS set_same
FROM sets ORDER BY g;
-- the window function counts the partition's rows, NULL vectors included:
-- 18 points and 90 NULLs are 108 rows, over the size
SELECT count(*) FILTER (WHERE c IS NOT NULL) AS clustered,
       bool_and(c IS NOT DISTINCT FROM s) AS same_as_default_model
FROM (SELECT dac_cluster(x) OVER () AS c, dac_cluster(x, 'mlf_mog2d') OVER () AS s
      FROM (SELECT x FROM pts WHERE g = 1 UNION ALL SELECT NULL::real[] FROM generate_series(1, 90)) v) t;
-- so does the aggregate
SELECT dac_cluster_agg(x ORDER BY o) = dac_cluster_agg(x, 'mlf_mog2d' ORDER BY o) AS agg_counts_null_rows,
       dac_cluster_agg(x ORDER BY o) FILTER (WHERE x IS NOT NULL) =
       dac_cluster_agg(x, 'mlf_small2d' ORDER BY o) FILTER (WHERE x IS NOT NULL) AS without_them_small
FROM (SELECT id AS o, x FROM pts WHERE g = 1 UNION ALL SELECT 1000 + i, NULL::real[] FROM generate_series(1, 90) i) v;

-- fallbacks: no such model; a model that does not take the width
SET dac.small_group_models = 'mlf_mog2d=no_such_model';
SELECT g, dac_clustering(m)->>'model' AS missing_small_model FROM sets ORDER BY g;
SET dac.small_group_models = 'mlf_embed=mlf_small2d';
SELECT dac_clustering(ARRAY[[0,0,0],[0.1,0,0],[5,5,5],[5,5.1,5]]::real[])->>'model' AS width_3;
RESET dac.small_group_models;
SET dac.small_group_models = 'mlf_embed=mlf_embed';
SELECT dac_clustering(ARRAY[[0,0,0],[0.1,0,0],[5,5,5],[5,5.1,5]]::real[])->>'model' AS mapped_to_itself;
RESET dac.small_group_models;

-- a model the role may not read is not used (row-level security), and no error says it exists
SELECT dac_import('small_private', dac_export('mlf64_mog2d')) AS version;
CREATE ROLE dac_small_other LOGIN;
GRANT dac_user TO dac_small_other;
GRANT SELECT ON sets TO dac_small_other;
SET ROLE dac_small_other;
SET dac.small_group_models = 'mlf_mog2d=small_private';
SELECT g, dac_clustering(m)->>'model' AS hidden_small_model FROM sets ORDER BY g;
RESET dac.small_group_models;
RESET ROLE;
SET dac.small_group_models = 'mlf_mog2d=small_private';
SELECT g, dac_clustering(m)->>'model' AS owner_sees_it FROM sets ORDER BY g;
RESET dac.small_group_models;
-- the model cache is per role: within one statement, a model a SECURITY DEFINER function read
-- as its owner is not handed to the caller, who may not read it
CREATE ROLE dac_small_owner;
GRANT dac_user TO dac_small_owner;
GRANT SELECT ON sets TO dac_small_owner;
SET ROLE dac_small_owner;
SELECT dac_import('owner_private', dac_export('mlf64_mog2d')) AS version;
RESET ROLE;
CREATE FUNCTION public.dac_small_definer() RETURNS text LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$ SELECT dac_clustering(m, 'owner_private')->>'model' FROM sets WHERE g = 1 $$;
ALTER FUNCTION public.dac_small_definer() OWNER TO dac_small_owner;
CREATE FUNCTION public.dac_small_direct() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    RETURN (SELECT dac_clustering(m, 'owner_private')->>'model' FROM sets WHERE g = 1);
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SET ROLE dac_small_other;
SELECT public.dac_small_definer() AS as_owner, public.dac_small_direct() AS as_caller;
RESET ROLE;
DROP FUNCTION public.dac_small_definer();
DROP FUNCTION public.dac_small_direct();
DELETE FROM dac_models WHERE name = 'owner_private';
REVOKE SELECT ON sets FROM dac_small_owner;
DROP ROLE dac_small_owner;

-- a small model found missing is looked up once per statement; one imported later is seen
SET dac.small_group_models = 'mlf_mog2d=later_small';
SELECT count(DISTINCT c) > 0 AS clustered, bool_and(c IS NOT DISTINCT FROM d) AS default_model_used
FROM (SELECT dac_cluster(x) OVER (PARTITION BY g) AS c, dac_cluster(x, 'mlf_mog2d') OVER (PARTITION BY g) AS d
      FROM pts) s;
SELECT dac_import('later_small', dac_export('mlf_small2d')) AS version;
SELECT g, dac_clustering(m)->>'model' AS imported_later FROM sets ORDER BY g;
DELETE FROM dac_models WHERE name = 'later_small';
RESET dac.small_group_models;

DELETE FROM dac_models WHERE name = 'small_private';
REVOKE SELECT ON sets FROM dac_small_other;
DROP ROLE dac_small_other;

-- the settings' errors
SELECT pg_temp.err($$SET dac.small_group_models = 'mlf_mog2d'$$);
SELECT pg_temp.err($$SET dac.small_group_models = 'mlf_mog2d='$$);
SELECT pg_temp.err($$SET dac.small_group_models = '=mlf_small2d'$$);
SELECT pg_temp.err($$SET dac.small_group_models = 'a=b=c'$$);
SELECT pg_temp.err($$SET dac.small_group_models = 'a=b,'$$);
SELECT pg_temp.err(format('SET dac.small_group_models = %L', 'a=' || repeat('b', 64)));
SELECT pg_temp.err($$SET dac.small_group_models = ' a = b ,c=d'$$);
SELECT pg_temp.err($$SET dac.small_group_size = -1$$);
SHOW dac.small_group_models;
