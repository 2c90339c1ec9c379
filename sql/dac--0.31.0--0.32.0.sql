-- dac 0.31.0 -> 0.32.0: a model carries its own settings.
--
-- * A model's configuration may hold "settings": the clustering settings
--   that model uses when the dac.* setting of the same name is left at its
--   default (a setting given a value, by SET, ALTER ROLE or DATABASE, the
--   server's files or a function's SET clause, still wins).  k, max_k and
--   noise stay with each call.
-- * dac_model_settings(model): each setting a model can carry, the value a
--   clustering with it uses now, and where that comes from.
-- * dac_weights_with_settings(weights, settings): the same weights file
--   with other settings; with dac_export and dac_import a user sets them on
--   a model of their own.
-- * The shipped models now carry the settings of the stages that apply to
--   them, at the values the dac.* defaults had: every clustering is
--   0.31.0's.  Users' models, runs and checkpoints are untouched, carry no
--   settings and cluster as before; a model trained from a shipped one
--   carries its settings.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.32.0'" to load this file. \quit

CREATE FUNCTION @extschema@.dac_model_settings(model text,
    OUT setting text, OUT value text, OUT source text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dac_model_settings_srf'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 16;
COMMENT ON FUNCTION @extschema@.dac_model_settings(text) IS
'each clustering setting a model can carry, the value a clustering with the model uses now, and its source: setting (a dac.* setting given a value), model (the model''s own) or default';

CREATE FUNCTION @extschema@.dac_weights_with_settings(weights bytea, settings jsonb)
RETURNS bytea
AS 'MODULE_PATHNAME', 'dac_weights_with_settings_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dac_weights_with_settings(bytea, jsonb) IS
'the same weights file, its configuration carrying these clustering settings in place of those it had (''{}'': none)';

-- the shipped models' own settings: the stages that apply to each, at 0.31.0's defaults
ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
UPDATE @extschema@.dac_models m
SET weights = s.w,
    config = @extschema@.dac_weights_info(s.w) OPERATOR(pg_catalog.->) 'config',
    version = m.version OPERATOR(pg_catalog.+) 1,
    updated_at = pg_catalog.now()
FROM (SELECT d.name, @extschema@.dac_weights_with_settings(d.weights, v.settings::pg_catalog.jsonb) AS w
      FROM @extschema@.dac_models d
      JOIN (VALUES
          ('mlf_mog2d', '{"absorb_size": 4}'),
          ('af_mog2d', '{"absorb_size": 4}'),
          ('mlf64_mog2d', '{"absorb_size": 4}'),
          ('mlf_small2d', '{"absorb_size": 4}'),
          ('mlf_fast2d', '{"absorb_size": 4}'),
          ('mlf_warped2d', '{"absorb_size": 4, "pair_merge": 0.9, "pair_split": true}'),
          ('mlf_embed', '{"kmeans_steps": 10, "k_search": 2, "graph_neighbors": 5, "graph_resolution": 0.05, "graph_merge": 0.04, "sample_size": 1000}')
      ) AS v(name, settings) ON v.name OPERATOR(pg_catalog.=) d.name
      WHERE d.shipped) AS s
WHERE m.name OPERATOR(pg_catalog.=) s.name AND m.shipped;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
