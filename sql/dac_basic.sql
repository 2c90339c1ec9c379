-- dac_basic: the extension loads, and weights files are validated in the backend.
CREATE EXTENSION dac;

-- the module's version is the installed extension's (both come from dac.control)
SELECT dac_version() = (SELECT extversion FROM pg_extension WHERE extname = 'dac') || ' (core float32)' AS version_ok;

-- a valid weights file (a tiny MLF model written by dac-cli)
\set tiny `base64 -w0 test/data/tiny_mlf.safetensors`
SELECT dac_weights_info(decode(:'tiny', 'base64'));

-- NULL in, NULL out (STRICT)
SELECT dac_weights_info(NULL) IS NULL AS null_ok;

-- malformed files: each is a clear error with SQLSTATE 22P03
\set VERBOSITY sqlstate
SELECT dac_weights_info('\x'::bytea);
\set VERBOSITY default
SELECT dac_weights_info('\x'::bytea);
SELECT dac_weights_info('\x0100000000000000'::bytea);
SELECT dac_weights_info('\xffffffffffffffff7b7d'::bytea);
SELECT dac_weights_info(('\x0200000000000000' || encode('[]', 'hex'))::bytea);
SELECT dac_weights_info(('\x0200000000000000' || encode('{}', 'hex'))::bytea);
SELECT dac_weights_info(('\x0800000000000000' || encode('{"a":1} ', 'hex'))::bytea);
-- the tiny model cut short
SELECT dac_weights_info(substring(decode(:'tiny', 'base64') from 1 for 3000));
-- one header byte changed: the JSON no longer parses
SELECT dac_weights_info(set_byte(decode(:'tiny', 'base64'), 8, 91));

-- the session is still healthy after all those errors
SELECT 1 AS still_alive;
