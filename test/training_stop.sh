#!/bin/bash
# Stopping a training run: statement_timeout (cancel) and a terminated
# backend both leave the last checkpoint usable and the run row saying what
# happened; resuming after the cancel gives the same model, byte for byte,
# as a run that was never stopped.  Usage: bash test/training_stop.sh DBNAME
set -uo pipefail
db=${1:-postgres}
psql=(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db")
. "$(dirname "$0")/check.sh"
opts='{"steps": 800, "batch": 4, "n_max": 200, "dim_hidden": 32, "num_inds": 8, "checkpoint_every": 10, "log_every": 10, "seed": 6}'

"${psql[@]}" -c "SET client_min_messages = warning" -c "CALL dac_train('stop_ref', 'mog', '$opts')"
# cancelled by statement_timeout part-way
out=$("${psql[@]}" -c "SET client_min_messages = warning" -c "SET statement_timeout = '1500ms'" -c "CALL dac_train('stop_c', 'mog', '$opts')" 2>&1)
check "the CALL is cancelled by statement_timeout" "$(echo "$out" | grep -c 'canceling statement due to statement timeout')" 1
# The cancel lands in the steps or the checkpoint's writes almost always, and
# the run row says so.  In the few microseconds of a COMMIT between two
# blocks of steps PL/pgSQL cannot catch it (seen once, with both cores busy):
# the row then stays "running" and dac_training_status, which checks for the
# training session, says "interrupted".  Either way it is part-way.
row=$("${psql[@]}" -c "SELECT CASE WHEN r.status = 'cancelled' AND r.error IS NOT NULL THEN 'cancelled'
                                   WHEN r.status = 'running' AND s.status = 'interrupted' THEN 'cancelled'
                                   ELSE r.status || '/' || s.status END || ' ' || (r.step > 0 AND r.step < 800)::text
                            FROM dac_training_runs r JOIN dac_training_status s USING (run_id) WHERE r.model = 'stop_c'")
check "the run row says cancelled (or the status view interrupted), part-way" "$row" "cancelled true"
check "the checkpoint is at the run row's step" \
	"$("${psql[@]}" -c "SELECT c.step = r.step FROM dac_checkpoints c JOIN dac_training_runs r ON r.model = c.model WHERE c.model = 'stop_c'")" t
"${psql[@]}" -c "SET client_min_messages = warning" -c "CALL dac_train('stop_c', 'mog', '{\"resume\": true}')"
check "cancelled then resumed equals the uninterrupted run, byte for byte" \
	"$("${psql[@]}" -c "SELECT dac_export('stop_c') = dac_export('stop_ref')")" t

# a backend terminated mid-run
"${psql[@]}" -c "SET client_min_messages = warning" -c "CALL dac_train('stop_k', 'mog', '$opts')" >/dev/null 2>&1 &
bg=$!
for i in $(seq 1 200); do
	s=$("${psql[@]}" -c "SELECT count(*) FROM dac_training_runs WHERE model = 'stop_k' AND step >= 20")
	[ "$s" = 1 ] && break
	sleep 0.1
done
"${psql[@]}" -c "SELECT pg_terminate_backend(pid) FROM dac_training_runs WHERE model = 'stop_k'" >/dev/null
wait $bg
check "the killed run shows as interrupted" \
	"$("${psql[@]}" -c "SELECT status FROM dac_training_status WHERE model = 'stop_k'")" interrupted
"${psql[@]}" -c "SET client_min_messages = warning" -c "CALL dac_train('stop_k', 'mog', '{\"resume\": true, \"run_steps\": 10}')"
check "the next dac_train records it as interrupted and resumes from its checkpoint" \
	"$("${psql[@]}" -c "SELECT string_agg(status, ',' ORDER BY run_id) FROM dac_training_runs WHERE model = 'stop_k'")" "interrupted,paused"
check "the model is usable after the kill" \
	"$("${psql[@]}" -c "SELECT count(*) FROM dac_cluster_set('{{0,0},{5,5}}'::real[], 'stop_k')")" 2
"${psql[@]}" -c "DELETE FROM dac_training_runs WHERE model LIKE 'stop%'; DELETE FROM dac_models WHERE name LIKE 'stop%'"
exit $fail
