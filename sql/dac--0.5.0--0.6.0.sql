/*
 * dac 0.5.0 -> 0.6.0
 *
 * - the shipped model mlf_small2d: the 2-D default for small groups (64
 *   wide, 8 inducing points), which dac.small_group_models (a setting of
 *   the module, 'mlf_mog2d=mlf_small2d, mlf_fast2d=mlf_small2d' by default)
 *   puts in place of the default model for groups of at most
 *   dac.small_group_size points when a call names no model;
 * - the shipped model mlf_fast2d: the same network fine-tuned on large
 *   sets, about 4x cheaper per set than mlf_mog2d at the same ARI.
 *
 * No table or function changes: models, runs, log rows and checkpoints are
 * untouched; a model of a user's already called mlf_small2d or mlf_fast2d
 * is renamed <name>_<owner> with a WARNING (until 0.8.0 it stopped the
 * update).
 */

\echo Use "ALTER EXTENSION dac UPDATE TO '0.6.0'" to load this file. \quit

-- As in the 0.2.0 update: nothing here may resolve to another role's object.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

DO $$
DECLARE
    taken record;
    newname text;
    i integer;
BEGIN
    -- A model of a user's that has a name this version ships is renamed, not
    -- an obstacle: a role that may create models cannot block the update.
    FOR taken IN SELECT m.name, m.owner FROM @extschema@.dac_models m
                 WHERE m.name IN ('mlf_small2d', 'mlf_fast2d') AND NOT m.shipped ORDER BY m.name LOOP
        newname := pg_catalog.left(taken.name || '_' || taken.owner, 60);
        i := 1;
        WHILE EXISTS (SELECT 1 FROM @extschema@.dac_models m WHERE m.name = newname) LOOP
            i := i + 1;
            newname := pg_catalog.left(taken.name || '_' || taken.owner, 56) || '_' || i;
        END LOOP;
        UPDATE @extschema@.dac_models m SET name = newname WHERE m.name = taken.name;
        UPDATE @extschema@.dac_training_runs r SET model = newname WHERE r.model = taken.name;
        RAISE WARNING 'model "%" of role "%" is renamed "%": version 0.6.0 ships a model named "%"',
            taken.name, taken.owner, newname, taken.name;
    END LOOP;
END
$$;
ALTER TABLE @extschema@.dac_models DISABLE TRIGGER dac_models_guard;
INSERT INTO @extschema@.dac_models (name, config, weights, shipped, metrics)
SELECT 'mlf_small2d', @extschema@.dac_weights_info(w) -> 'config', w, true,
       '{"trained_on": "mog", "role": "small groups (dac.small_group_models)", "see": "weights/README.md"}'
FROM (SELECT dac_internal.dac_shipped_weights('mlf_small2d.safetensors') AS w) f;
INSERT INTO @extschema@.dac_models (name, config, weights, shipped, metrics)
SELECT 'mlf_fast2d', @extschema@.dac_weights_info(w) -> 'config', w, true,
       '{"trained_on": "mog", "role": "about 4x cheaper than mlf_mog2d per set", "see": "weights/README.md"}'
FROM (SELECT dac_internal.dac_shipped_weights('mlf_fast2d.safetensors') AS w) f;
ALTER TABLE @extschema@.dac_models ENABLE TRIGGER dac_models_guard;
