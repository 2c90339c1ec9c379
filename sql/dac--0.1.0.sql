/* dac--0.1.0.sql: Deep Amortized Clustering */

\echo Use "CREATE EXTENSION dac" to load this file. \quit

CREATE FUNCTION dac_version()
RETURNS text
AS 'MODULE_PATHNAME', 'dac_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dac_version() IS
'version of the dac extension and the precision of its numeric core';

CREATE FUNCTION dac_weights_info(weights bytea)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dac_weights_info'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dac_weights_info(bytea) IS
'validates a DAC weights file (safetensors) and returns its configuration, parameter and tensor counts';
