-- dac_large: the cheaper model for large groups (dac.large_group_models,
-- dac.large_group_size) — which model a call that names none uses, in every
-- form, the settings' errors, and the fallbacks (a missing, hidden or
-- narrower large model leaves the default in place).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
\i sql/err.psql
SELECT dac_version() IS NOT NULL AS loaded;   -- loads the module and its settings

SHOW dac.large_group_models;
SHOW dac.large_group_size;
SELECT name, config->>'dim_hidden' AS width, config->>'num_inds' AS inducing_points, shipped
FROM dac_models WHERE name = 'mlf_fast2d';

-- two groups: 1,185 points (large) and 758 points (under the default size of
-- 1,000), on which mlf_fast2d and mlf_mog2d give different ids
CREATE TEMP TABLE pts AS
SELECT 1 AS g, ord AS id, label, x FROM dac_generate('mog', 1, 3000, 12, 922)
UNION ALL
SELECT 2, ord, label, x FROM dac_generate('mog', 1, 1400, 8, 933);
SELECT g, count(*) FROM pts GROUP BY g ORDER BY g;
CREATE TEMP TABLE sets AS SELECT g, array_agg(x ORDER BY id) AS m FROM pts GROUP BY g;

-- which model: dac_clustering names it
SELECT g, array_length(m, 1) AS n, dac_clustering(m)->>'model' AS model FROM sets ORDER BY g;
SET dac.large_group_size = 700;
SELECT g, dac_clustering(m)->>'model' AS model_size_700 FROM sets ORDER BY g;
SET dac.large_group_size = 0;
SELECT g, dac_clustering(m)->>'model' AS model_size_0 FROM sets ORDER BY g;
RESET dac.large_group_size;
SET dac.large_group_models = '';
SELECT g, dac_clustering(m)->>'model' AS model_no_mapping FROM sets ORDER BY g;
RESET dac.large_group_models;
-- a named model is used as named, whatever the group's size
SELECT g, dac_clustering(m, 'mlf_mog2d')->>'model' AS named FROM sets ORDER BY g;
-- dac.default_model changed: the mapping has no entry for it
SET dac.default_model = 'mlf64_mog2d';
SELECT g, dac_clustering(m)->>'model' AS other_default FROM sets ORDER BY g;
SET dac.large_group_models = 'mlf64_mog2d=mlf_fast2d';
SELECT g, dac_clustering(m)->>'model' AS own_mapping FROM sets ORDER BY g;
RESET dac.default_model;
RESET dac.large_group_models;
-- where a group is both small and large by the settings, the small model wins
SET dac.small_group_size = 5000;
SELECT g, dac_clustering(m)->>'model' AS small_first FROM sets ORDER BY g;
RESET dac.small_group_size;

-- every form gives the large group the large model's ids, the other group the default's
SELECT g,
       bool_and(w IS NOT DISTINCT FROM CASE g WHEN 1 THEN wf ELSE wd END) AS window_same,
       bool_and(wf IS NOT DISTINCT FROM wd) AS models_agree
FROM (SELECT g, id,
             dac_cluster(x) OVER (PARTITION BY g) AS w,
             dac_cluster(x, 'mlf_fast2d') OVER (PARTITION BY g) AS wf,
             dac_cluster(x, 'mlf_mog2d') OVER (PARTITION BY g) AS wd
      FROM pts) s
GROUP BY g ORDER BY g;
SELECT g,
       dac_cluster_agg(x ORDER BY id) = CASE g WHEN 1 THEN dac_cluster_agg(x, 'mlf_fast2d' ORDER BY id)
                                               ELSE dac_cluster_agg(x, 'mlf_mog2d' ORDER BY id) END AS agg_same
FROM pts GROUP BY g ORDER BY g;
SELECT g, dac_cluster_ids(m) = dac_cluster_ids(m, CASE g WHEN 1 THEN 'mlf_fast2d' ELSE 'mlf_mog2d' END) AS ids_same,
       (SELECT array_agg(cluster ORDER BY ord) FROM dac_cluster_set(m)) = dac_cluster_ids(m) AS set_same
FROM sets ORDER BY g;
-- the window function counts the partition's rows, NULL vectors included:
-- 758 points and 300 NULLs are 1,058 rows, over the size
SELECT count(*) FILTER (WHERE c IS NOT NULL) AS clustered,
       bool_and(c IS NOT DISTINCT FROM f) AS same_as_large_model
FROM (SELECT dac_cluster(x) OVER () AS c, dac_cluster(x, 'mlf_fast2d') OVER () AS f
      FROM (SELECT x FROM pts WHERE g = 2 UNION ALL SELECT NULL::real[] FROM generate_series(1, 300)) v) t;

-- fallbacks: no such model; a model that does not take the width; a model the
-- role may not read (row-level security), with no error that says it exists
SET dac.large_group_models = 'mlf_mog2d=no_such_model';
SELECT g, dac_clustering(m)->>'model' AS missing_large_model FROM sets ORDER BY g;
-- 3-D vectors: the default is dac.default_embedding_model, and mlf_fast2d takes 2-D only
CREATE TEMP TABLE wide AS
SELECT array_agg(ARRAY[x[1], x[2], x[1] - x[2]] ORDER BY id) AS m FROM pts WHERE g = 1;
SET dac.large_group_models = 'mlf_embed=mlf_fast2d';
SELECT dac_clustering(m)->>'model' AS width_3 FROM wide;
RESET dac.large_group_models;
SELECT dac_import('large_private', dac_export('mlf_fast2d')) AS version;
CREATE ROLE dac_large_other LOGIN;
GRANT dac_user TO dac_large_other;
GRANT SELECT ON sets TO dac_large_other;
SET ROLE dac_large_other;
SET dac.large_group_models = 'mlf_mog2d=large_private';
SELECT g, dac_clustering(m)->>'model' AS hidden_large_model FROM sets ORDER BY g;
RESET dac.large_group_models;
RESET ROLE;
SET dac.large_group_models = 'mlf_mog2d=large_private';
SELECT g, dac_clustering(m)->>'model' AS owner_sees_it FROM sets ORDER BY g;
RESET dac.large_group_models;
DELETE FROM dac_models WHERE name = 'large_private';
REVOKE SELECT ON sets FROM dac_large_other;
DROP ROLE dac_large_other;

-- the settings' errors
SELECT pg_temp.err($$SET dac.large_group_models = 'mlf_mog2d'$$);
SELECT pg_temp.err($$SET dac.large_group_models = 'mlf_mog2d='$$);
SELECT pg_temp.err($$SET dac.large_group_models = 'a=b=c'$$);
SELECT pg_temp.err(format('SET dac.large_group_models = %L', repeat('a', 64) || '=b'));
SELECT pg_temp.err($$SET dac.large_group_models = ' a = b ,c=d'$$);
SELECT pg_temp.err($$SET dac.large_group_size = -1$$);
SHOW dac.large_group_models;
