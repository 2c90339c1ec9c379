#!/bin/bash
# pg_dump keeps the user's models, training runs and checkpoints; restoring
# into a fresh database brings the shipped models back once (from CREATE
# EXTENSION) and the user's rows as they were.  Usage: bash test/dump.sh
set -euo pipefail
dropdb --if-exists dac_dump1
dropdb --if-exists dac_dump2
createdb dac_dump1
psql -X -q -v ON_ERROR_STOP=1 -d dac_dump1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
	-c "SELECT dac_import('mine', dac_export('mlf_mog2d'))" \
	-c "CALL dac_train('t1', 'mog', '{\"steps\": 5, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4}')" >/dev/null
# the models as the first database holds them: the restore must give them all back
models_q="SELECT string_agg(name || ':' || shipped || ':' || version, ' ' ORDER BY name) FROM dac_models"
models_before=$(psql -X -At -d dac_dump1 -c "$models_q")
dump=$(mktemp)
pg_dump dac_dump1 >"$dump"
createdb dac_dump2
psql -X -q -v ON_ERROR_STOP=1 -d dac_dump2 -f "$dump" >/dev/null
got=$(psql -X -At -d dac_dump2 \
	-c "$models_q" \
	-c "SELECT count(*) || ' ' || (SELECT count(*) FROM dac_checkpoints) FROM dac_training_runs" \
	-c "SELECT (SELECT weights FROM dac_models WHERE name = 'mine') = dac_export('mlf_mog2d')" | tr '\n' '|')
rm -f "$dump"
dropdb dac_dump1
dropdb dac_dump2
want="$models_before|1 1|t|"
# (and the user's two are there, with their versions)
case "$models_before" in *" mine:false:1 "*" t1:false:2") ;; *) echo "not ok - before the dump: $models_before"; exit 1 ;; esac
if [ "$got" = "$want" ]; then echo "ok - pg_dump and restore keep user models, runs and checkpoints"; else echo "not ok - after restore: $got (want $want)"; exit 1; fi
