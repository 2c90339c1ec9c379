#!/bin/bash
# The README's training examples as written, on a pg_cron schedule: the
# README's table-training block (CALL dac_train on a view of labelled
# embeddings, the status, log and evaluation queries, clustering with the
# model), then its pg_cron job (resume, 100 more steps a night) with the
# schedule made every minute; the test waits for the job's run and checks
# the job and the run rows.  Run by test/ci.sh; needs postgresql-15-cron.
# Takes about two minutes (pg_cron 1.4 schedules by the minute).
set -euo pipefail
cd "$(dirname "$0")/.."
train=$(awk '/^A user with labelled embeddings/ {s = 1} s && /^```sql/ {c = 1; next} c && /^```/ {exit} c' README.md)
cron=$(awk '/^On a schedule with \[pg_cron\]/ {s = 1} s && /^```sql/ {c = 1; next} c && /^```/ {exit} c' README.md)
[ -n "$train" ] && grep -q "cron.schedule('dac-nightly', '0 3 \* \* \*'" <<<"$cron" ||
	{ echo "not ok - the README's training and pg_cron blocks were not found"; exit 1; }
cron=${cron//\'0 3 \* \* \*\'/\'* * * * *\'}
export train cron
pg_virtualenv -t -v 15 -o shared_preload_libraries=pg_cron -o cron.database_name=dac_cron \
	-o cron.use_background_workers=on -o max_worker_processes=16 bash -s <<'SH'
set -euo pipefail
createdb dac_cron
psql="psql -X -q -v ON_ERROR_STOP=1 -d dac_cron"
out=$($psql 2>&1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
$train
SQL
) || { echo "not ok - the README's training block runs as written"; tail -5 <<<"$out"; exit 1; }
echo "ok - the README's training block runs as written"
ok=$($psql -Atc "SELECT (SELECT step FROM dac_checkpoints WHERE model = 'products_v2') = 300
                    AND (SELECT status FROM dac_training_runs WHERE model = 'products_v2') = 'finished'
                    AND (SELECT config->>'input' FROM dac_models WHERE name = 'products_v2') = 'setnorm'")
if [ "$ok" = t ]; then echo "ok - the table-trained model finished its 300 steps (a normalising model)"; else echo "not ok - the table-trained model finished its 300 steps"; exit 1; fi
$psql -c "SET client_min_messages = warning" -c "$cron" >/dev/null
for i in $(seq 1 150); do
	s=$($psql -Atc "SELECT count(*) FROM dac_training_runs WHERE model = 'products_v2' AND status = 'paused' AND step = 400")
	[ "$s" = 1 ] && break
	sleep 1
done
$psql -c "SELECT cron.unschedule('dac-nightly')" >/dev/null
$psql -P footer=off -c "SELECT run_id, status, step, total_steps FROM dac_training_runs ORDER BY run_id"
$psql -P footer=off -c "SELECT status, command FROM cron.job_run_details ORDER BY runid"
ok=$($psql -Atc "SELECT (SELECT count(*) FROM dac_training_runs WHERE model = 'products_v2' AND status = 'paused' AND step = 400) = 1
                    AND (SELECT count(*) FROM cron.job_run_details WHERE status = 'succeeded') >= 1
                    AND (SELECT step FROM dac_checkpoints WHERE model = 'products_v2') = 400
                    AND (SELECT total_steps FROM dac_checkpoints WHERE model = 'products_v2') = 1000")
if [ "$ok" = t ]; then echo "ok - the README's pg_cron job resumed the table-trained model by 100 steps (to 400 of 1000) and committed"; else echo "not ok - the README's pg_cron job did not resume the table-trained model"; exit 1; fi
SH
