-- dac 0.10.0 -> 0.11.0
\echo Use "ALTER EXTENSION dac UPDATE TO '0.11.0'" to load this file. \quit

-- In the module: a kept clustering carries a temperature and each cluster a
-- stability (dac_clustering measures them; it clusters four rows in five
-- again for the stability), and dac_assign_prob is calibrated with them;
-- clusterings kept before this update have neither and keep their old
-- probabilities.  The setting dac.progress (NOTICEs from long clusterings).
-- dac_train_options reads its defaults and ranges from the core's option
-- table (dac_internal.dac_train_option_table).
-- User models, runs and checkpoints are not touched.

-- ------------------------------------------------------------------ numeric[] and integer[]
-- Vectors may be numeric[] (what ARRAY[0.5, 1.5] is) or integer[] (pixel
-- values, counts), converted to real as the real[] and double precision[]
-- forms are.  Each form gets the same signature with numeric[] and with
-- integer[]: without them PostgreSQL found the call ambiguous between
-- real[] and double precision[] ("function ... is not unique").  The C
-- entry points are the same ones; the comments are copied from the
-- double precision[] forms below.
CREATE FUNCTION @extschema@.dac_cluster(x numeric[], model text DEFAULT NULL, previous integer DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;
CREATE FUNCTION @extschema@.dac_cluster(x integer[], model text DEFAULT NULL, previous integer DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;

CREATE FUNCTION @extschema@.dac_cluster_set(points numeric[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000 COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_set(points integer[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT ord integer, OUT cluster integer, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_set_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000 COST 100000;

CREATE FUNCTION @extschema@.dac_cluster_summary(points numeric[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10 COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_summary(points integer[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL,
    OUT cluster integer, OUT size integer, OUT mean double precision[], OUT stddev double precision[],
    OUT representative integer, OUT theta double precision[])
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_cluster_summary_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10 COST 100000;

CREATE FUNCTION @extschema@.dac_cluster_ids(points numeric[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer[] AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_cluster_ids(points integer[], model text DEFAULT NULL,
    k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer[] AS 'MODULE_PATHNAME', 'dac_cluster_ids'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;

CREATE FUNCTION @extschema@.dac_clustering(points numeric[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS jsonb AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;
CREATE FUNCTION @extschema@.dac_clustering(points integer[], model text DEFAULT NULL,
    previous integer[] DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS jsonb AS 'MODULE_PATHNAME', 'dac_clustering_sql'
LANGUAGE C STABLE PARALLEL SAFE COST 100000;

CREATE FUNCTION @extschema@.dac_assign(x numeric[], clustering jsonb)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_assign_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_assign(x integer[], clustering jsonb)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_assign_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_assign_prob(x numeric[], clustering jsonb)
RETURNS double precision AS 'MODULE_PATHNAME', 'dac_assign_prob_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_assign_prob(x integer[], clustering jsonb)
RETURNS double precision AS 'MODULE_PATHNAME', 'dac_assign_prob_sql'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.dac_filter(points numeric[], model text DEFAULT NULL, anchor integer DEFAULT NULL,
    OUT ord integer, OUT member boolean, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_filter_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
CREATE FUNCTION @extschema@.dac_filter(points integer[], model text DEFAULT NULL, anchor integer DEFAULT NULL,
    OUT ord integer, OUT member boolean, OUT prob real)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_filter_srf'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;

CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, numeric[])
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, integer[])
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, numeric[], text)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, integer[], text)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, numeric[], text, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, integer[], text, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, numeric[], text, integer, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.dac_cluster_agg_trans(internal, integer[], text, integer, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'dac_cluster_agg_trans' LANGUAGE C STABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.dac_cluster_agg(numeric[]) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(integer[]) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(numeric[], text) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(integer[], text) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(numeric[], text, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(integer[], text, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(numeric[], text, integer, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);
CREATE AGGREGATE @extschema@.dac_cluster_agg(integer[], text, integer, integer) (
    SFUNC = @extschema@.dac_cluster_agg_trans, STYPE = internal, FINALFUNC = @extschema@.dac_cluster_agg_final);

COMMENT ON FUNCTION @extschema@.dac_assign_prob(real[], jsonb) IS
'the probability of the cluster dac_assign picks: the chance that clustering the row with the set would have put it there (the clusters'' Gaussian posterior at the clustering''s temperature, times the cluster''s stability)';
COMMENT ON FUNCTION @extschema@.dac_assign_prob(double precision[], jsonb) IS
'the probability of the cluster dac_assign picks: the chance that clustering the row with the set would have put it there (the clusters'' Gaussian posterior at the clustering''s temperature, times the cluster''s stability)';

-- Each new form's comment is its double precision[] twin's.
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT p.oid::regprocedure AS sig, d.oid::regprocedure AS twin, p.prokind
             FROM pg_catalog.pg_proc p
             JOIN pg_catalog.pg_proc d
               ON d.proname = p.proname AND d.pronamespace = p.pronamespace
              AND d.pronargs = p.pronargs AND d.oid <> p.oid
              AND pg_catalog.array_to_string(d.proargtypes::pg_catalog.oid[], ',')
                  = pg_catalog.regexp_replace(pg_catalog.array_to_string(p.proargtypes::pg_catalog.oid[], ','),
                                              '^[0-9]+', 'double precision[]'::pg_catalog.regtype::pg_catalog.oid::text)
             WHERE p.pronamespace = '@extschema@'::regnamespace
               AND p.proname <> 'dac_cluster_agg_trans'
               AND p.proargtypes[0] IN ('numeric[]'::pg_catalog.regtype, 'integer[]'::pg_catalog.regtype)
    LOOP
        EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L',
                                  CASE WHEN f.prokind = 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
                                  f.sig, pg_catalog.obj_description(f.twin, 'pg_proc'));
    END LOOP;
END $$;

-- ------------------------------------------------------------------ the option table
-- The training options' defaults and ranges are the core's (src/core/options.h),
-- read here as they are by the trainer and dac-cli: a later change to them
-- needs no update script.  dac_train_options reads them; what depends on the
-- source (the architecture's defaults, which options apply) stays here.
CREATE FUNCTION dac_internal.dac_train_option_table(OUT name text, OUT "integer" boolean,
    OUT default_value numeric, OUT min numeric, OUT max numeric, OUT min_open boolean, OUT cli_flag text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dac_train_option_table'
LANGUAGE C STABLE PARALLEL SAFE ROWS 32;
COMMENT ON FUNCTION dac_internal.dac_train_option_table() IS
'the training options as the core defines them: name, whole number or not, default (NULL: depends on the source), least and greatest value (min_open: the least is excluded), and dac-cli''s flag for it';
REVOKE ALL ON FUNCTION dac_internal.dac_train_option_table() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dac_internal.dac_train_option_table() TO dac_user;

CREATE OR REPLACE FUNCTION @extschema@.dac_train_options(source text, options jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    generated boolean := source IN ('mog', 'warped_mog', 'embed');
    paper boolean := source IN ('mog', 'warped_mog');
    o jsonb;
    k text;
    ints text[] := ARRAY['dim', 'dim_hidden', 'num_heads', 'num_inds', 'num_blocks', 'steps',
                         'batch', 'n_max', 'k_max', 'mix_n_max', 'mix_k_max', 'mix_ratio', 'seed', 'checkpoint_every',
                         'log_every', 'run_steps', 'maf_blocks', 'maf_hidden', 'maf_context'];
    nums text[] := ARRAY['lr', 'clip'];
    bools text[] := ARRAY['shared_blocks', 'resume', 'replace', 'fixed_n', 'init_default'];
    strs text[] := ARRAY['strategy', 'density', 'input', 'init', 'vector_column', 'label_column', 'group_column'];
    lo numeric;
    hi numeric;
    lo_open boolean;
    defaults jsonb;
BEGIN
    PERFORM dac_internal.dac_check_option_types('dac_train', options, ints, nums, bools, strs);
    -- A new model from a table source given no architecture starts from the
    -- shipped mlf_embed (pretrained on synthetic clusters) and fine-tunes it:
    -- the recipe that generalised best to classes the table does not have
    -- (docs/embeddings.md).  "init_default" tells dac_train_begin that an
    -- existing model keeps its own weights instead.
    IF NOT generated AND NOT options ?| ARRAY['init', 'strategy', 'density', 'input', 'dim', 'dim_hidden',
                                              'num_heads', 'num_inds', 'num_blocks', 'shared_blocks',
                                              'maf_blocks', 'maf_hidden', 'maf_context'] THEN
        options := jsonb_build_object('init', 'mlf_embed', 'init_default', true, 'lr', 2e-4, 'steps', 2000) || options;
    END IF;
    -- the numbers' defaults are the core's option table's (the flow's own
    -- options only apply to a flow, which takes the core's defaults)
    SELECT pg_catalog.jsonb_object_agg(t.name, t.default_value) INTO defaults
    FROM dac_internal.dac_train_option_table() t
    WHERE t.default_value IS NOT NULL AND t.name NOT IN ('maf_blocks', 'maf_hidden', 'maf_context');
    o := jsonb_build_object(
        'strategy', 'mlf',
        'density', CASE source WHEN 'mog' THEN 'gaussian_diag' WHEN 'warped_mog' THEN 'maf' ELSE 'none' END,
        'input', CASE WHEN paper THEN 'raw' ELSE 'setnorm' END,
        'dim', CASE WHEN paper THEN 2 ELSE 32 END,
        'shared_blocks', true, 'fixed_n', false, 'resume', false, 'replace', false) || defaults || options;
    IF o->>'strategy' NOT IN ('mlf', 'af') THEN
        RAISE EXCEPTION 'option "strategy" must be "mlf" or "af", not "%"', o->>'strategy'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o->>'input' NOT IN ('raw', 'setnorm') THEN
        RAISE EXCEPTION 'option "input" must be "raw" or "setnorm", not "%"', o->>'input'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o ? 'init' THEN
        FOREACH k IN ARRAY ARRAY['strategy', 'density', 'input', 'dim', 'dim_hidden', 'num_heads', 'num_inds',
                                 'num_blocks', 'shared_blocks', 'maf_blocks', 'maf_hidden', 'maf_context'] LOOP
            IF options ? k THEN
                RAISE EXCEPTION 'option "%" cannot be given with "init"', k
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'A model trained from another takes that model''s architecture.';
            END IF;
        END LOOP;
    END IF;
    IF o->>'density' NOT IN ('gaussian_diag', 'maf', 'none') THEN
        RAISE EXCEPTION 'option "density" must be "gaussian_diag", "maf" or "none", not "%"', o->>'density'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF o->>'density' IS DISTINCT FROM 'maf' AND options ?| ARRAY['maf_blocks', 'maf_hidden', 'maf_context'] THEN
        RAISE EXCEPTION 'options "maf_blocks", "maf_hidden" and "maf_context" apply only to "density": "maf"'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- every number within the core's option table's range
    FOR k, lo, hi, lo_open IN SELECT t.name, t.min, t.max, t.min_open FROM dac_internal.dac_train_option_table() t LOOP
        CONTINUE WHEN NOT o ? k;
        IF lo_open AND ((o->>k)::numeric <= lo OR (o->>k)::numeric > hi) THEN
            RAISE EXCEPTION 'option "%" must be greater than % and at most %, not %', k, lo, hi, o->k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF (o->>k)::numeric < lo OR (o->>k)::numeric > hi THEN
            RAISE EXCEPTION 'option "%" must be between % and %, not %', k, lo, hi, o->k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END LOOP;
    IF (o->>'mix_n_max')::int BETWEEN 1 AND 3 THEN
        RAISE EXCEPTION 'option "mix_n_max" must be 0 (off) or between 4 and 1000000, not %', o->'mix_n_max'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF ((o->>'mix_n_max')::int = 0) <> ((o->>'mix_k_max')::int = 0) THEN
        RAISE EXCEPTION 'options "mix_n_max" and "mix_k_max" must be set together'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Set both, or leave both at 0 (no mix).';
    END IF;
    IF (o->>'dim_hidden')::int % (o->>'num_heads')::int <> 0 THEN
        RAISE EXCEPTION 'option "dim_hidden" (%) must be a multiple of "num_heads" (%)',
            o->'dim_hidden', o->'num_heads' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF generated THEN
        FOREACH k IN ARRAY ARRAY['vector_column', 'label_column', 'group_column'] LOOP
            IF o ? k THEN
                RAISE EXCEPTION 'option "%" applies only to a table source, not "%"', k, source
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
        IF o->>'density' = 'maf' AND (o->>'dim')::int < 2 THEN
            RAISE EXCEPTION 'option "dim" must be at least 2 for "density": "maf"'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'The flow conditions each coordinate on the ones before it; one coordinate has none.';
        END IF;
        IF source = 'warped_mog' AND o->>'input' = 'raw' AND (o->>'dim')::int <> 2 THEN
            RAISE EXCEPTION 'option "dim" must be 2 for warped_mog' USING ERRCODE = 'invalid_parameter_value';
        END IF;
    ELSE
        FOREACH k IN ARRAY ARRAY['vector_column', 'label_column'] LOOP
            IF NOT o ? k THEN
                RAISE EXCEPTION 'option "%" is required for a table source', k
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END LOOP;
        IF o->>'input' = 'raw' THEN
            IF options ? 'dim' THEN
                RAISE EXCEPTION 'option "dim" comes from the table''s vectors; leave it out'
                    USING ERRCODE = 'invalid_parameter_value',
                          HINT = 'With "input": "setnorm" (the default for tables), "dim" is the network''s width.';
            END IF;
            o := o - 'dim';     -- the table's vectors say it
        END IF;
    END IF;
    IF o ? 'init' THEN
        -- the architecture is the initial model's: none is recorded
        o := o - ARRAY['strategy', 'density', 'input', 'dim', 'dim_hidden', 'num_heads', 'num_inds',
                       'num_blocks', 'shared_blocks', 'maf_blocks', 'maf_hidden', 'maf_context'];
    END IF;
    RETURN o;
END
$$;

