#!/bin/bash
# Every SQL-level test against the running server (run it under pg_virtualenv):
# pg_regress (make installcheck), pgTAP properties (pg_prove), concurrency,
# training stops, dump/restore, several roles (security.sh), upgrades, the README's queries,
# postgres_fdw shards (fdw.sh: two shard servers started beside this one).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PG_CONFIG:=/usr/lib/postgresql/15/bin/pg_config}"
make -s PG_CONFIG="$PG_CONFIG" installcheck || { cat regression.diffs 2>/dev/null | head -100; exit 1; }
dropdb --if-exists dac_tap
createdb dac_tap
psql -X -q -d dac_tap -c "SET client_min_messages = warning; CREATE EXTENSION pgtap; CREATE EXTENSION dac"
pg_prove -d dac_tap test/pgtap/*.sql
bash test/concurrency.sh dac_tap
bash test/training_stop.sh dac_tap
bash test/dump.sh
bash test/security.sh
bash test/sql_fuzz.sh
bash test/upgrade.sh
bash test/drop_extension.sh
bash test/progress.sh
bash test/options.sh
bash test/readme.sh
bash test/docs.sh
bash test/fdw.sh
dropdb dac_tap
