#!/bin/bash
# dac_train on a schedule: pg_cron (preloaded in a throwaway cluster) runs a
# job that is one CALL dac_train(..., '{"resume": true, ...}'); the test
# waits for the run to finish and checks the job and the run rows.
# Run by test/ci.sh; needs postgresql-15-cron.  Takes about a minute
# (pg_cron 1.4 schedules by the minute).
set -euo pipefail
cd "$(dirname "$0")/.."
pg_virtualenv -v 15 -o shared_preload_libraries=pg_cron -o cron.database_name=dac_cron \
	-o cron.use_background_workers=on -o max_worker_processes=16 bash -s <<'SH'
set -euo pipefail
createdb dac_cron
psql="psql -X -q -v ON_ERROR_STOP=1 -d dac_cron"
$psql <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION pg_cron;
CREATE EXTENSION dac;
-- a small model, trained 20 steps now
CALL dac_train('nightly', 'mog', '{"steps": 20, "batch": 4, "n_max": 60, "dim_hidden": 16, "num_inds": 4, "checkpoint_every": 10}');
-- the job: continue to 60 steps, resuming from the last checkpoint
SELECT cron.schedule('dac-nightly', '* * * * *',
    $$CALL dac_train('nightly', 'mog', '{"resume": true, "steps": 60}')$$) > 0 AS scheduled;
SQL
for i in $(seq 1 150); do
	s=$($psql -Atc "SELECT count(*) FROM dac_training_runs WHERE model = 'nightly' AND status = 'finished' AND step = 60")
	[ "$s" = 1 ] && break
	sleep 1
done
$psql -c "SELECT cron.unschedule('dac-nightly')" >/dev/null
$psql -P footer=off -c "SELECT run_id, status, step, total_steps FROM dac_training_runs ORDER BY run_id"
$psql -P footer=off -c "SELECT status, command FROM cron.job_run_details ORDER BY runid"
ok=$($psql -Atc "SELECT (SELECT count(*) FROM dac_training_runs WHERE model = 'nightly' AND status = 'finished' AND step = 60) = 1
                    AND (SELECT count(*) FROM cron.job_run_details WHERE status = 'succeeded') >= 1
                    AND (SELECT version FROM dac_models WHERE name = 'nightly') >= 5
                    AND (SELECT step FROM dac_checkpoints WHERE model = 'nightly') = 60")
if [ "$ok" = t ]; then echo "ok - the pg_cron job resumed training to step 60 and committed"; else echo "not ok - the pg_cron job did not finish the run"; exit 1; fi
SH
