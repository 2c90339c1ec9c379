#!/bin/bash
# DROP EXTENSION dac cannot delete user models silently: with
# none it drops as before; with one it stops (2BP01) with a hint naming the
# way out, and the model is still there; a DROP EXTENSION of another
# extension is not stopped; SET dac.drop_models = on (also before the module
# loads) lets it go.  Usage (against a running server, as a superuser):
# bash test/drop_extension.sh
set -uo pipefail
db=dac_drop
. "$(dirname "$0")/check.sh"
q() { psql -X -q -At -d $db "$@"; }
dropdb --if-exists $db >/dev/null 2>&1
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" >/dev/null
check "with no user model, DROP EXTENSION dac drops it" \
	"$(q -c "DROP EXTENSION dac" -c "SELECT count(*) FROM pg_extension WHERE extname = 'dac'" 2>&1)" 0
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" -c "SELECT dac_import('mine', dac_export('mlf_small2d'))" >/dev/null
out=$(q -v VERBOSITY=verbose -c "DROP EXTENSION dac CASCADE" 2>&1)
check "with a user model it stops (2BP01)" "$(grep -c 'ERROR:  2BP01: cannot drop extension dac: it would delete 1 user model' <<<"$out")" 1
check "the hint names the way out" "$(grep -c 'HINT:.*dac_export.*SET dac.drop_models = on' <<<"$out")" 1
check "and the model is still there" "$(q -c "SELECT count(*) FROM dac_models WHERE name = 'mine'")" 1
check "lower case, quoted, IF EXISTS, in a list: stopped too" \
	"$(for s in 'drop extension if exists "dac"' 'DROP EXTENSION plpgsql, dac' 'DROP   EXTENSION dac;'; do q -c "$s" 2>&1 | grep -c 'cannot drop extension dac' || true; done | tr -d '\n')" "111"
q -c "DROP EXTENSION plpgsql, dac" >/dev/null 2>&1
check "(those statements changed nothing)" "$(q -c "SELECT count(*) FROM pg_extension WHERE extname IN ('dac', 'plpgsql')")" 2
check "another extension's DROP is not stopped" \
	"$(q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS pg_trgm" -c "DROP EXTENSION pg_trgm" -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'" 2>&1)" 0
check "SET dac.drop_models = on before the module loads lets it go" \
	"$(q -c "SET dac.drop_models = on" -c "DROP EXTENSION dac" -c "SELECT count(*) FROM pg_extension WHERE extname = 'dac'" 2>&1)" 0
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" -c "SELECT dac_import('mine', dac_export('mlf_small2d'))" >/dev/null
check "and after it loads" \
	"$(q -c "SELECT dac_version() IS NOT NULL" -c "SET dac.drop_models = on" -c "DROP EXTENSION dac" -c "SELECT count(*) FROM pg_extension WHERE extname = 'dac'" 2>&1 | tail -1)" 0
dropdb $db
exit $fail
