#!/bin/bash
# ALTER EXTENSION dac UPDATE keeps what users made under 0.1.0: install the
# 0.1.0 script, add models (imported and trained, from a generator and from
# a table), runs and checkpoints, update, and check that they survive
# byte for byte, still cluster, and resume training.  Usage (against a
# running server, as a superuser): bash test/upgrade.sh
set -uo pipefail
db=dac_upgrade
fail=0
check() { if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (got '$2', want '$3')"; fail=1; fi; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d $db "$@"; }
dropdb --if-exists $db >/dev/null 2>&1
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.1.0'" \
	-c "SELECT dac_import('kept', dac_export('af_mog2d'))" \
	-c "CALL dac_train('gen', 'mog', '{\"steps\": 6, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 3, \"log_every\": 3}')" \
	-c "CREATE TABLE items AS SELECT ord AS id, label, x FROM dac_generate('mog', 1, 200, 3, 11)" \
	-c "CALL dac_train('tab', 'items', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 2, \"log_every\": 2}')" >/dev/null
before=$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models" \
	-c "SELECT string_agg(run_id || ':' || model || ':' || status || ':' || step, ' ' ORDER BY run_id) FROM dac_training_runs" \
	-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints" \
	-c "SELECT count(*) FROM dac_training_log")
ids_before=$(q -c "SELECT string_agg(c::text, ',') FROM (SELECT dac_cluster(x, 'gen') OVER (ORDER BY id) AS c FROM items) s")
check "0.1.0 is installed" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" 0.1.0

q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "ALTER EXTENSION dac UPDATE reaches the default version" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" 0.2.0
after=$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models" \
	-c "SELECT string_agg(run_id || ':' || model || ':' || status || ':' || step, ' ' ORDER BY run_id) FROM dac_training_runs" \
	-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints" \
	-c "SELECT count(*) FROM dac_training_log")
check "every model (weights, versions), run, checkpoint and log row is kept" "$after" "$before"
check "the user's models belong to the role that updated" \
	"$(q -c "SELECT string_agg(DISTINCT owner, ',') FROM dac_models WHERE NOT shipped")" "$(q -c "SELECT current_user")"
check "the kept models cluster as before" \
	"$(q -c "SELECT string_agg(c::text, ',') FROM (SELECT dac_cluster(x, 'gen') OVER (ORDER BY id) AS c FROM items) s")" "$ids_before"
check "the table checkpoint's source is schema-qualified" "$(q -c "SELECT source FROM dac_checkpoints WHERE model = 'tab'")" public.items
q -c "SET client_min_messages = warning" -c "CALL dac_train('gen', 'mog', '{\"resume\": true, \"steps\": 9}')" \
	-c "CALL dac_train('tab', 'items', '{\"resume\": true, \"steps\": 6}')" >/dev/null 2>&1
check "a 0.1.0 checkpoint resumes after the update (generator and table)" \
	"$(q -c "SELECT string_agg(model || ':' || step, ' ' ORDER BY model) FROM dac_checkpoints")" "gen:9 tab:6"
check "the internal helpers moved out of PUBLIC's reach" \
	"$(q -c "SELECT count(*) FROM pg_proc WHERE pronamespace = 'dac_internal'::regnamespace AND has_function_privilege('public', oid, 'EXECUTE')")" 0
check "the dump of a 0.1.0-made database restores after the update too" \
	"$(pg_dump $db >/tmp/dac_upgrade.sql && dropdb ${db}2 2>/dev/null; createdb ${db}2 && psql -X -q -d ${db}2 -f /tmp/dac_upgrade.sql >/dev/null 2>&1 && psql -X -At -d ${db}2 -c "SELECT count(*) FROM dac_models WHERE NOT shipped")" 3
rm -f /tmp/dac_upgrade.sql
dropdb ${db}2 >/dev/null 2>&1
dropdb $db
exit $fail
