#!/bin/bash
# dac.progress: a long clustering reports where it is in NOTICEs, a short or
# unasked one says nothing, and a clustering cut short by an error leaves no
# report behind for the session's next work.  Usage (against a running
# server): bash test/progress.sh
set -uo pipefail
. "$(dirname "$0")/check.sh"
db=dac_progress
dropdb --if-exists $db
createdb $db
q() { psql -X -q -d $db -v ON_ERROR_STOP=1 "$@" 2>&1; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
	-c "CREATE TABLE big AS SELECT g.x FROM dac_generate('embed', 1, 3000, 6, 3, 64) g, generate_series(1, 8)" >/dev/null
big="SELECT count(DISTINCT c) FROM (SELECT dac_cluster(x) OVER () AS c FROM big) s"
check "no NOTICE unless asked (dac.progress = 0, the default)" \
	"$(q -c "SHOW dac.progress" -At -c "$big" | grep -c NOTICE)" 0
out=$(q -c "SET dac.progress = '1ms'" -c "$big")
rows=$(q -At -c "SELECT count(*) FROM big")
check "dac.progress = 1ms: NOTICEs name the rows and a stage" \
	"$(echo "$out" | grep -c "NOTICE:  dac: clustering $rows rows: .*, [0-9.]* s$" | awk '{print ($1 > 0)}')" 1
check "and a last one says the clustering ended" \
	"$(echo "$out" | grep -c "NOTICE:  dac: clustered $rows rows in [0-9.]* s$")" 1
check "a large group reports its sample and the rows assigned to it" \
	"$(echo "$out" | grep -c "a sample clustered first, its rows" | awk '{print ($1 > 0)}')" 1
out=$(q -c "SET dac.progress = '1ms'" -c "SELECT dac_clustering(array_agg(x)) IS NOT NULL FROM big")
check "dac_clustering reports its calibration's second clustering within the same span" \
	"$(echo "$out" | grep -c "calibrating: four rows in five clustered again" | awk '{print ($1 > 0)}')" 1
check "and ends it once, with all its rows" "$(echo "$out" | grep -c "NOTICE:  dac: clustered $rows rows in")" 1
check "a clustering shorter than dac.progress says nothing" \
	"$(q -c "SET dac.progress = '1h'" -c "$big" | grep -c NOTICE)" 0
# cut short by statement_timeout; the session's next clustering inside
# dac_evaluate (which reports no progress) shows nothing left behind
out=$(q -v ON_ERROR_STOP=0 -c "SET dac.progress = '1ms'" -c "SET client_min_messages = warning" \
	-c "SET statement_timeout = '30ms'" -c "$big" -c "RESET statement_timeout" -c "RESET client_min_messages" \
	-c "SELECT count(*) FROM dac_evaluate('mlf_embed', 'embed', '{\"sets\": 3, \"n_max\": 100, \"seed\": 5}')")
check "a cancelled clustering ends with the cancel" "$(echo "$out" | grep -c "canceling statement due to statement timeout")" 1
check "and leaves no report for the next one" "$(echo "$out" | grep -c "NOTICE:  dac:")" 0
check "dac.progress refuses a negative interval" \
	"$(q -c "SELECT dac_version()" -c "SET dac.progress = -1" | grep -c "ERROR:  -1 s is outside the valid range for parameter \"dac.progress\" (0 .. 86400)")" 1
dropdb $db
exit $fail
