-- A model's own settings (pgTAP): each shipped model carries what its
-- configuration says; a setting given a value wins over the model's and
-- RESET gives it back; a file's settings read back as written; dac_tune
-- leaves the session's settings as they were and its model clusters as its
-- start does at the chosen resolution.
SET client_min_messages = warning;
SELECT plan(8);

-- 1. every shipped model: the settings dac_model_settings calls the model's are its configuration's
SELECT is((SELECT count(*) FROM dac_models m, LATERAL dac_model_settings(m.name) s
           WHERE m.shipped AND ((s.source = 'model') IS DISTINCT FROM (coalesce(m.config->'settings', '{}') ? s.setting)
                                OR (s.source = 'model' AND s.value <> (m.config->'settings'->>s.setting)))),
          0::bigint, 'each shipped model: the settings it carries are those its configuration holds');

-- 2. for every setting and every model: SET wins (source setting, its value), RESET gives the model's back
CREATE FUNCTION pg_temp.flip_all() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    m text;
    s record;
    bad bigint := 0;
    v text;
BEGIN
    FOR m IN SELECT name FROM dac_models WHERE shipped LOOP
        FOR s IN SELECT * FROM dac_model_settings(m) LOOP
            -- a value in range other than the current one
            v := CASE WHEN s.value IN ('true', 'false') THEN (NOT s.value::boolean)::text
                      WHEN s.value IN ('own', 'best', 'first') THEN CASE s.value WHEN 'own' THEN 'best' ELSE 'own' END
                      WHEN s.value ~ '\.' THEN (s.value::float8 / 2)::text
                      ELSE (s.value::int + 1)::text END;
            PERFORM set_config('dac.' || s.setting, v, false);
            bad := bad + (SELECT count(*) FROM dac_model_settings(m) t
                          WHERE t.setting = s.setting AND (t.source <> 'setting' OR t.value <> v));
            EXECUTE format('RESET %I', 'dac.' || s.setting);
            bad := bad + (SELECT count(*) FROM dac_model_settings(m) t
                          WHERE t.setting = s.setting AND (t.source <> s.source OR t.value <> s.value));
        END LOOP;
    END LOOP;
    RETURN bad;
END $$;
SELECT is(pg_temp.flip_all(), 0::bigint,
          'every setting of every shipped model: a value set wins, RESET gives the model''s (or the default) back');

-- 3. a file's settings read back as written, whatever subset
SELECT is((SELECT count(*) FROM (VALUES ('{"max_passes": 7}'), ('{"leftover": "best", "reassign": true}'),
                                        ('{"graph_resolution": 0.125, "graph_merge": 0, "k_search": 0}'), ('{}')) AS t(j)
           WHERE coalesce(dac_weights_info(dac_weights_with_settings(dac_export('mlf_embed'), j::jsonb))->'config'->'settings',
                          '{}') <> j::jsonb),
          0::bigint, 'settings written into a file read back as written');
SELECT is((SELECT md5(dac_weights_with_settings(dac_weights_with_settings(dac_export('mlf_mog2d'), '{"rotations": 3}'),
                                                '{"absorb_size": 4}'))),
          (SELECT md5(dac_export('mlf_mog2d'))),
          'settings replaced, not added to: the shipped file''s bytes come back');

-- 4. dac_tune: the session as it was; the tuned model clusters as its start at the chosen resolution and scales
CREATE TEMP TABLE tune AS SELECT set_id AS grp, label, x FROM dac_generate('embed', 10, 120, 4, 11, 12);
CREATE TEMP TABLE before AS SELECT name, setting, source FROM pg_settings WHERE name LIKE 'dac.%';
CREATE TEMP TABLE tried AS
SELECT * FROM dac_tune('tap_tuned', 'tune', '{"vector_column": "x", "label_column": "label", "group_column": "grp"}');
SELECT is((SELECT count(*) FROM pg_settings p JOIN before b USING (name)
           WHERE p.setting IS DISTINCT FROM b.setting OR p.source IS DISTINCT FROM b.source),
          0::bigint, 'dac_tune leaves every dac.* setting and its source as they were');
-- the check's record: the best pair where its left-out groups lead the start's by more than a
-- standard error, the start's (0.05, 0.04) otherwise
SELECT is((SELECT CASE WHEN (metrics->'check'->>'kept') = 'tuned'
                       THEN (SELECT ari FROM tried WHERE chosen) = (SELECT max(ari) FROM tried)
                            AND (metrics->'check'->>'lead')::float8 > (metrics->'check'->>'se')::float8
                       ELSE (SELECT graph_resolution = 0.05 AND graph_merge = 0.04 FROM tried WHERE chosen)
                            AND NOT ((metrics->'check'->>'lead')::float8 > 0
                                     AND (metrics->'check'->>'lead')::float8 > (metrics->'check'->>'se')::float8) END
           FROM dac_models WHERE name = 'tap_tuned'), true,
          'the pair chosen is the best where the check holds, else the start''s');
SELECT is((SELECT count(*) FROM tried WHERE graph_merge = 0), 5::bigint,
          'each of the five resolutions is tried at one scale as well as at two');
SELECT set_config('dac.graph_resolution', (SELECT graph_resolution::text FROM tried WHERE chosen), false);
SELECT set_config('dac.graph_merge', (SELECT graph_merge::text FROM tried WHERE chosen), false);
SELECT is((SELECT count(*) FROM
             (SELECT grp, x, dac_cluster(x, 'tap_tuned') OVER (PARTITION BY grp) AS a,
                     dac_cluster(x, 'mlf_embed') OVER (PARTITION BY grp) AS b FROM tune) s
           WHERE a <> b), 0::bigint,
          'the tuned model clusters every group as mlf_embed at the chosen resolution and scales');
RESET dac.graph_resolution;
RESET dac.graph_merge;
SELECT dac_drop_model('tap_tuned');

SELECT * FROM finish();
