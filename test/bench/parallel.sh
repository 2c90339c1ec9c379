#!/usr/bin/env bash
# Every core of one server from plain SQL (docs/scaling.md): a table of
# groups (one row per group, its points as a 2-D array) and dac_cluster_ids in
# the select list run in parallel workers.  Seconds for all groups with
# max_parallel_workers_per_gather 0 (one process) and 2 (the leader and two
# workers), 5 runs each, alternating; min and median; the plan.  Then one
# large group at a time: dac.blas_threads 1 against 2 on (3000, 12) sets
# (dac_evaluate's seconds per set, 5 runs each, alternating).
# Needs the extension installed.  Usage: bash test/bench/parallel.sh [GROUPS (400)] [N_MAX (300)]
set -euo pipefail
cd "$(dirname "$0")/../.."
groups=${1:-400}
nmax=${2:-300}
pg_virtualenv -t -v 15 -o max_worker_processes=8 -o max_parallel_workers=8 bash -s "$groups" "$nmax" <<'SH'
set -euo pipefail
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
  -c "CREATE TABLE points AS SELECT set_id AS grp, ord AS id, x FROM dac_generate('mog', $1, $2, 4, 31)" \
  -c "CREATE TABLE groups AS SELECT grp, array_agg(x ORDER BY id) AS pts, array_agg(id ORDER BY id) AS ids FROM points GROUP BY grp" \
  -c "ALTER TABLE groups SET (parallel_workers = 2)" -c "ANALYZE groups"
run="SELECT sum(cardinality(dac_cluster_ids(pts))) FROM groups"
one=(); two=()
for r in 1 2 3 4 5; do
	for w in 0 2; do
		t0=$(date +%s.%N)
		q -c "SET max_parallel_workers_per_gather = $w" -c "$run" >/dev/null
		t1=$(date +%s.%N)
		if [ $w = 0 ]; then one+=("$(echo "$t1 - $t0" | bc -l)"); else two+=("$(echo "$t1 - $t0" | bc -l)"); fi
	done
done
echo "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $run, 2 workers:"
q -c "SET max_parallel_workers_per_gather = 2" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $run" | sed 's/^/    /'
python3 - "${one[*]}" "${two[*]}" "$1" "$2" <<'PY'
import statistics, sys
one = [float(v) for v in sys.argv[1].split()]
two = [float(v) for v in sys.argv[2].split()]
print("| %s groups of up to %s 2-D points, mlf_mog2d | min s | median s |" % (sys.argv[3], sys.argv[4]))
print("|---|---|---|")
print("| one process (max_parallel_workers_per_gather 0) | %.2f | %.2f |" % (min(one), statistics.median(one)))
print("| leader and 2 workers (parallel_workers 2) | %.2f | %.2f |" % (min(two), statistics.median(two)))
print("| speed-up | %.2fx | %.2fx |" % (min(one) / min(two), statistics.median(one) / statistics.median(two)))
PY
q -c "CREATE TABLE t (threads int, s double precision)" -c "
DO \$\$
DECLARE r int; th int; v double precision;
BEGIN
    FOR r IN 1 .. 5 LOOP
        FOREACH th IN ARRAY ARRAY[1, 2] LOOP
            PERFORM set_config('dac.blas_threads', th::text, false);
            SELECT seconds_per_set INTO v FROM dac_evaluate('mlf_mog2d', 'mog', '{\"sets\": 10, \"n_max\": 3000, \"k_max\": 12, \"seed\": 3001}');
            INSERT INTO t VALUES (th, v);
        END LOOP;
    END LOOP;
END \$\$"
echo
echo "| one group of up to 3,000 points (12 clusters), mlf_mog2d | min s/set | median s/set |"
echo "|---|---|---|"
q -F' | ' -c "SELECT '| dac.blas_threads = ' || threads, round(min(s)::numeric, 4), round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s))::numeric, 4) || ' |' FROM t GROUP BY threads ORDER BY threads"
SH
